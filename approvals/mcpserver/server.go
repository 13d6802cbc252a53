// Package mcpserver is segwi's loopback MCP server: it serves the approval tool
// (--permission-prompt-tool mcp__segwi__approve) to every run's Claude Code, each with its
// own bearer token, refuses before any MCP handling what does not come from a run on this
// machine, and hands each call to an approvals.Broker. It is the only package of segwi that
// links the MCP SDK's server, and only the core (the tray process, headless segwi run)
// imports it: the window process shows requests and answers, and links none of it.
package mcpserver

import (
	"bytes"
	"context"
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"log"
	"net"
	"net/http"
	"os"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/segwi/segwi/approvals"
	"github.com/segwi/segwi/internal/lib/httpguard"
)

// limits bound what a connection may hold of the server.
type limits struct {
	header time.Duration // to read a request's headers
	body   time.Duration // to read the body of a request with a run's token
	fresh  int           // connections at once that have not shown a run's token
	conns  int           // connections at once in all
}

// defaultLimits are the server's limits. Claude Code sends a request whole at once, on
// loopback; it then waits for the answer (up to the run's Registration.ToolTimeout), which
// no limit cuts: no write timeout, and the idle timeout only counts between requests.
var defaultLimits = limits{header: 10 * time.Second, body: 10 * time.Second, fresh: 64, conns: 1024}

// Config configures a Server.
type Config struct {
	Timeout    time.Duration     // approvals.timeout; approvals.DefaultTimeout when zero
	Trusted    []string          // approvals.trusted: command prefixes allowed without asking
	Decider    approvals.Decider // puts requests in front of a person; required
	MaxPending int               // requests of one run that may wait at once; approvals.DefaultMaxPending when zero
}

// A Server is segwi's loopback MCP server: one for all runs, serving the approval tool at
// /mcp on 127.0.0.1 with an ephemeral port. Each registered run has its own bearer token,
// which tells the server which run a request belongs to. Before any MCP handling the
// server refuses a request whose Host is not its own loopback name and port (403), whose
// Origin is not its own (403), whose token is missing or unknown (401), or whose body is
// over approvals.MaxCallBytes (413) or not sent within 10 s (408). All but the last are
// decided from the headers, before any of the body is read, and every refusal closes its
// connection. The server holds at most 64 connections that have not shown a run's token
// (closing the oldest for a newcomer) and 1,024 in all. No route answers a request:
// answers come only from the trusted commands, the Decider, or the timeout.
type Server struct {
	broker   *approvals.Broker
	limits   limits
	listener net.Listener
	http     *http.Server
	mcp      *mcp.StreamableHTTPHandler
	url      string
	hosts    [2]string // the Host values this listener answers to
	origins  [2]string // its own origins

	mu      sync.RWMutex
	closed  bool
	byToken map[[sha256.Size]byte]*registration // by the sha256 digest of the token
	byRun   map[string]*registration
}

type registration struct {
	info      approvals.RunInfo
	run       approvals.Run
	digest    [sha256.Size]byte
	mcp       *mcp.Server // serves this run's approval tool
	connected sync.Once   // tells the run of its first request with the token
}

type registrationKey struct{}

type requestContextKey struct{}

// New starts a Server on 127.0.0.1 with an ephemeral port. It fails when the
// configuration is not valid or the port cannot be opened.
func New(cfg Config) (*Server, error) {
	return newServer(cfg, defaultLimits)
}

