package app

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"fyne.io/fyne/v2"

	"github.com/segwi/segwi/approvals"
	"github.com/segwi/segwi/control"
	"github.com/segwi/segwi/internal/testing/coretest"
)

// The popups of requests as the real Claude Code 2.1.328 sends them: a run whose model
// reads hello.txt, asks to edit it, to write a new file and to MultiEdit it, with a
// permissions.ask rule for each in the person's Claude Code settings, so that each call
// comes to segwi (coretest.FileToolRequests). Each request reaches the popup as it reaches
// the window process (control.Approval); the popup shows the file relative to the
// checkout, the Edit's old line removed and its new ones added, the Write's lines added.
// The approval page shows the same requests alike (remote's TestThePageShowsARealClaudeCodeRunsFileChanges).
func TestThePopupsOfARealClaudeCodeRunShowItsFileChanges(t *testing.T) {
	run := coretest.FileToolRequests(t)
	if !strings.Contains(run.MultiEdit.Text, "No such tool available") || strings.Contains(strings.Join(run.Asked, " "), "MultiEdit") {
		t.Errorf("Claude Code answered the MultiEdit call %q and asked segwi about %v; want it refused as no such tool, without asking",
			run.MultiEdit.Text, run.Asked)
	}
	for _, tt := range []struct {
		req     approvals.Request
		golden  string
		caption string
		diff    []string
	}{
		{run.Edit, "popup_edit_claude.xml", "Edit hello.txt", []string{"- hello from the test checkout", "+ hello, world", "+ and a second line"}},
		{run.Write, "popup_write_claude.xml", "Write notes/plan.md: a new file", []string{"+ # Plan", "+ ", "+ 1. Say hello.", "+ 2. Ship it."}},
	} {
		t.Run(tt.req.ToolName, func(t *testing.T) {
			// As the window process gets it, with the checkout's folder put where the golden
			// file expects it (in the input too, so that the path is still read relative to it).
			const shown = "/home/ada/src/sample"
			req := tt.req
			req.Input = json.RawMessage(strings.ReplaceAll(string(req.Input), run.Checkout, shown))
			req.Run.Checkout = shown
			req.ID, req.Asked, req.Deadline = "e1", popupT0, popupT0.Add(10*time.Minute)
			req = control.ApprovalOf(req, "sample", run.Task).Broker()

			h := newPopupHarness(t)
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			p, done := h.decide(ctx, req)
			if got := p.view.Caption; got != tt.caption {
				t.Errorf("caption %q, want %q", got, tt.caption)
			}
			checkDiff(t, p, tt.diff)
			p.win.Resize(fyne.NewSize(640, 480))
			assertMarkup(t, tt.golden, p.win.Canvas())
			cancel()
			decideResult(t, done)
		})
	}
}
