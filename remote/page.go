package remote

import (
	"context"
	"embed"
	"encoding/json"
	"errors"
	"fmt"
	"html/template"
	"net/http"
	"sync"
	"time"

	"github.com/segwi/segwi/control"
	"github.com/segwi/segwi/runs"
)

// The page: one HTML document, its script and its style, embedded in the binary. No build
// step, nothing from another site.
//
//go:embed page/index.html page/page.js page/page.css
var pageFiles embed.FS

// pageTemplate parses the page on its first use: every segwi process links this package,
// and a command (segwi run) has no use for the page (80 µs of CPU warm, more at a start).
var pageTemplate = sync.OnceValue(func() *template.Template {
	return template.Must(template.ParseFS(pageFiles, "page/index.html"))
})

// contentSecurity lets the page load only its own script and style, and talk only to its
// own server; no frame may hold it.
const contentSecurity = "default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self'; img-src 'self'; " +
	"base-uri 'none'; form-action 'none'; frame-ancestors 'none'"

// answerTimeout bounds waiting for the core to take an answer or a raise.
const answerTimeout = 10 * time.Second

// routes serves the page, its event stream, its answers and its raises of a run's budget.
// Nothing here starts or stops a run, changes settings or pushes: the page's connection to
// the core may only answer, and raise the budget of a run that waits at it.
func (s *Server) routes() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /{$}", s.servePage)
	mux.HandleFunc("GET /page.js", s.serveFile("page/page.js", "text/javascript; charset=utf-8"))
	mux.HandleFunc("GET /page.css", s.serveFile("page/page.css", "text/css; charset=utf-8"))
	mux.HandleFunc("GET /events", s.serveEvents)
	mux.HandleFunc("POST /answer", s.serveAnswer)
	mux.HandleFunc("POST /raise", s.serveRaise)
	return mux
}

// servePage serves the page, opening a session: its cookie, and the anti-forgery token
// that the page's script sends with each answer.
func (s *Server) servePage(w http.ResponseWriter, r *http.Request) {
	d := deviceOf(r)
	ses := s.sessions.open(d.ID)
	http.SetCookie(w, ses.cookie())
	w.Header().Set("Content-Security-Policy", contentSecurity)
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	err := pageTemplate().Execute(w, struct{ Token, Who, Machine string }{ses.token, show(d.who()), show(s.current().node.Name)})
	if err != nil {
		s.logf("remote: writing the page for %s: %v", d.who(), err)
	}
}

func (s *Server) serveFile(name, contentType string) http.HandlerFunc {
	data, err := pageFiles.ReadFile(name)
	if err != nil {
		panic(err) // embedded above
	}
	return func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", contentType)
		w.Write(data) //nolint:errcheck // a reader that went away
	}
}