func newServer(cfg Config, lim limits) (*Server, error) {
	if cfg.Decider == nil {
		return nil, errors.New("approvals: new server: no Decider")
	}
	if cfg.Timeout < 0 {
		return nil, fmt.Errorf("approvals: new server: negative timeout %s", cfg.Timeout)
	}
	trusted, err := approvals.ParseTrusted(cfg.Trusted)
	if err != nil {
		return nil, fmt.Errorf("approvals: new server: %w", err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, fmt.Errorf("approvals: listening on loopback: %w", err)
	}
	port := strconv.Itoa(ln.Addr().(*net.TCPAddr).Port)

	s := &Server{
		broker:   approvals.NewBroker(cfg.Decider, cfg.MaxPending),
		limits:   lim,
		listener: httpguard.NewLimiter(ln, lim.fresh, lim.conns),
		url:      "http://127.0.0.1:" + port + "/mcp",
		hosts:    [2]string{"127.0.0.1:" + port, "localhost:" + port},
		origins:  [2]string{"http://127.0.0.1:" + port, "http://localhost:" + port},
		byToken:  make(map[[sha256.Size]byte]*registration),
		byRun:    make(map[string]*registration),
	}
	s.broker.SetPolicy(cfg.Timeout, trusted)

	// Stateless: every POST stands alone, so no MCP session can be carried from one run's
	// token to another's. The SDK's own DNS rebinding protection stays on.
	s.mcp = mcp.NewStreamableHTTPHandler(s.runServer, &mcp.StreamableHTTPOptions{
		Stateless:           true,
		MaxRequestBodyBytes: approvals.MaxCallBytes,
	})
	mux := http.NewServeMux()
	mux.Handle("/mcp", s.mcp)
	s.http = &http.Server{
		Handler:           s.guard(mux),
		ReadHeaderTimeout: lim.header,
		// No ReadTimeout or WriteTimeout: a tools/call waits for a person. The guard
		// gives each body its own deadline instead.
		IdleTimeout:    2 * time.Minute,
		MaxHeaderBytes: 64 << 10,
		ConnContext:    httpguard.WithConn,
		ErrorLog:       log.New(io.Discard, "", 0),
	}
	go s.http.Serve(s.listener) //nolint:errcheck // returns http.ErrServerClosed on Close
	return s, nil
}

// URL returns the MCP endpoint, http://127.0.0.1:PORT/mcp.
func (s *Server) URL() string { return s.url }

// Register gives a run its bearer token, and the tool-call timeout its Claude Code is to be
// given (approvals.Registration.ToolTimeout, which MCPConfig carries). Requests with that token
// belong to the run until Unregister; the run's requests and answers are recorded on run,
// and the first of them calls run.Connected. Its requests wait for a person at most the
// approval timeout in force now, even after a reload makes it longer (see
// approvals.Broker.AddRun).
func (s *Server) Register(info approvals.RunInfo, run approvals.Run) (approvals.Registration, error) {
	if info.ID == "" {
		return approvals.Registration{}, errors.New("approvals: register: empty run id")
	}
	var secret [32]byte
	if _, err := rand.Read(secret[:]); err != nil {
		return approvals.Registration{}, fmt.Errorf("approvals: register run %s: %w", info.ID, err)
	}
	token := hex.EncodeToString(secret[:])
	reg := &registration{info: info, run: run, digest: sha256.Sum256([]byte(token))}
	reg.mcp = s.newRunServer(info.ID, run)

	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return approvals.Registration{}, fmt.Errorf("approvals: register run %s: server closed", info.ID)
	}
	maxWait, err := s.broker.AddRun(info, run)
	if err != nil {
		return approvals.Registration{}, err
	}
	s.byToken[reg.digest] = reg
	s.byRun[info.ID] = reg
	return approvals.Registration{URL: s.url, Token: token, ToolTimeout: maxWait + approvals.ToolTimeoutSlack}, nil
}

// Unregister ends a run's registration: its token stops working at once, and its pending
// requests are denied (approvals.ByRunEnded) and withdrawn from the Decider. It returns once their
// answers are recorded; the caller must not hold a lock that the run's RecordApproval or
// SetPending needs. Unregistering an unknown run does nothing.
func (s *Server) Unregister(runID string) {
	s.mu.Lock()
	if reg := s.byRun[runID]; reg != nil {
		delete(s.byRun, runID)
		delete(s.byToken, reg.digest)
	}
	s.mu.Unlock()
	s.broker.RemoveRun(runID)
}

// SetPolicy applies a reloaded approvals.timeout and approvals.trusted to the requests
// that arrive from now on; a longer timeout applies only to the runs registered from now
// on, whose Claude Code is told to wait that long. When trusted is not valid it returns an
// error and keeps the policy in force.
func (s *Server) SetPolicy(timeout time.Duration, trusted []string) error {
	if timeout < 0 {
		return fmt.Errorf("approvals: set policy: negative timeout %s", timeout)
	}
	t, err := approvals.ParseTrusted(trusted)
	if err != nil {
		return fmt.Errorf("approvals: set policy: %w", err)
	}
	s.broker.SetPolicy(timeout, t)
	return nil
}

// Close ends every registered run as Unregister does, then stops the server. It returns
// once the answers are recorded and the listener is closed.
func (s *Server) Close() error {
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return nil
	}
	s.closed = true
	runIDs := make([]string, 0, len(s.byRun))
	for id := range s.byRun {
		runIDs = append(runIDs, id)
	}
	clear(s.byRun)
	clear(s.byToken)
	s.mu.Unlock()

	for _, id := range runIDs {
		s.broker.RemoveRun(id)
	}
	// Let the answers just given reach their callers, then drop what is left.
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	if err := s.http.Shutdown(ctx); err != nil {
		return s.http.Close()
	}
	return nil
}

