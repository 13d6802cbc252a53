package runs

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/segwi/segwi/approvals"
	"github.com/segwi/segwi/internal/testing/await"
)

// touch creates path, telling fakeclaude to go on.
func touch(t *testing.T, path string) {
	t.Helper()
	if err := os.WriteFile(path, nil, 0o600); err != nil {
		t.Fatal(err)
	}
}

// The approvals server asks a run whether its Claude Code is making the tool call a
// request names: yes from the line announcing the call until its result, waiting for a
// call whose line has not been read yet.
func TestRunKnowsTheToolCallsClaudeCodeIsMaking(t *testing.T) {
	fa := &fakeApprovals{t: t, runs: map[string]approvals.Run{}}
	m, recDir := testManager(t, func(c *Config) { c.Approvals = fa })
	step := filepath.Join(t.TempDir(), "step")
	r := start(t, m, Spec{Kind: KindBuild, Prompt: "fake:toolcall=" + step})
	waitStart(t, recDir, r.ID())
	ar := fa.run(r.ID())

	running := func(id string, within time.Duration) bool {
		ctx, cancel := context.WithTimeout(context.Background(), within)
		defer cancel()
		return ar.ToolCallRunning(ctx, id)
	}
	if running("toolu_7", 50*time.Millisecond) {
		t.Fatal("toolu_7 is running before Claude Code announced it")
	}
	// A request that arrives before its call's line waits for it.
	answer := make(chan bool, 1)
	go func() { answer <- running("toolu_7", 10*time.Second) }()
	touch(t, step+".call")
	select {
	case got := <-answer:
		if !got {
			t.Error("toolu_7 once announced: got not running, want running")
		}
	case <-time.After(10 * time.Second):
		t.Fatal("ToolCallRunning did not return within 10s of the call's line")
	}
	if running("toolu_other", 50*time.Millisecond) {
		t.Error("a tool call never announced: got running, want not")
	}
	touch(t, step+".result")
	await.For(t, 10*time.Second, "toolu_7 to have its result", func() bool { return !running("toolu_7", time.Millisecond) })
	if info := wait(t, r); info.State != StateSucceeded {
		t.Errorf("run: got %s (%s), want succeeded", info.State, info.Reason)
	}
}

// When Claude Code hangs up on an approval request, the approvals server asks the run
// whether it is ending: a stop makes Claude Code abort the call, and is no timeout of its.
func TestRunSaysWhenItIsEnding(t *testing.T) {
	fa := &fakeApprovals{t: t, runs: map[string]approvals.Run{}}
	m, recDir := testManager(t, func(c *Config) { c.Approvals = fa })
	step := filepath.Join(t.TempDir(), "step")
	r := start(t, m, Spec{Kind: KindBuild, Prompt: "fake:toolcall=" + step})
	waitStart(t, recDir, r.ID())
	ar := fa.run(r.ID())
	if ar.Ending() {
		t.Error("a running run says it is ending")
	}
	r.Stop()
	if !ar.Ending() {
		t.Error("a run asked to stop says it is not ending")
	}
	if info := wait(t, r); info.State != StateStopped {
		t.Errorf("run: got %s (%s), want stopped", info.State, info.Reason)
	}
	if !ar.Ending() {
		t.Error("a run that ended says it is not ending")
	}
}

// The run's mcp.json holds its token: it goes once Claude Code has connected, and at the
// latest when the run ends.
func TestRunsMCPConfigGoesOnceClaudeCodeConnects(t *testing.T) {
	fa := &fakeApprovals{t: t, runs: map[string]approvals.Run{}}
	m, recDir := testManager(t, func(c *Config) { c.Approvals = fa })
	gone := func(r *Run) bool {
		_, err := os.Stat(filepath.Join(r.Dir(), mcpFile))
		return errors.Is(err, fs.ErrNotExist)
	}

	t.Run("it goes once Claude Code connects", func(t *testing.T) {
		hold, open := release(t)
		r := start(t, m, Spec{Kind: KindAsk, Prompt: "fake:hold=" + hold})
		waitStart(t, recDir, r.ID())
		if gone(r) {
			t.Fatal("mcp.json is gone before Claude Code connected")
		}
		fa.run(r.ID()).Connected()
		if !gone(r) {
			t.Error("mcp.json is still there once Claude Code connected")
		}
		fa.run(r.ID()).Connected() // a second time does nothing
		open()
		if info := wait(t, r); info.State != StateSucceeded {
			t.Errorf("run: got %s (%s), want succeeded", info.State, info.Reason)
		}
		for _, e := range events(t, m, r.ID()) {
			if e.Subtype == "approvals-config" {
				t.Errorf("event %+v, want none about mcp.json", e)
			}
		}
	})
	t.Run("it goes when a run whose Claude Code never connected ends", func(t *testing.T) {
		r := start(t, m, Spec{Kind: KindAsk, Prompt: "fake:success"})
		wait(t, r)
		if !gone(r) {
			t.Error("mcp.json is still there after a run whose Claude Code never connected")
		}
	})
}