// serveEvents streams what the core says of the runs and the approvals to one page, as
// server-sent events: what it knows at once, then each change. Each write must go through
// within the stream's write limit, so a reader that stops reading is cut off and holds
// nothing; the stream ends after its lifetime, and the browser reconnects, passing the
// checks again.
func (s *Server) serveEvents(w http.ResponseWriter, r *http.Request) {
	d := deviceOf(r)
	c, err := s.device(d)
	if err != nil {
		s.logf("%v", err)
		http.Error(w, "segwi: the page cannot reach segwi's runs now; it tries again", http.StatusServiceUnavailable)
		return
	}
	st, backlog := c.subscribe()
	defer c.unsubscribe(st)

	rc := http.NewResponseController(w)
	// Nothing more is read from this request; the stream must outlive the read timeout.
	if err := rc.SetReadDeadline(time.Time{}); err != nil {
		http.Error(w, "segwi: cannot stream on this connection", http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "text/event-stream")
	// A stream that ends, for whatever reason, ends its connection too: an idle connection
	// left open would hold a place until the idle timeout.
	w.Header().Set("Connection", "close")
	w.WriteHeader(http.StatusOK)
	write := func(text string) bool {
		if rc.SetWriteDeadline(time.Now().Add(s.lim.streamWrite)) != nil {
			return false
		}
		if _, err := fmt.Fprint(w, text); err != nil {
			return false
		}
		return rc.Flush() == nil
	}
	send := func(ev event) bool { return write("event: " + ev.name + "\ndata: " + string(ev.data) + "\n\n") }
	hello := encodeEvent("hello", struct {
		Now time.Time `json:"now"` // for the page to count the time left by segwi's clock
		Who string    `json:"who"`
	}{time.Now(), show(d.who())})
	if !write("retry: 2000\n\n") || !send(hello) {
		return
	}
	for _, ev := range backlog {
		if !send(ev) {
			return
		}
	}
	heartbeat := time.NewTicker(s.lim.heartbeat)
	defer heartbeat.Stop()
	lifetime := time.NewTimer(s.lim.lifetime)
	defer lifetime.Stop()
	for {
		select {
		case ev := <-st.events:
			if !send(ev) {
				return
			}
		case <-heartbeat.C:
			if !write(": still here\n\n") {
				return
			}
		case <-st.ended:
			return
		case <-lifetime.C:
			return
		case <-r.Context().Done():
			return
		}
	}
}

// decodePost decodes the JSON object a page's POST carries into v, no field unknown to it,
// or answers the request with why not (shape says what the object holds) and returns false.
func decodePost(w http.ResponseWriter, r *http.Request, v any, shape string) bool {
	dec := json.NewDecoder(r.Body)
	dec.DisallowUnknownFields()
	var tooLarge *http.MaxBytesError
	if err := dec.Decode(v); errors.As(err, &tooLarge) {
		http.Error(w, "segwi: request body too large", http.StatusRequestEntityTooLarge)
		return false
	} else if err != nil {
		http.Error(w, "segwi: "+shape+": "+err.Error(), http.StatusBadRequest)
		return false
	}
	return true
}

// answerRequest is what the page posts: a person's answer to one waiting request.
type answerRequest struct {
	Request  string `json:"request"`
	Decision string `json:"decision"` // allow, deny or deny-and-stop
	Reason   string `json:"reason"`   // for a deny: the person's words, which Claude Code reads
}

// serveAnswer passes a person's answer to the core, over this device's connection: the
// core records the device and its login as who answered. The first answer wins; a later
// one (from here, a popup or a terminal) is refused with 409 and the core's words.
func (s *Server) serveAnswer(w http.ResponseWriter, r *http.Request) {
	d := deviceOf(r)
	var in answerRequest
	if !decodePost(w, r, &in, "an answer is a JSON object with request, decision and reason") {
		return
	}
	a := control.Answer{Request: in.Request, Decision: control.Decision(in.Decision), Reason: in.Reason}
	switch {
	case a.Request == "":
		http.Error(w, "segwi: the answer names no request", http.StatusBadRequest)
		return
	case a.Decision != control.Allow && a.Decision != control.Deny && a.Decision != control.DenyAndStop:
		http.Error(w, fmt.Sprintf("segwi: unknown decision %q: use allow, deny or deny-and-stop", in.Decision), http.StatusBadRequest)
		return
	case len(a.Reason) > maxReasonBytes:
		http.Error(w, fmt.Sprintf("segwi: the reason is %d bytes long, at most %d are sent", len(a.Reason), maxReasonBytes), http.StatusBadRequest)
		return
	}
	if s.pass(w, r, d, a, "answer") {
		s.logf("remote: %s answered %s: %s", d.who(), a.Request, a.Decision)
	}
}

// raiseRequest is what the page posts: a raise of the budget of a run that waits at it,
// by so much of each of its bounds (0: that bound stays).
type raiseRequest struct {
	Run    string  `json:"run"`
	Cost   float64 `json:"cost"`   // US dollars
	Tokens int64   `json:"tokens"` // tokens of every kind
	Turns  int     `json:"turns"`
}

// serveRaise passes a person's raise of a run's budget to the core, over this device's
// connection, as the run window's Raise and go on does: the run goes on, and its record
// names the device and login as who raised it. The core takes it only from a run that
// waits at its budget, once; another is refused with 409 and the core's words.
func (s *Server) serveRaise(w http.ResponseWriter, r *http.Request) {
	d := deviceOf(r)
	var in raiseRequest
	if !decodePost(w, r, &in, "a raise is a JSON object with run, cost, tokens and turns") {
		return
	}
	raise := control.RaiseBudget{Run: in.Run, By: runs.Budget{CostUSD: in.Cost, Tokens: in.Tokens, Turns: in.Turns}}
	switch {
	case raise.Run == "":
		http.Error(w, "segwi: the raise names no run", http.StatusBadRequest)
		return
	case in.Cost < 0 || in.Tokens < 0 || in.Turns < 0 || raise.By.IsZero():
		http.Error(w, "segwi: raise the budget by a cost, tokens or turns above 0", http.StatusBadRequest)
		return
	}
	if s.pass(w, r, d, raise, "raise") {
		s.logf("remote: %s raised the budget of run %s by %s", d.who(), raise.Run, raise.By)
	}
}

// pass hands cmd, what the person chose on the page (what: "answer", "raise"), to the core
// over device d's connection, and tells the page how it went: {"ok":true}, 409 with the
// core's words when it refused, 503 when it could not be reached. It reports whether the
// core took cmd.
func (s *Server) pass(w http.ResponseWriter, r *http.Request, d device, cmd control.Body, what string) bool {
	c, err := s.device(d)
	if err != nil {
		s.logf("%v", err)
		http.Error(w, "segwi: the page cannot reach segwi's runs now; try again", http.StatusServiceUnavailable)
		return false
	}
	ctx, cancel := context.WithTimeout(r.Context(), answerTimeout)
	defer cancel()
	err = c.do(ctx, cmd)
	var refused *control.CommandError
	switch {
	case errors.As(err, &refused):
		http.Error(w, "segwi: "+refused.Text, http.StatusConflict)
		return false
	case err != nil:
		s.logf("remote: passing on the %s of %s: %v", what, d.who(), err)
		http.Error(w, "segwi: the "+what+" could not reach segwi's runs; try again", http.StatusServiceUnavailable)
		return false
	}
	w.Header().Set("Content-Type", "application/json")
	w.Write([]byte(`{"ok":true}` + "\n")) //nolint:errcheck // a reader that went away
	return true
}

// device returns d's connection to the core.
func (s *Server) device(d device) (*deviceConn, error) {
	s.mu.Lock()
	ds := s.devices
	s.mu.Unlock()
	if ds == nil {
		return nil, errors.New("remote: the server is not running")
	}
	return ds.get(d)
}
