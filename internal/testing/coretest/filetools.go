package coretest

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/segwi/segwi/approvals"
	"github.com/segwi/segwi/internal/testing/claudetest"
	"github.com/segwi/segwi/internal/testing/fakeapi"
	"github.com/segwi/segwi/runs"
)

// FileTools is what FileToolRequests saw of a real Claude Code run.
type FileTools struct {
	// Checkout is the run's checkout, and Task its task.
	Checkout, Task string
	// Edit and Write are the approval requests of the run's Edit of hello.txt and its
	// Write of a new file, notes/plan.md, as they reached segwi's Decider.
	Edit, Write approvals.Request
	// MultiEdit is the tool result Claude Code gave the model for its MultiEdit call:
	// Claude Code 2.1.328 has no MultiEdit tool, and answers the call without asking.
	MultiEdit fakeapi.ToolResult
	// Asked are the tools of every request that reached the Decider, in order.
	Asked []string
}

// fileToolsTask is the task of FileToolRequests's run.
const fileToolsTask = "Say hello in hello.txt and write a plan"

// FileToolRequests runs the real Claude Code (pinned; the test skips without it, or fails
// under SEGWI_TEST_STRICT=1) through segwi's core in a fresh checkout, with a model that
// reads hello.txt and asks to Edit it, to Write a new file and to MultiEdit hello.txt. The
// person's Claude Code settings hold a permissions.ask rule for each of those tools, so
// that auto mode asks segwi's approval tool. Each request is denied, so the checkout is
// left as it was. It takes a few seconds.
func FileToolRequests(t testing.TB) FileTools {
	t.Helper()
	claude := claudetest.Binary(t)
	checkout := claudetest.Checkout(t)
	hello := filepath.Join(checkout, "hello.txt")
	read := fakeapi.ToolUse("Read", fakeapi.Input{"file_path": hello})
	edit := fakeapi.ToolUse("Edit", fakeapi.Input{"file_path": hello,
		"old_string": strings.TrimSuffix(claudetest.CheckoutHello, "\n"), "new_string": "hello, world\nand a second line"})
	write := fakeapi.ToolUse("Write", fakeapi.Input{"file_path": filepath.Join(checkout, "notes", "plan.md"),
		"content": "# Plan\n\n1. Say hello.\n2. Ship it.\n"})
	multi := fakeapi.ToolUse("MultiEdit", fakeapi.Input{"file_path": hello, "edits": []fakeapi.Input{
		{"old_string": "hello", "new_string": "hi"}, {"old_string": "checkout", "new_string": "repository", "replace_all": true}}})
	srv := fakeapi.New(t, fakeapi.Turns(
		fakeapi.Say(fakeapi.Text("Let me read it first."), read),
		fakeapi.Say(edit),
		fakeapi.Say(write),
		fakeapi.Say(multi),
		fakeapi.Say(fakeapi.Text("Each change was denied.")),
	))
	env := claudetest.Env(t, srv.URL)
	env.WriteSettings(t, claudetest.Settings{Permissions: &claudetest.Permissions{Ask: []string{"Edit", "Write", "MultiEdit"}}})

	asked := make(capturing, 8)
	c, _ := New(t, fmt.Sprintf("segwi:\n  claude:\n    path: %q\n  runs:\n    stopGrace: 2s\n", claude),
		Options{Decider: asked, Env: env.Vars()})
	r, err := c.Start(context.Background(), runs.Spec{Kind: runs.KindBuild, Checkout: checkout, Prompt: fileToolsTask})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	if _, err := r.Wait(ctx); err != nil {
		t.Fatalf("waiting for the run: %v", err)
	}
	close(asked)
	got := FileTools{Checkout: checkout, Task: fileToolsTask}
	for req := range asked {
		t.Logf("Claude Code asked for %s with %s", req.ToolName, req.Input)
		got.Asked = append(got.Asked, req.ToolName)
		switch req.ToolName {
		case "Edit":
			got.Edit = req
		case "Write":
			got.Write = req
		}
	}
	if got.Edit.ID == "" || got.Write.ID == "" {
		t.Fatalf("Claude Code asked segwi about %v, want an Edit and a Write", got.Asked)
	}
	res, ok := srv.Last().ToolResult(multi.ID)
	if !ok {
		t.Fatalf("Claude Code gave the model no result for its MultiEdit call")
	}
	got.MultiEdit = res
	if st := claudetest.Status(t, checkout); st != "" {
		t.Errorf("the checkout changed, though every request was denied:\n%s", st)
	}
	return got
}

// capturing is a Decider that keeps each request and denies it.
type capturing chan approvals.Request

func (d capturing) Decide(ctx context.Context, req approvals.Request) (approvals.Answer, error) {
	select {
	case d <- req:
	case <-ctx.Done():
		return approvals.Answer{}, ctx.Err()
	}
	return approvals.Answer{Message: "seen by the test"}, nil
}
