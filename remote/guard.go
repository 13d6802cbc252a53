package remote

import (
	"context"
	"errors"
	"io"
	"net/http"
	"strings"
	"time"

	"tailscale.com/client/local"

	"github.com/segwi/segwi/internal/lib/httpguard"
)

// Bounds on the page's requests.
const (
	maxBodyBytes   = 16 << 10        // an answer is a few hundred bytes
	maxReasonBytes = 4 << 10         // a deny's reason, which Claude Code reads
	whoisTimeout   = 5 * time.Second // for tailscaled to name a connection's device
)

// limits bound what a connection may hold of the server.
type limits struct {
	header      time.Duration // to read a request's headers
	request     time.Duration // to read a whole request, and to write a response
	streamWrite time.Duration // to write one event of a stream: a reader that stalls is cut off after this
	heartbeat   time.Duration // between comment lines that keep a quiet stream from being given up
	lifetime    time.Duration // then a stream ends and the browser reconnects, checked again
	fresh       int           // connections at once whose device is not known yet
	conns       int           // connections at once in all
}

// defaultLimits are the page's limits. A phone on a slow link still sends a request of a
// few hundred bytes in well under the request limit.
var defaultLimits = limits{
	header: 10 * time.Second, request: 20 * time.Second,
	streamWrite: 10 * time.Second, heartbeat: 25 * time.Second, lifetime: 10 * time.Minute,
	fresh: 16, conns: 64,
}

type deviceKey struct{}

// deviceOf returns the device the guard let r through for.
func deviceOf(r *http.Request) device {
	d, _ := r.Context().Value(deviceKey{}).(device)
	return d
}

// guard refuses, before any handling, every request that does not come from one of the
// owner's other devices to this machine's own name, and every write that does not come
// from the page itself:
//   - the identity check: WhoIs of the remote address must name a node that is not this
//     machine's own, not tagged, and owned by an allowed login (403, and a log line naming
//     the node and login; 503 when tailscaled cannot be asked);
//   - the Host allow list: this machine's MagicDNS names and tailnet addresses, with the
//     port (403: DNS rebinding);
//   - no cross-site request but a plain navigation to the page (Sec-Fetch-Site);
//   - a POST must carry the page's own Origin, its session's cookie and anti-forgery token
//     (403), and a body of at most maxBodyBytes (413).
//
// No response carries a CORS header. Every refusal closes its connection.
func (s *Server) guard(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h := w.Header()
		h.Set("Cache-Control", "no-store")
		h.Set("X-Content-Type-Options", "nosniff")
		h.Set("X-Frame-Options", "DENY")
		h.Set("Referrer-Policy", "no-referrer")

		st := s.current()
		d, no := s.identify(r.Context(), r.RemoteAddr, st)
		if no != nil {
			s.logf("remote: %s %s from %s: %s", r.Method, r.URL.Path, r.RemoteAddr, no.log)
			httpguard.Refuse(w, no.code, no.text)
			return
		}
		if !st.endpoints.allows(r.Host) {
			s.logf("remote: %s %s from node %s (%s): refused the Host %q, which does not name this machine", r.Method, r.URL.Path, d.Name, d.Login, r.Host)
			httpguard.Refuse(w, http.StatusForbidden, "segwi: this page answers only at this machine's tailnet names and addresses, with the port "+
				"(the request named another host: DNS rebinding is refused)")
			return
		}
		httpguard.Vouch(r)
		if site := r.Header.Get("Sec-Fetch-Site"); site == "cross-site" && !isNavigation(r) {
			httpguard.Refuse(w, http.StatusForbidden, "segwi: refused a request that another site's page made")
			return
		}
		if r.Method == http.MethodPost {
			if no := s.checkWrite(r, d); no != "" {
				s.logf("remote: POST %s from node %s (%s): %s", r.URL.Path, d.Name, d.Login, no)
				httpguard.Refuse(w, http.StatusForbidden, "segwi: "+no)
				return
			}
			r.Body = http.MaxBytesReader(w, r.Body, maxBodyBytes)
			if r.ContentLength > maxBodyBytes {
				// Read up to the cap, no further: hitting it makes Go's server half-close the
				// connection after the answer and wait a moment before closing, so that the
				// 413 reaches a client still sending (a plain close, with the body unread,
				// resets the connection and can lose the answer on the way).
				io.Copy(io.Discard, r.Body) //nolint:errcheck // it stops at the cap, by design
				http.Error(w, "segwi: request body too large", http.StatusRequestEntityTooLarge)
				return
			}
		}
		next.ServeHTTP(w, r.WithContext(context.WithValue(r.Context(), deviceKey{}, d)))
	})
}

// identify names the device behind remoteAddr, or says why it may not use the page.
func (s *Server) identify(ctx context.Context, remoteAddr string, st state) (device, *refusal) {
	if st.err != nil {
		return device{}, &refusal{code: http.StatusServiceUnavailable, text: "segwi: the page is not served now: " + st.err.Error(),
			log: "not served: " + st.err.Error()}
	}
	ctx, cancel := context.WithTimeout(ctx, whoisTimeout)
	defer cancel()
	who, err := s.ts.WhoIs(ctx, remoteAddr)
	switch {
	case errors.Is(err, local.ErrPeerNotFound):
		return device{}, notThroughTailnet("tailscaled's WhoIs knows no node for it")
	case err != nil:
		return device{}, &refusal{code: http.StatusServiceUnavailable,
			text: "segwi: cannot ask tailscaled who sent this request, so it is refused; try again",
			log:  "WhoIs failed, refused: " + explain(s.socket, err).Error()}
	}
	return judge(who, st.node, s.owners)
}

// checkWrite says why a POST from device d is not the page's own, or "" when it is: its
// Origin must be the page's (the scheme and the Host it was sent to), and it must carry
// the cookie and anti-forgery token of a session that device opened.
func (s *Server) checkWrite(r *http.Request, d device) string {
	origin := r.Header.Values("Origin")
	switch {
	case len(origin) == 0:
		return "refused a write without an Origin: answers and raises come only from the page itself"
	case len(origin) > 1 || !strings.EqualFold(origin[0], "http://"+r.Host):
		return "refused a write from another origin: answers and raises come only from the page itself"
	case !s.sessions.check(r, d.ID):
		return "refused a write without this page's session and anti-forgery token: reload the page"
	}
	return ""
}

// isNavigation reports whether r is a person opening the page itself, which another site
// may link to: it changes nothing and what it shows only the page's own script can read.
func isNavigation(r *http.Request) bool {
	return r.Method == http.MethodGet && r.URL.Path == "/" && r.Header.Get("Sec-Fetch-Mode") == "navigate"
}
