package hub_test

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/segwi/segwi/control"
	"github.com/segwi/segwi/internal/testing/await"
	"github.com/segwi/segwi/internal/testing/claudetest"
	"github.com/segwi/segwi/runs"
	"github.com/segwi/segwi/runs/changes"
	"github.com/segwi/segwi/tray"
)

// A window's side of a run's end: the tray notifies that the run waits for the person's
// reply, then that it ended; the window commits the run's changes as the person, is told
// a pull request needs a push first, continues the run, and an ask run is never committed.
func TestAWindowShipsAndContinuesARunThroughTheTray(t *testing.T) {
	// A Claude Code stand-in: it says its session, writes a file for its task, gives its
	// result, then waits for the next message until its input closes.
	claude := claudeScript(t, "read line\n"+
		`echo '{"type":"system","subtype":"init","session_id":"sess-7","model":"m","permissionMode":"auto"}'`+"\n"+
		`echo 'made by the run' > made.txt`+"\n"+
		`echo '{"type":"result","subtype":"success","is_error":false,"num_turns":1,"total_cost_usd":0.01,"result":"done"}'`+"\n"+
		"while read line; do :; done\n")
	checkout := claudetest.Checkout(t)
	h := newHarness(t, "segwi:\n  claude:\n    path: "+claude+"\n  repositories:\n    - name: web\n      path: "+checkout+"\n", options{})
	ctx := context.Background()
	if err := h.hub.Show(ctx, control.Show{Window: control.ShowHistory}); err != nil {
		t.Fatal(err)
	}
	w := h.windows.window(t, 1)

	id, err := w.client.Start(ctx, runs.Spec{Kind: runs.KindBuild, Checkout: checkout, Prompt: "Make made.txt", KeepOpen: true})
	if err != nil {
		t.Fatalf("Start: %v", err)
	}
	replyNote := "web · Make made.txt: Claude Code finished its turn and waits for your reply. Reply in the run window, or Finish the run."
	await.For(t, within, "the tray to say the run waits for your reply", func() bool {
		s := h.hub.Snapshot()
		return len(s.Runs) == 1 && s.Runs[0].Waiting == runs.WaitReply && slices.Contains(h.notes.shown(), replyNote)
	})
	if menu := strings.Join(func() (l []string) {
		for _, it := range tray.Menu(h.hub.Snapshot()) {
			l = append(l, it.Label)
		}
		return
	}(), "\n"); !strings.Contains(menu, "web · build · "+tray.WaitingReply) {
		t.Errorf("the tray menu does not say the run waits for your reply:\n%s", menu)
	}
	if _, err := w.client.Commit(ctx, control.Commit{Run: id}); err == nil || !strings.Contains(err.Error(), "still going") {
		t.Errorf("Commit of a live run = %v, want a refusal", err)
	}
	if err := w.client.Finish(ctx, id); err != nil {
		t.Fatal(err)
	}
	await.For(t, within, "the notification that the run succeeded, the one that it waited for your reply withdrawn", func() bool {
		return slices.Contains(h.notes.all(), "web · Make made.txt: The build run succeeded.") && !slices.Contains(h.notes.shown(), replyNote)
	})

	c, err := w.client.Commit(ctx, control.Commit{Run: id})
	if err != nil {
		t.Fatalf("Commit: %v", err)
	}
	if _, err := w.client.Commit(ctx, control.Commit{Run: id}); !errors.Is(err, changes.ErrNothingToCommit) {
		t.Errorf("a second Commit = %v, want nothing to commit", err)
	}
	if c.Subject != "Make made.txt" || !slices.Equal(c.Files, []string{"made.txt"}) || c.Author != "segwi test <test@segwi.invalid>" {
		t.Errorf("committed %+v, want made.txt as the person, titled after the task", c)
	}
	if head := claudetest.Git(t, checkout, "rev-parse", "HEAD"); head != c.Commit {
		t.Errorf("HEAD is %s, want the commit %s", head, c.Commit)
	}
	if _, err := w.client.OpenPullRequest(ctx, control.OpenPullRequest{Run: id}); err == nil || !strings.Contains(err.Error(), "never pushed; push it first") {
		t.Errorf("OpenPullRequest before a push = %v, want it to say push first", err)
	}

	next, err := w.client.Continue(ctx, id, "and now the tests", false)
	if err != nil {
		t.Fatalf("Continue: %v", err)
	}
	info := waitEnded(t, h, next)
	if info.ContinuedFrom != id || !slices.Contains(info.Argv, "sess-7") {
		t.Errorf("the continuation: from %q, argv %q; want from %s resuming sess-7", info.ContinuedFrom, info.Argv, id)
	}

	ask, err := w.client.Start(ctx, runs.Spec{Kind: runs.KindAsk, Checkout: checkout, Prompt: "where?"})
	if err != nil {
		t.Fatal(err)
	}
	waitEnded(t, h, ask)
	if _, err := w.client.Commit(ctx, control.Commit{Run: ask}); !errors.Is(err, runs.ErrAskRun) {
		t.Errorf("Commit of an ask run = %v, want refused", err)
	}
	if err := w.client.CheckPush(ctx, ask); err == nil || !strings.Contains(err.Error(), "ask run") {
		t.Errorf("CheckPush of an ask run = %v, want refused", err)
	}
	if _, err := w.client.Push(ctx, ask); err == nil || !strings.Contains(err.Error(), "ask run") {
		t.Errorf("Push of an ask run = %v, want refused", err)
	}
	var replyErr *control.ReplyError
	if _, err := w.client.Continue(ctx, "20250101-000000-000000", "go on", false); !errors.As(err, &replyErr) {
		t.Errorf("Continue of an unknown run = %v, want the tray's error", err)
	}
}

// waitEnded waits for the run id to end and returns its record.
func waitEnded(t *testing.T, h *harness, id string) runs.Info {
	t.Helper()
	var info runs.Info
	await.For(t, within, "run "+id+" to end", func() bool {
		var err error
		info, err = runs.Load(h.core.StateDir(), id)
		return err == nil && info.State.Final() && h.core.Get(id) == nil
	})
	return info
}
