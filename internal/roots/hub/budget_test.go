package hub_test

import (
	"context"
	"strings"
	"testing"

	"github.com/segwi/segwi/control"
	"github.com/segwi/segwi/internal/testing/await"
	"github.com/segwi/segwi/internal/testing/claudetest"
	"github.com/segwi/segwi/runs"
)

// The approval page raises a run's budget through the tray as the run window does, with
// the role the page's connection has: only while the run waits at its budget, and once (a
// run raised meanwhile refuses the page's raise), recorded as the device's; the run window
// may raise a going run's budget at any time.
func TestThePageRaisesABudgetOnlyWhileItsRunWaitsAtIt(t *testing.T) {
	claude := claudeScript(t, "read line\n"+
		`echo '{"type":"system","subtype":"init","session_id":"s","model":"m","permissionMode":"auto"}'`+"\n"+
		`echo '{"type":"result","subtype":"success","is_error":false,"num_turns":1,"total_cost_usd":0.01,"result":"done"}'`+"\n"+
		"while read line; do :; done\n") // as Claude Code: it exits when its input closes
	checkout := claudetest.Checkout(t)
	h := newHarness(t, "segwi:\n  claude:\n    path: "+claude+"\n  runs:\n    budget:\n      turns: 1\n", options{})
	ctx := context.Background()
	r, err := h.core.Start(ctx, runs.Spec{Kind: runs.KindBuild, Checkout: checkout, Prompt: "do it", KeepOpen: true})
	if err != nil {
		t.Fatal(err)
	}
	defer r.CloseInput()
	await.For(t, within, "the run to wait at its budget", func() bool { return r.Info().WaitsAtBudget() })

	const who = "phone (ada@example.com)"
	phone := connect(t, h, control.Grant{Role: control.RoleRemote, Who: who})
	if err := phone.client.RaiseBudget(ctx, r.ID(), runs.Budget{Turns: 1}); err != nil {
		t.Fatalf("the page's raise of a run at its budget: %v", err)
	}
	await.For(t, within, "the run to go on, waiting for a reply", func() bool { return r.Info().Waiting == runs.WaitReply })
	err = phone.client.RaiseBudget(ctx, r.ID(), runs.Budget{Turns: 1})
	if err == nil || !strings.Contains(err.Error(), "does not wait at its budget") {
		t.Errorf("the page's raise of a run that went on: %v, want it refused", err)
	}
	w := connect(t, h, control.Grant{Role: control.RoleWindow, Who: control.ByThisDesktop})
	if err := w.client.RaiseBudget(ctx, r.ID(), runs.Budget{Turns: 3}); err != nil {
		t.Errorf("the run window's raise of a going run: %v", err)
	}
	info := r.Info()
	if len(info.BudgetRaises) != 2 || info.BudgetRaises[0].Who != "you from "+who || info.BudgetRaises[1].Who != "you, in the run window" ||
		info.Budget == nil || info.Budget.Turns != 5 {
		t.Errorf("the record holds the budget %+v raised %+v, want 5 turns, raised from the phone, then in the run window", info.Budget, info.BudgetRaises)
	}
}
