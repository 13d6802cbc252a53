package push

import (
	"net/url"
	"regexp"
	"strings"

	"github.com/segwi/segwi/internal/lib/httpsurl"
)

// DefaultTokenHost is the host the GitHub token is sent to when [Request.TokenHosts] is
// empty.
const DefaultTokenHost = "github.com"

// remoteURL is a remote's push URL that segwi will send the token to.
type remoteURL struct {
	u *url.URL
}

// display is the URL without any user or password, safe to record and show.
func (r remoteURL) display() string { return stripUserinfo(r.u) }

func stripUserinfo(u *url.URL) string {
	c := *u
	c.User = nil
	return c.String()
}

// describeRemote says what kind of remote raw is, for the not-HTTPS refusal.
func describeRemote(raw string) string {
	if i := strings.Index(raw, "://"); i > 0 {
		return strings.ToLower(raw[:i])
	}
	// git's <transport>::<address> (ext::sh -c …, fd::3): a remote helper, not ssh.
	if i := strings.Index(raw, "::"); i > 0 && !strings.ContainsAny(raw[:i], "/:@") {
		return "git's " + strings.ToLower(raw[:i]) + ":: transport"
	}
	// scp-like syntax: [user@]host:path, with no slash before the colon.
	if i := strings.Index(raw, ":"); i > 0 && !strings.Contains(raw[:i], "/") {
		return "ssh"
	}
	return "a local path"
}

// checkRemoteURL decides whether the token may be sent to raw, the push URL of the remote
// named name. It returns the parsed URL or a refusal.
func checkRemoteURL(name, raw string, allowLoopbackHTTP bool, tokenHosts []string) (remoteURL, *RefusedError) {
	shown := withoutUserinfo(raw)
	u, err := url.Parse(raw)
	if err != nil || !strings.Contains(raw, "://") || u.Host == "" {
		return remoteURL{}, refuse(ReasonNotHTTPS,
			"remote %s is %s (%s); segwi pushes only over HTTPS with its GitHub token, so push this remote yourself (git push %s)",
			name, shown, describeRemote(raw), name)
	}
	if !httpsurl.Allowed(u, allowLoopbackHTTP) {
		return remoteURL{}, refuse(ReasonNotHTTPS,
			"remote %s is %s (%s); segwi pushes only over HTTPS with its GitHub token, so push this remote yourself (git push %s)",
			name, shown, strings.ToLower(u.Scheme), name)
	}
	if len(tokenHosts) == 0 {
		tokenHosts = []string{DefaultTokenHost}
	}
	for _, h := range tokenHosts {
		if strings.EqualFold(h, u.Hostname()) || strings.EqualFold(h, u.Host) {
			return remoteURL{u: u}, nil
		}
	}
	return remoteURL{}, refuse(ReasonTokenHost,
		"remote %s points at %s, and segwi sends its GitHub token only to %s; if %s is your GitHub Enterprise host, set segwi.github.apiURL to https://%s/api/v3 in segwi's settings window and save the token again for it (the token then goes there instead), otherwise push this remote yourself (git push %s)",
		name, stripUserinfo(u), strings.Join(tokenHosts, ", "), u.Hostname(), u.Host, name)
}

// urlUserinfo matches the user[:password]@ part of a URL.
var urlUserinfo = regexp.MustCompile(`([A-Za-z][A-Za-z0-9+.-]*://)[^/\s@]+@`)

// withoutUserinfo removes the user and password from every URL in s: the form in which
// segwi shows and records remote URLs (the same URL for everyone, whatever credentials a
// checkout wrote into it). Secrets in text segwi did not format, such as git's output, are
// the redactor's (internal/lib/redact).
func withoutUserinfo(s string) string { return urlUserinfo.ReplaceAllString(s, "$1") }
