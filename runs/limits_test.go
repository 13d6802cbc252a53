package runs

import (
	"os"
	"path/filepath"
	"strings"
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

func TestTimeoutsEndARunAsTimedOut(t *testing.T) {
	tests := []struct {
		name       string
		prompt     string
		idle, max  time.Duration
		wantReason string
	}{
		{"a silent run hits the idle timeout", "fake:silent", 300 * time.Millisecond, time.Hour, "runs.idleTimeout"},
		{"a chatty run hits the maximum duration", "fake:chatty", time.Hour, 500 * time.Millisecond, "runs.maxDuration"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m, _ := testManager(t, func(c *Config) { c.IdleTimeout, c.MaxDuration = tt.idle, tt.max })
			began := time.Now()
			info := wait(t, start(t, m, Spec{Prompt: tt.prompt}))
			if info.State != StateTimedOut || !strings.Contains(info.Reason, tt.wantReason) {
				t.Errorf("got %s (%s), want timed-out naming %s", info.State, info.Reason, tt.wantReason)
			}
			if took := time.Since(began); took < min(tt.idle, tt.max) {
				t.Errorf("ended after %s, before the limit", took)
			}
		})
	}
}

func TestAKeptOpenRunEndsNormallyWhenNobodyFollowsUp(t *testing.T) {
	m, _ := testManager(t, func(c *Config) { c.IdleTimeout = 300 * time.Millisecond })
	info := wait(t, start(t, m, Spec{Prompt: "fake:success", KeepOpen: true}))
	if info.State != StateSucceeded {
		t.Errorf("got %s (%s), want succeeded once the idle input was closed", info.State, info.Reason)
	}
}
