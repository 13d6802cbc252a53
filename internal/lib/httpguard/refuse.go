// Package httpguard holds what segwi's HTTP servers (the approvals endpoint on loopback,
// the approval page on the tailnet) do alike to keep strangers from holding them: a
// listener that caps connections and keeps room for known callers, and a refusal that
// closes the connection at once.
package httpguard

import (
	"net/http"
	"time"
)

// Refuse answers a request the server will not serve with code and msg as plain text, and
// closes its connection without reading the rest of its body: Go's server would otherwise
// wait for that body, before the answer and after it, for as long as the caller cares not
// to send it.
func Refuse(w http.ResponseWriter, code int, msg string) {
	w.Header().Set("Connection", "close")
	// Fails only where the connection cannot take deadlines, and then there is nothing to drain.
	http.NewResponseController(w).SetReadDeadline(time.Now()) //nolint:errcheck
	http.Error(w, msg, code)
}
