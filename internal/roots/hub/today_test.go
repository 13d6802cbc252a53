package hub_test

import (
	"context"
	"testing"

	"github.com/segwi/segwi/control"
	"github.com/segwi/segwi/internal/testing/await"
	"github.com/segwi/segwi/internal/testing/claudetest"
	"github.com/segwi/segwi/runs"
	"github.com/segwi/segwi/tray"
)

// The tray's tooltip says what the runs created today used once a run's turn reports its
// usage, counts a run going once (by what it used so far, not its record besides), keeps
// the figure once the run ended, and says nothing of today before any run.
func TestTheTooltipSaysTodaysSpendAfterARunsTurn(t *testing.T) {
	// A Claude Code stand-in whose turns cost $0.25, then $0.50 more: its results carry
	// the session's usage so far, per model, as Claude Code's do.
	claude := claudeScript(t,
		`echo '{"type":"system","subtype":"init","session_id":"sess-9","model":"m","permissionMode":"auto"}'`+"\n"+
			"cost=25\n"+
			"while read line; do\n"+
			`  echo '{"type":"result","subtype":"success","is_error":false,"num_turns":1,"total_cost_usd":0.'$cost',"result":"done","modelUsage":{"m":{"inputTokens":100,"outputTokens":10,"costUSD":0.'$cost'}}}'`+"\n"+
			"  cost=75\n"+
			"done\n")
	checkout, second := claudetest.Checkout(t), claudetest.Checkout(t)
	h := newHarness(t, "segwi:\n  claude:\n    path: "+claude+"\n  repositories:\n    - name: web\n      path: "+checkout+
		"\n    - name: api\n      path: "+second+"\n", options{})
	ctx := context.Background()
	if err := h.hub.Show(ctx, control.Show{Window: control.ShowHistory}); err != nil {
		t.Fatal(err)
	}
	tip := func() string { return tray.Tooltip(h.hub.Snapshot()) }
	if got := tip(); got != "segwi: no runs going" {
		t.Errorf("before any run the tooltip is %q, want no word of today", got)
	}

	w := h.windows.window(t, 1)
	id, err := w.client.Start(ctx, runs.Spec{Kind: runs.KindBuild, Checkout: checkout, Prompt: "Look around", KeepOpen: true})
	if err != nil {
		t.Fatal(err)
	}
	const going = "segwi: 1 run going, 1 waiting for your reply\ntoday: "
	await.For(t, within, "the tooltip to say the first turn's cost", func() bool { return tip() == going+"$0.25 over 1 run" })

	// A second run of one turn ends while the first goes on: today's runs are read again
	// from their records, the first's among them, which must not count beside its live
	// figures.
	other, err := w.client.Start(ctx, runs.Spec{Kind: runs.KindBuild, Checkout: second, Prompt: "Once"})
	if err != nil {
		t.Fatal(err)
	}
	waitEnded(t, h, other)
	await.For(t, within, "the tooltip to count the ended run", func() bool { return tip() == going+"$0.50 over 2 runs" })
	if err := w.client.FollowUp(ctx, id, "and the tests?"); err != nil {
		t.Fatal(err)
	}
	await.For(t, within, "the tooltip to say both turns' cost of the run going, counted once", func() bool {
		return tip() == going+"$1.00 over 2 runs"
	})
	if err := w.client.Finish(ctx, id); err != nil {
		t.Fatal(err)
	}
	waitEnded(t, h, id)
	await.For(t, within, "the tooltip to keep the ended runs' cost, from their records", func() bool {
		return tip() == "segwi: no runs going\ntoday: $1.00 over 2 runs"
	})
}
