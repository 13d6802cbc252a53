package runs

import (
	"os"
	"path/filepath"
	"testing"
	"time"
)

// A Claude Code that gave its result but does not exit once its input is closed (a hung
// MCP server, a background shell it waits for) must not hold its slot and its checkout
// until maxDuration: a stop grace after the idle timeout, it is stopped.
func TestAClaudeThatHangsAfterItsLastResultIsStopped(t *testing.T) {
	script := filepath.Join(t.TempDir(), "claude")
	body := "#!/bin/sh\nread line\necho '{\"type\":\"result\",\"subtype\":\"success\",\"is_error\":false,\"num_turns\":1,\"result\":\"ok\"}'\nexec sleep 3600\n"
	if err := os.WriteFile(script, []byte(body), 0o755); err != nil {
		t.Fatal(err)
	}
	m, _ := testManager(t, func(c *Config) {
		c.ClaudePath = script
		c.IdleTimeout = 200 * time.Millisecond
		c.MaxDuration = time.Hour
	})
	r := start(t, m, Spec{Prompt: "hello"})
	select {
	case <-r.Done():
		if got := r.State(); got != StateTimedOut {
			t.Errorf("the run ended %s, want %s", got, StateTimedOut)
		}
	case <-time.After(10 * time.Second):
		t.Errorf("run is still %s 10 s after its last output with idleTimeout 200ms", r.State())
	}
}