// guard refuses, before any MCP handling, what does not come from a run on this machine:
// a foreign Host or Origin, a missing or unknown token, an oversized body, a body that
// does not come. It decides from the headers before reading any body, and reads the body
// of a run's request whole within the body deadline, so that no request without a token,
// and no stalled one, holds a connection.
func (s *Server) guard(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !s.ownHost(r.Host) {
			httpguard.Refuse(w, http.StatusForbidden, "forbidden: Host is not this server")
			return
		}
		if origin, ok := r.Header["Origin"]; ok && (len(origin) != 1 || !s.ownOrigin(origin[0])) {
			httpguard.Refuse(w, http.StatusForbidden, "forbidden: cross-origin request")
			return
		}
		reg := s.lookup(r.Header.Get("Authorization"))
		if reg == nil {
			w.Header().Set("WWW-Authenticate", `Bearer realm="segwi"`)
			httpguard.Refuse(w, http.StatusUnauthorized, "unauthorized: missing or unknown token")
			return
		}
		httpguard.Vouch(r)
		reg.connected.Do(reg.run.Connected)
		if r.ContentLength > approvals.MaxCallBytes {
			httpguard.Refuse(w, http.StatusRequestEntityTooLarge, "request body too large")
			return
		}
		if code, err := s.readBody(w, r); err != nil {
			httpguard.Refuse(w, code, err.Error())
			return
		}
		ctx := context.WithValue(r.Context(), registrationKey{}, reg)
		// The SDK detaches its handlers from the request; this lets the tool see the
		// caller hang up.
		ctx = context.WithValue(ctx, requestContextKey{}, r.Context())
		next.ServeHTTP(w, r.WithContext(ctx))
	})
}

// readBody reads r's body whole, at most approvals.MaxCallBytes, within the body deadline,
// and puts it back as r.Body. It then lifts the deadline: the answer may wait for a
// person, and the connection must stay readable meanwhile for the server to see the caller
// hang up. On failure it returns the status to refuse the request with.
func (s *Server) readBody(w http.ResponseWriter, r *http.Request) (int, error) {
	if r.Body == nil || r.Body == http.NoBody {
		return 0, nil
	}
	rc := http.NewResponseController(w)
	if err := rc.SetReadDeadline(time.Now().Add(s.limits.body)); err != nil {
		return http.StatusInternalServerError, fmt.Errorf("reading the request body: %w", err)
	}
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, approvals.MaxCallBytes))
	var tooLarge *http.MaxBytesError
	switch {
	case errors.As(err, &tooLarge):
		return http.StatusRequestEntityTooLarge, errors.New("request body too large")
	case errors.Is(err, os.ErrDeadlineExceeded):
		return http.StatusRequestTimeout, fmt.Errorf("request body not received within %s", s.limits.body)
	case err != nil:
		return http.StatusBadRequest, fmt.Errorf("reading the request body: %w", err)
	}
	if err := rc.SetReadDeadline(time.Time{}); err != nil {
		return http.StatusInternalServerError, fmt.Errorf("reading the request body: %w", err)
	}
	r.Body = io.NopCloser(bytes.NewReader(body))
	return 0, nil
}

func (s *Server) ownHost(host string) bool {
	return host == s.hosts[0] || strings.EqualFold(host, s.hosts[1])
}

func (s *Server) ownOrigin(origin string) bool {
	return origin == s.origins[0] || strings.EqualFold(origin, s.origins[1])
}

// lookup finds the run whose token the Authorization header carries. Tokens are found by
// their sha256 digest and compared in constant time, so the time taken says nothing about
// how much of a guess was right.
func (s *Server) lookup(authorization string) *registration {
	scheme, token, ok := strings.Cut(authorization, " ")
	if !ok || !strings.EqualFold(scheme, "Bearer") {
		return nil
	}
	token = strings.TrimSpace(token)
	if token == "" {
		return nil
	}
	digest := sha256.Sum256([]byte(token))
	s.mu.RLock()
	reg := s.byToken[digest]
	s.mu.RUnlock()
	if reg == nil || subtle.ConstantTimeCompare(reg.digest[:], digest[:]) != 1 {
		return nil
	}
	return reg
}

// runServer picks the MCP server of the run the guard found for r.
func (s *Server) runServer(r *http.Request) *mcp.Server {
	reg, _ := r.Context().Value(registrationKey{}).(*registration)
	if reg == nil {
		return nil // unreachable behind the guard; the SDK answers 400
	}
	return reg.mcp
}
