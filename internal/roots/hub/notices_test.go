package hub_test

import (
	"context"
	"slices"
	"testing"

	"github.com/segwi/segwi/control"
	"github.com/segwi/segwi/internal/testing/await"
	"github.com/segwi/segwi/internal/testing/claudetest"
	"github.com/segwi/segwi/runs"
)

// A notification that says a run waits for the person's reply goes once they reply; the
// run's next "waits for your reply" is a notification of its own, which goes when the run
// ends.
func TestTheNotificationThatARunWaitsForYourReplyGoesOnceYouReply(t *testing.T) {
	// A Claude Code stand-in that gives a result for each message.
	claude := claudeScript(t,
		`echo '{"type":"system","subtype":"init","session_id":"sess-8","model":"m","permissionMode":"auto"}'`+"\n"+
			"while read line; do\n"+
			`  echo '{"type":"result","subtype":"success","is_error":false,"num_turns":1,"total_cost_usd":0.01,"result":"done"}'`+"\n"+
			"done\n")
	checkout := claudetest.Checkout(t)
	h := newHarness(t, "segwi:\n  claude:\n    path: "+claude+"\n  repositories:\n    - name: web\n      path: "+checkout+"\n", options{})
	ctx := context.Background()
	if err := h.hub.Show(ctx, control.Show{Window: control.ShowHistory}); err != nil {
		t.Fatal(err)
	}
	w := h.windows.window(t, 1)
	id, err := w.client.Start(ctx, runs.Spec{Kind: runs.KindBuild, Checkout: checkout, Prompt: "Look around", KeepOpen: true})
	if err != nil {
		t.Fatal(err)
	}
	const reply = "web · Look around: Claude Code finished its turn and waits for your reply. Reply in the run window, or Finish the run."
	count := func(list []string) int {
		n := 0
		for _, s := range list {
			if s == reply {
				n++
			}
		}
		return n
	}
	await.For(t, within, "the notification that the run waits for your reply", func() bool { return count(h.notes.shown()) == 1 })

	if err := w.client.FollowUp(ctx, id, "and the tests?"); err != nil {
		t.Fatal(err)
	}
	await.For(t, within, "the first notification withdrawn, and a second for the next turn", func() bool {
		return count(h.notes.all()) == 2 && count(h.notes.shown()) == 1
	})
	if err := w.client.Finish(ctx, id); err != nil {
		t.Fatal(err)
	}
	waitEnded(t, h, id)
	await.For(t, within, "the second notification withdrawn once the run ended", func() bool {
		return count(h.notes.shown()) == 0 && slices.Contains(h.notes.all(), "web · Look around: The build run succeeded.")
	})
}
