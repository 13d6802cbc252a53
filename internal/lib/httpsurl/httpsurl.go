// Package httpsurl is segwi's one rule for the URLs it sends the GitHub token to (a remote
// it pushes to, the GitHub API): HTTPS, or plain HTTP to this machine only when the caller
// allows it explicitly, which only tests do (their loopback servers have no certificate).
// The settings check, the push and the pull request all apply it, so that a URL
// `segwi config check` accepts is one a push accepts.
package httpsurl

import (
	"net"
	"net/url"
	"strings"
)

// Allowed reports whether the token may be sent to u: its scheme is https, or it is http
// to a loopback host and allowLoopbackHTTP is true.
func Allowed(u *url.URL, allowLoopbackHTTP bool) bool {
	switch strings.ToLower(u.Scheme) {
	case "https":
		return u.Host != ""
	case "http":
		return allowLoopbackHTTP && IsLoopbackHost(u.Hostname())
	}
	return false
}

// IsLoopbackHost reports whether host (without port) is this machine: localhost or a
// loopback address (127.0.0.0/8, ::1).
func IsLoopbackHost(host string) bool {
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}
