package mcpserver

import (
	"bytes"
	"encoding/json"
	"github.com/segwi/segwi/approvals"
	"github.com/segwi/segwi/internal/testing/approvaltest"
	"io"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"
)

func newTestServer(t *testing.T, cfg Config) *Server {
	t.Helper()
	s, err := New(cfg)
	if err != nil {
		t.Fatalf("NewServer: %v", err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

func register(t *testing.T, s *Server, id string) (approvals.Registration, *approvaltest.Run) {
	t.Helper()
	run := approvaltest.NewRun()
	reg, err := s.Register(approvals.RunInfo{ID: id, Kind: "build", Checkout: "/src/" + id}, run)
	if err != nil {
		t.Fatalf("Register(%s): %v", id, err)
	}
	return reg, run
}

const initializeBody = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"test","version":"1"}}}`

const callApproveBody = `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"approve","arguments":{"tool_name":"Bash","input":{"command":"rm -rf /"},"tool_use_id":"toolu_1"}}}`

// mcpRequest returns a POST of body to the server's endpoint as Claude Code sends it.
func mcpRequest(t *testing.T, s *Server, token string, body io.Reader) *http.Request {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, s.URL(), body)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	return req
}

func do(t *testing.T, req *http.Request) (int, string) {
	t.Helper()
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("%s %s: %v", req.Method, req.URL, err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(body)
}

// onlyReader hides a reader's length, so the request goes out chunked.
type onlyReader struct{ io.Reader }

func TestServerRefusesBeforeAnyMCPHandling(t *testing.T) {
	s := newTestServer(t, Config{Decider: approvaltest.Nobody(t)})
	reg, run := register(t, s, "r1")
	ended, _ := register(t, s, "r0")
	s.Unregister("r0")
	port := strings.TrimPrefix(strings.TrimSuffix(s.URL(), "/mcp"), "http://127.0.0.1:")
	big := `{"jsonrpc":"2.0","id":1,"method":"ping","params":{"pad":"` + strings.Repeat("a", approvals.MaxCallBytes) + `"}}`

	tests := []struct {
		name   string
		modify func(*http.Request)
		body   string
		want   int
	}{
		{"a request without a token is refused with 401", func(r *http.Request) { r.Header.Del("Authorization") }, callApproveBody, 401},
		{"a request with a wrong token is refused with 401", func(r *http.Request) { r.Header.Set("Authorization", "Bearer "+strings.Repeat("0", 64)) }, callApproveBody, 401},
		{"a token with one character changed is refused with 401", func(r *http.Request) {
			r.Header.Set("Authorization", "Bearer "+reg.Token[:63]+flip(reg.Token[63]))
		}, callApproveBody, 401},
		{"a token under another scheme is refused with 401", func(r *http.Request) { r.Header.Set("Authorization", "Basic "+reg.Token) }, callApproveBody, 401},
		{"an empty bearer token is refused with 401", func(r *http.Request) { r.Header.Set("Authorization", "Bearer ") }, callApproveBody, 401},
		{"the token of a run that ended is refused with 401", func(r *http.Request) { r.Header.Set("Authorization", "Bearer "+ended.Token) }, callApproveBody, 401},
		{"a Host naming another machine is refused with 403", func(r *http.Request) { r.Host = "attacker.example:" + port }, callApproveBody, 403},
		{"a Host with another port is refused with 403", func(r *http.Request) { r.Host = "127.0.0.1:1" }, callApproveBody, 403},
		{"a Host without the port is refused with 403", func(r *http.Request) { r.Host = "localhost" }, callApproveBody, 403},
		{"a foreign Origin is refused with 403", func(r *http.Request) { r.Header.Set("Origin", "https://attacker.example") }, callApproveBody, 403},
		{"an Origin on another loopback port is refused with 403", func(r *http.Request) { r.Header.Set("Origin", "http://127.0.0.1:1") }, callApproveBody, 403},
		{"an Origin of null is refused with 403", func(r *http.Request) { r.Header.Set("Origin", "null") }, callApproveBody, 403},
		{"an empty Origin is refused with 403", func(r *http.Request) { r.Header.Set("Origin", "") }, callApproveBody, 403},
		{"a body over 1 MiB is refused with 413", nil, big, 413},
		{"a chunked body over 1 MiB is refused with 413", func(r *http.Request) {
			r.ContentLength = -1
			r.Body = io.NopCloser(onlyReader{strings.NewReader(big)})
		}, big, 413},
		{"a path other than /mcp is not found", func(r *http.Request) { r.URL.Path = "/answer" }, callApproveBody, 404},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			req := mcpRequest(t, s, reg.Token, strings.NewReader(tt.body))
			if tt.modify != nil {
				tt.modify(req)
			}
			if got, body := do(t, req); got != tt.want {
				t.Errorf("status: got %d (%s), want %d", got, strings.TrimSpace(body), tt.want)
			}
		})
	}
	if recs := run.Records(); len(recs) != 0 {
		t.Errorf("records after refused requests: got %+v, want none", recs)
	}
}

func flip(c byte) string {
	if c == '0' {
		return "1"
	}
	return "0"
}

func TestServerLetsThroughItsOwnRequests(t *testing.T) {
	s := newTestServer(t, Config{Decider: approvaltest.Nobody(t)})
	reg, _ := register(t, s, "r1")
	u, _ := url.Parse(s.URL())
	tests := []struct {
		name   string
		modify func(*http.Request)
		want   int
	}{
		{"an initialize with the run's token is answered", func(*http.Request) {}, 200},
		{"the localhost name of the listener is accepted", func(r *http.Request) { r.Host = "localhost:" + u.Port() }, 200},
		{"the server's own origin is accepted", func(r *http.Request) { r.Header.Set("Origin", "http://"+u.Host) }, 200},
		{"the bearer scheme in lower case is accepted", func(r *http.Request) { r.Header.Set("Authorization", "bearer "+reg.Token) }, 200},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			req := mcpRequest(t, s, reg.Token, strings.NewReader(initializeBody))
			tt.modify(req)
			got, body := do(t, req)
			if got != tt.want {
				t.Fatalf("status: got %d (%s), want %d", got, strings.TrimSpace(body), tt.want)
			}
			if !strings.Contains(body, `"serverInfo":{"name":"segwi"`) {
				t.Errorf("body: got %s, want an initialize result from segwi", body)
			}
		})
	}
	t.Run("the SSE GET is refused as not allowed", func(t *testing.T) {
		req := mcpRequest(t, s, reg.Token, nil)
		req.Method = http.MethodGet
		req.Header.Set("Accept", "text/event-stream")
		if got, _ := do(t, req); got != http.StatusMethodNotAllowed {
			t.Errorf("status: got %d, want 405", got)
		}
	})
}

func TestServerTokenStopsWorkingOnUnregister(t *testing.T) {
	s := newTestServer(t, Config{Decider: approvaltest.Nobody(t)})
	reg, _ := register(t, s, "r1")
	if got, _ := do(t, mcpRequest(t, s, reg.Token, strings.NewReader(initializeBody))); got != 200 {
		t.Fatalf("before Unregister: got %d, want 200", got)
	}
	s.Unregister("r1")
	if got, _ := do(t, mcpRequest(t, s, reg.Token, strings.NewReader(initializeBody))); got != 401 {
		t.Errorf("after Unregister: got %d, want 401", got)
	}
}

func TestServerRegistration(t *testing.T) {
	s := newTestServer(t, Config{Decider: approvaltest.Nobody(t)})
	a, _ := register(t, s, "a")
	b, _ := register(t, s, "b")
	if !strings.HasPrefix(s.URL(), "http://127.0.0.1:") || !strings.HasSuffix(s.URL(), "/mcp") || a.URL != s.URL() {
		t.Errorf("URL: got %q (registration %q), want http://127.0.0.1:PORT/mcp", s.URL(), a.URL)
	}
	if len(a.Token) != 64 || a.Token == b.Token {
		t.Errorf("tokens: got %q and %q, want two different 32-byte hex tokens", a.Token, b.Token)
	}
	if _, err := s.Register(approvals.RunInfo{ID: "a"}, approvaltest.NewRun()); err == nil {
		t.Error("Register of a run already registered: got no error, want one")
	}
	if _, err := s.Register(approvals.RunInfo{}, approvaltest.NewRun()); err == nil {
		t.Error("Register without a run id: got no error, want one")
	}
	cfg := a.MCPConfig()
	if !bytes.Contains(cfg, []byte(`"Authorization": "Bearer `+a.Token+`"`)) || !bytes.Contains(cfg, []byte(`"url": "`+s.URL()+`"`)) {
		t.Errorf("MCPConfig: got %s, want the URL and the bearer token", cfg)
	}
}

// Claude Code gives an MCP tool call 60 s unless told otherwise: each run's mcp.json tells
// it to wait for the approval tool the approval timeout in force at the run's start, plus
// the slack, and a reload gives the runs registered after it their own.
func TestServerGivesEachRunsClaudeCodeAToolTimeoutAboveTheApprovalTimeout(t *testing.T) {
	s := newTestServer(t, Config{Decider: approvaltest.Nobody(t), Timeout: 10 * time.Minute})
	first, _ := register(t, s, "first")
	if err := s.SetPolicy(30*time.Minute, nil); err != nil {
		t.Fatal(err)
	}
	second, _ := register(t, s, "second")
	for _, tt := range []struct {
		reg  approvals.Registration
		want time.Duration
	}{{first, 11 * time.Minute}, {second, 31 * time.Minute}} {
		if tt.reg.ToolTimeout != tt.want {
			t.Errorf("ToolTimeout: got %s, want %s", tt.reg.ToolTimeout, tt.want)
		}
		var doc struct {
			MCPServers map[string]struct {
				Type    string `json:"type"`
				Timeout int64  `json:"timeout"`
			} `json:"mcpServers"`
		}
		if err := json.Unmarshal(tt.reg.MCPConfig(), &doc); err != nil {
			t.Fatal(err)
		}
		if got := doc.MCPServers[approvals.ServerName]; got.Type != "http" || got.Timeout != tt.want.Milliseconds() {
			t.Errorf("MCPConfig: server %+v, want type http and timeout %d (ms)", got, tt.want.Milliseconds())
		}
	}
}

func TestServerConfigIsChecked(t *testing.T) {
	tests := []struct {
		name string
		cfg  Config
	}{
		{"a server without a Decider is refused", Config{}},
		{"a negative timeout is refused", Config{Decider: approvaltest.Nobody(t), Timeout: -time.Second}},
		{"a trusted entry that is not plain words is refused", Config{Decider: approvaltest.Nobody(t), Trusted: []string{"ls; rm"}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if s, err := New(tt.cfg); err == nil {
				s.Close()
				t.Error("NewServer: got no error, want one")
			}
		})
	}
}

func TestServerClosedRefusesRegistrations(t *testing.T) {
	s := newTestServer(t, Config{Decider: approvaltest.Nobody(t)})
	if err := s.Close(); err != nil {
		t.Fatalf("Close: %v", err)
	}
	if _, err := s.Register(approvals.RunInfo{ID: "late"}, approvaltest.NewRun()); err == nil {
		t.Error("Register after Close: got no error, want one")
	}
	if err := s.Close(); err != nil {
		t.Errorf("second Close: got %v, want nil", err)
	}
}

func TestServerTellsTheRunOnceWhenItsTokenIsFirstUsed(t *testing.T) {
	s := newTestServer(t, Config{Decider: approvaltest.Nobody(t)})
	reg, run := register(t, s, "r1")
	other, _ := register(t, s, "r2")
	do(t, mcpRequest(t, s, other.Token, strings.NewReader(initializeBody)))
	do(t, mcpRequest(t, s, "", strings.NewReader(initializeBody)))
	if n := run.Connections(); n != 0 {
		t.Fatalf("Connected calls before any request with the run's token: got %d, want 0", n)
	}
	for range 3 {
		if got, _ := do(t, mcpRequest(t, s, reg.Token, strings.NewReader(initializeBody))); got != 200 {
			t.Fatalf("initialize with the run's token: got %d, want 200", got)
		}
	}
	if n := run.Connections(); n != 1 {
		t.Errorf("Connected calls after three requests with the run's token: got %d, want 1", n)
	}
}
