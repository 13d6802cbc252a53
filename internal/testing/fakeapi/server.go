package fakeapi

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"
)

// maxBody caps a request body the server reads; Claude Code's requests are far smaller.
const maxBody = 64 << 20

// Server is a fake Anthropic Messages API listening on a loopback port. It answers the
// agent's conversation from its Script, answers Claude Code's side requests itself, and
// records every request. Its methods are safe for concurrent use.
type Server struct {
	// URL is the server's base URL (http://127.0.0.1:PORT), for ANTHROPIC_BASE_URL.
	URL string

	script   Script
	listener net.Listener
	http     *http.Server
	served   chan struct{}
	closing  chan struct{}
	close    sync.Once

	mu       sync.Mutex
	requests []*Request
	problems []string
	sent     map[*Request]Usage // the usage each answered Messages request was told
	arrived  chan struct{}      // closed and replaced whenever a request is recorded
	logf     func(format string, args ...any)
}

// New starts a Server answering from script, logs each request to t, and closes the server
// when the test ends, failing the test for every request the script did not expect or the
// server could not answer.
func New(t testing.TB, script Script) *Server {
	t.Helper()
	s, err := Start(script)
	if err != nil {
		t.Fatalf("starting the fake Messages API: %v", err)
	}
	s.logf = t.Logf
	t.Cleanup(func() {
		s.Close()
		for _, p := range s.Problems() {
			t.Errorf("fake Messages API: %s", p)
		}
	})
	return s
}

// Start starts a Server answering from script on 127.0.0.1 with an ephemeral port. The
// caller must Close it.
func Start(script Script) (*Server, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, fmt.Errorf("listening on loopback: %w", err)
	}
	s := &Server{
		URL:      "http://" + ln.Addr().String(),
		script:   script,
		listener: ln,
		served:   make(chan struct{}),
		closing:  make(chan struct{}),
		arrived:  make(chan struct{}),
	}
	s.http = &http.Server{Handler: s}
	go func() {
		defer close(s.served)
		s.http.Serve(ln)
	}()
	return s, nil
}

// Close stops the server: hanging replies end, open connections are closed, and Close
// returns once every handler has returned. It is safe to call more than once.
func (s *Server) Close() {
	s.close.Do(func() {
		close(s.closing)
		// Shutdown waits for the handlers, which return now that closing is closed; the
		// timeout only guards against a client that never reads its reply.
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		if s.http.Shutdown(ctx) != nil {
			s.http.Close()
		}
		<-s.served
	})
}

// sentUsage notes that req's reply reported u.
func (s *Server) sentUsage(req *Request, u Usage) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.sent == nil {
		s.sent = map[*Request]Usage{}
	}
	s.sent[req] = u
}

// Sent returns the usage the reply to req reported, and whether it reported any (a
// request answered with an error, or not yet answered, has none).
func (s *Server) Sent(req *Request) (Usage, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	u, ok := s.sent[req]
	return u, ok
}

// Requests returns every request received so far, in order of arrival.
func (s *Server) Requests() []*Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]*Request(nil), s.requests...)
}

// Scripted returns the requests answered from the script so far, in order of arrival.
func (s *Server) Scripted() []*Request {
	var scripted []*Request
	for _, r := range s.Requests() {
		if isMessages(r) && !r.Side {
			scripted = append(scripted, r)
		}
	}
	return scripted
}

// Last returns the last request answered from the script, or nil if there was none.
func (s *Server) Last() *Request {
	scripted := s.Scripted()
	if len(scripted) == 0 {
		return nil
	}
	return scripted[len(scripted)-1]
}

// Problems returns what went wrong so far: requests the script did not expect, bodies the
// server could not read. New reports them as test failures.
func (s *Server) Problems() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.problems...)
}

// WaitRequest blocks until a request for which match returns true has been received, and
// returns the first such request. It returns early with ctx's error when ctx is done.
func (s *Server) WaitRequest(ctx context.Context, match func(*Request) bool) (*Request, error) {
	for {
		s.mu.Lock()
		arrived := s.arrived
		for _, r := range s.requests {
			if match(r) {
				s.mu.Unlock()
				return r, nil
			}
		}
		s.mu.Unlock()
		select {
		case <-arrived:
		case <-ctx.Done():
			return nil, fmt.Errorf("waiting for a request to the fake Messages API: %w", ctx.Err())
		}
	}
}

// record adds req to the log and wakes WaitRequest.
func (s *Server) record(req *Request) {
	s.mu.Lock()
	defer s.mu.Unlock()
	req.Seq = len(s.requests)
	s.requests = append(s.requests, req)
	close(s.arrived)
	s.arrived = make(chan struct{})
}

// problem notes something that should fail the test.
func (s *Server) problem(format string, args ...any) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.problems = append(s.problems, fmt.Sprintf(format, args...))
}

func (s *Server) log(format string, args ...any) {
	if s.logf != nil {
		s.logf("fakeapi: "+format, args...)
	}
}

