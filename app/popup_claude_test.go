package app

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"fyne.io/fyne/v2"

	"github.com/segwi/segwi/approvals"
	"github.com/segwi/segwi/control"
	"github.com/segwi/segwi/internal/testing/claudetest"
	"github.com/segwi/segwi/internal/testing/coretest"
	"github.com/segwi/segwi/internal/testing/fakeapi"
	"github.com/segwi/segwi/runs"
)

// capturingDecider hands each request to the test and denies it, so that the run goes on
// without changing its checkout.
type capturingDecider chan approvals.Request

func (d capturingDecider) Decide(ctx context.Context, req approvals.Request) (approvals.Answer, error) {
	select {
	case d <- req:
	case <-ctx.Done():
		return approvals.Answer{}, ctx.Err()
	}
	return approvals.Answer{Message: "seen by the test"}, nil
}

// The Edit popup of a request as the real Claude Code 2.1.328 sends it: a run whose model
// reads hello.txt and edits it, with a permissions.ask rule for Edit in the person's
// Claude Code settings, so that the call comes to segwi. The request reaches the popup as
// it reaches the window process (control.Approval); the popup shows the file relative to
// the checkout, its old line removed and the new ones added.
func TestTheEditPopupOfARealClaudeCodeRunShowsOldAndNewText(t *testing.T) {
	claude := claudetest.Binary(t)
	checkout := claudetest.Checkout(t)
	hello := filepath.Join(checkout, "hello.txt")
	read := fakeapi.ToolUse("Read", fakeapi.Input{"file_path": hello})
	edit := fakeapi.ToolUse("Edit", fakeapi.Input{"file_path": hello,
		"old_string": strings.TrimSuffix(claudetest.CheckoutHello, "\n"), "new_string": "hello, world\nand a second line"})
	srv := fakeapi.New(t, fakeapi.Turns(
		fakeapi.Say(fakeapi.Text("Let me read it first."), read),
		fakeapi.Say(edit),
		fakeapi.Say(fakeapi.Text("The edit was denied.")),
	))
	env := claudetest.Env(t, srv.URL)
	env.WriteSettings(t, claudetest.Settings{Permissions: &claudetest.Permissions{Ask: []string{"Edit"}}})
	asked := make(capturingDecider, 1)
	c, _ := coretest.New(t, fmt.Sprintf("segwi:\n  claude:\n    path: %q\n  runs:\n    stopGrace: 2s\n", claude),
		coretest.Options{Decider: asked, Env: env.Vars()})
	const task = "Say hello in hello.txt"
	r, err := c.Start(runs.Spec{Kind: runs.KindBuild, Checkout: checkout, Prompt: task})
	if err != nil {
		t.Fatal(err)
	}
	var req approvals.Request
	select {
	case req = <-asked:
	case <-time.After(60 * time.Second):
		t.Fatal("no approval request came in 60 s")
	}
	if _, err := r.Wait(context.Background()); err != nil {
		t.Fatal(err)
	}
	t.Logf("Claude Code asked for %s with %s", req.ToolName, req.Input)

	// As the window process gets it, with the checkout's folder put where the golden file
	// expects it (in the input too, so that the path is still read relative to it).
	const shown = "/home/ada/src/sample"
	req.Input = json.RawMessage(strings.ReplaceAll(string(req.Input), checkout, shown))
	req.Run.Checkout = shown
	req.ID, req.Asked, req.Deadline = "e1", popupT0, popupT0.Add(10*time.Minute)
	req = control.ApprovalOf(req, "sample", task).Broker()

	h := newPopupHarness(t)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	p, done := h.decide(ctx, req)
	if got, want := p.view.caption, "Edit hello.txt"; got != want {
		t.Errorf("caption %q, want %q", got, want)
	}
	checkDiff(t, p, []string{"- hello from the test checkout", "+ hello, world", "+ and a second line"})
	p.win.Resize(fyne.NewSize(640, 480))
	assertMarkup(t, "popup_edit_claude.xml", p.win.Canvas())
	cancel()
	decideResult(t, done)
}
