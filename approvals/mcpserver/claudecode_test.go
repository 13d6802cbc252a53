package mcpserver

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/segwi/segwi/approvals"
	"github.com/segwi/segwi/internal/testing/approvaltest"
	"github.com/segwi/segwi/internal/testing/claudetest"
	"github.com/segwi/segwi/internal/testing/fakeapi"
)

// The real Claude Code, wired to the approval tool as segwi wires it, connects with two
// requests, server/discover and tools/list, and holds nothing open: segwi says its tool
// list never changes (TestTheToolListIsSaidNeverToChange), and while it said it might,
// Claude Code opened a subscriptions/listen stream at each run's start and held it for the
// whole run, a request and a goroutine of segwi's for nothing. A loopback proxy between
// the two records what Claude Code asks.
func TestClaudeCodeHoldsNoStreamOpenToTheApprovalTool(t *testing.T) {
	claudetest.Binary(t) // skips, or fails under SEGWI_TEST_STRICT, without Claude Code
	model := fakeapi.New(t, fakeapi.Turns(fakeapi.Say(fakeapi.Text("Nothing to do."))))
	env := claudetest.Env(t, model.URL)

	s := newTestServer(t, Config{Decider: approvaltest.Nobody(t)})
	reg, _ := register(t, s, "r1")
	target, err := url.Parse(reg.URL)
	if err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	var asked []string // "POST server/discover", "GET" (a stream)
	proxy := &httputil.ReverseProxy{Rewrite: func(r *httputil.ProxyRequest) {
		r.Out.URL.Scheme, r.Out.URL.Host, r.Out.Host = target.Scheme, target.Host, ""
	}}
	front := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		what := r.Method
		if r.Method == http.MethodPost {
			body, _ := io.ReadAll(r.Body)
			r.Body = io.NopCloser(bytes.NewReader(body))
			var msg struct{ Method string }
			json.Unmarshal(body, &msg)
			what += " " + msg.Method
		}
		mu.Lock()
		asked = append(asked, what)
		mu.Unlock()
		proxy.ServeHTTP(w, r)
	}))
	t.Cleanup(front.Close)
	reg.URL = front.URL + target.Path
	config := filepath.Join(t.TempDir(), "mcp.json")
	if err := os.WriteFile(config, reg.MCPConfig(), 0o600); err != nil {
		t.Fatal(err)
	}

	res := claudetest.Run(t, claudetest.Options{
		Env: env, Dir: claudetest.Checkout(t), Prompts: []string{"Do nothing."}, Timeout: 90 * time.Second,
		Args: []string{"--permission-prompt-tool", approvals.PromptTool, "--mcp-config", config},
	})
	if final := res.Final(t); res.ExitCode != 0 || final.Subtype != "success" {
		t.Fatalf("claude exited %d with result %q:\n%s", res.ExitCode, final.Subtype, res.Stderr)
	}

	mu.Lock()
	defer mu.Unlock()
	if !slices.Contains(asked, "POST tools/list") {
		t.Fatalf("Claude Code never listed the approval tool; it asked %q", asked)
	}
	for _, a := range asked {
		if a == "GET" || a == "POST subscriptions/listen" {
			t.Errorf("Claude Code opened a stream to the approval tool (%s); all it asked: %q", a, asked)
		}
	}
	t.Logf("Claude Code asked the approval tool: %q", asked)
}