// isMessages reports whether req is a Messages API request (not count_tokens or other).
func isMessages(req *Request) bool {
	return req.Method == http.MethodPost && strings.TrimSuffix(req.Path, "/") == "/v1/messages"
}

// ServeHTTP answers one request: POST /v1/messages from the script (or as a side request),
// POST /v1/messages/count_tokens with a token count, and anything else with {}.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, err := io.ReadAll(io.LimitReader(r.Body, maxBody))
	req := &Request{Received: time.Now(), Method: r.Method, Path: r.URL.Path, Query: r.URL.RawQuery, Header: r.Header.Clone(), Body: body}
	if err != nil {
		s.record(req)
		s.problem("request %d %s %s: reading body: %v", req.Seq, r.Method, r.URL.Path, err)
		return
	}
	parseErr := req.parseBody()
	switch {
	case isMessages(req):
		req.Side = isSideRequest(req)
		s.record(req)
		if parseErr != nil {
			s.problem("request %d: %v", req.Seq, parseErr)
			writeJSON(w, http.StatusBadRequest, apiError("invalid_request_error", parseErr.Error()))
			return
		}
		s.answerMessages(w, r, req)
	case r.Method == http.MethodPost && strings.TrimSuffix(req.Path, "/") == "/v1/messages/count_tokens":
		s.record(req)
		s.log("#%d count_tokens", req.Seq)
		writeJSON(w, http.StatusOK, map[string]int{"input_tokens": tokens(body)})
	default:
		s.record(req)
		s.log("#%d %s %s: answered {}", req.Seq, r.Method, r.URL.Path)
		writeJSON(w, http.StatusOK, map[string]any{})
	}
}

// answerMessages answers a Messages request from the script, or as a side request.
func (s *Server) answerMessages(w http.ResponseWriter, r *http.Request, req *Request) {
	var reply Reply
	if req.Side {
		reply = sideReply()
	} else {
		reply = s.script(req)
		if reply.unscripted != "" {
			s.problem("request %d (turn %d): %s", req.Seq, req.Turn(), reply.unscripted)
		}
	}
	s.log("#%d %s", req.Seq, describe(req, reply))
	id := fmt.Sprintf("msg_fake%04d", req.Seq)
	u := reply.usage(tokens(req.Body))
	if reply.ErrorStatus != 0 {
		writeJSON(w, reply.ErrorStatus, apiError(reply.ErrorType, reply.ErrorMessage))
		return
	}
	if !req.Stream {
		if reply.Hang {
			s.hang(r)
			return
		}
		s.sentUsage(req, u)
		writeJSON(w, http.StatusOK, reply.whole(id, req.Model, u))
		return
	}
	s.sentUsage(req, u)
	sse := streamStart(w, id, req.Model, u)
	if reply.Hang {
		s.hang(r)
		return
	}
	sse.streamRest(reply, u)
	if sse.err != nil {
		s.log("#%d: %v", req.Seq, sse.err)
	}
}

// hang blocks until the client goes away or the server closes.
func (s *Server) hang(r *http.Request) {
	select {
	case <-r.Context().Done():
	case <-s.closing:
	}
}

// isSideRequest reports whether a Messages request is one of Claude Code's own side requests
// rather than a step of the agent's conversation: those offer the model no tools.
func isSideRequest(req *Request) bool {
	return len(req.Tools) == 0
}

// sideReply answers a side request with a short text that ends the turn.
func sideReply() Reply {
	return Say(Text("Fake reply"))
}

// describe says in a few words what the server did with a request, for the test log.
func describe(req *Request, reply Reply) string {
	kind := "scripted"
	if req.Side {
		kind = "side"
	}
	var parts []string
	for _, b := range reply.Content {
		switch b.Type {
		case "tool_use":
			v := b.Verdict.Outcome
			if v == "" {
				v = NotFlagged.Outcome
			}
			if b.Verdict.omit {
				v = "no verdict"
			}
			parts = append(parts, fmt.Sprintf("tool_use %s %s (%s)", b.Name, b.Input, v))
		default:
			parts = append(parts, fmt.Sprintf("text %q", truncate(b.Text, 60)))
		}
	}
	switch {
	case reply.Hang:
		parts = append(parts, "hang")
	case reply.ErrorStatus != 0:
		parts = append(parts, fmt.Sprintf("error %d %s", reply.ErrorStatus, reply.ErrorType))
	}
	return fmt.Sprintf("%s %s model=%s stream=%t turn=%d tools=%d: %s",
		kind, req.Path, req.Model, req.Stream, req.Turn(), len(req.Tools), strings.Join(parts, ", "))
}

func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "..."
}

// tokens is a plausible token count for a body: about one per four bytes.
func tokens(body []byte) int {
	return len(body)/4 + 1
}

func apiError(errType, message string) map[string]any {
	return map[string]any{"type": "error", "error": map[string]string{"type": errType, "message": message}}
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	data, err := json.Marshal(v)
	if err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	w.Write(data)
}
