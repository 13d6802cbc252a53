package app

import (
	"strings"
	"testing"
	"time"

	"fyne.io/fyne/v2/test"

	"github.com/segwi/segwi/internal/testing/await"
	"github.com/segwi/segwi/runs"
)

// A run that waits at its budget says how far it went, offers to raise each of its bounds
// by as much again, and Raise and go on raises it by what the fields say; Stop stops it.
// The bar goes once the run goes on.
func TestARunAtItsBudgetOffersRaiseAndStop(t *testing.T) {
	h := newRunHarness(t, 64)
	h.run.allowStop = true
	h.run.setInfo(func(i *runs.Info) {
		i.State, i.Waiting, i.Reason = runs.StateWaiting, runs.WaitBudget, "budget reached: $2.04 of $2.00"
		i.Budget = &runs.Budget{CostUSD: 2, Turns: 10}
	})
	h.sendAndFlush(ev(runs.EventBudget, func(e *runs.Event) { e.Subtype = "reached"; e.Text = "budget reached: $2.04 of $2.00" }))

	var shown, tokensShown bool
	var head, cost, turns string
	onUIWait(func() {
		b := h.w.budget
		shown, head, tokensShown = b.shown && b.content.Visible(), b.head.Text, b.tokensRow.Visible()
		cost, turns = b.cost.Text, b.turns.Text
	})
	if !shown || !strings.Contains(head, "budget reached: $2.04 of $2.00") {
		t.Fatalf("the budget bar shows %v saying %q; want it shown with how far the run went", shown, head)
	}
	if cost != "2.00" || turns != "10" || tokensShown {
		t.Errorf("the raise offered is $%s and %s turns (tokens shown: %v); want the budget's own bounds again, and no token field", cost, turns, tokensShown)
	}

	onUIWait(func() {
		h.w.budget.cost.SetText("1.50")
		h.w.budget.turns.SetText("")
		test.Tap(h.w.budget.raise)
	})
	await.For(t, 10*time.Second, "the raise to be answered", func() bool { return h.w.settled.Load() == 1 })
	h.run.mu.Lock()
	raises := append([]runs.Budget(nil), h.run.raises...)
	h.run.mu.Unlock()
	if len(raises) != 1 || raises[0] != (runs.Budget{CostUSD: 1.5}) {
		t.Errorf("raised by %+v, want $1.50 once", raises)
	}
	var note string
	onUIWait(func() { note = h.w.note.Text })
	if note != "Budget raised by $1.50: the run goes on." {
		t.Errorf("the note says %q after the raise", note)
	}

	// A raise the fields do not say is not sent.
	onUIWait(func() {
		h.w.budget.cost.SetText("a lot")
		test.Tap(h.w.budget.raise)
		note = h.w.note.Text
	})
	if !strings.HasPrefix(note, `Not raised: "a lot" is not a cost`) {
		t.Errorf("the note says %q for a raise of \"a lot\"", note)
	}
	onUIWait(func() { test.Tap(h.w.budget.stop) })
	if h.run.stopCount() != 1 {
		t.Errorf("Stop in the budget bar stopped the run %d times, want once", h.run.stopCount())
	}

	// The run goes on: the bar goes.
	h.run.setInfo(func(i *runs.Info) { i.State, i.Waiting, i.Reason = runs.StateRunning, "", "" })
	h.sendAndFlush(ev(runs.EventBudget, func(e *runs.Event) { e.Subtype = "raised"; e.Text = "budget raised" }))
	onUIWait(func() { shown = h.w.budget.content.Visible() })
	if shown {
		t.Error("the budget bar still shows once the run goes on")
	}
}
