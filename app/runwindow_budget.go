package app

import (
	"fmt"
	"strings"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/widget"
	"github.com/segwi/segwi/runs/record"
)

// Words of the budget bar.
const (
	budgetHead     = "⚠ %s. No further turn starts until you raise the budget."
	budgetRaiseBy  = "Raise by"
	budgetRaiseBtn = "Raise and go on"
)

// budgetBar shows, while the run waits at its budget (record.WaitBudget), how far it went,
// what to raise each of its bounds by (the bound again, to start with), Raise and go on,
// and Stop. Touched on Fyne's goroutine only.
type budgetBar struct {
	content             *fyne.Container
	head                *widget.Label
	cost, tokens, turns *widget.Entry
	costRow, tokensRow  *fyne.Container
	turnsRow            *fyne.Container
	raise, stop         *widget.Button
	shown               bool
	raising             bool
}

func newBudgetBar(w *runWindow) *budgetBar {
	b := &budgetBar{head: widget.NewLabelWithStyle("", fyne.TextAlignLeading, fyne.TextStyle{Bold: true})}
	b.head.Wrapping = fyne.TextWrapWord
	b.cost, b.tokens, b.turns = widget.NewEntry(), widget.NewEntry(), widget.NewEntry()
	b.costRow = container.NewHBox(widget.NewLabel("$"), container.NewGridWrap(fyne.NewSize(90, b.cost.MinSize().Height), b.cost))
	b.tokensRow = container.NewHBox(container.NewGridWrap(fyne.NewSize(110, b.tokens.MinSize().Height), b.tokens), widget.NewLabel("tokens"))
	b.turnsRow = container.NewHBox(container.NewGridWrap(fyne.NewSize(60, b.turns.MinSize().Height), b.turns), widget.NewLabel("turns"))
	b.raise = widget.NewButton(budgetRaiseBtn, w.raiseBudget)
	b.raise.Importance = widget.HighImportance
	b.stop = widget.NewButton("Stop", w.pressStop)
	b.stop.Importance = widget.DangerImportance
	row := container.NewHBox(widget.NewLabel(budgetRaiseBy), b.costRow, b.tokensRow, b.turnsRow, b.raise, b.stop)
	b.content = container.NewVBox(b.head, row)
	b.content.Hide()
	return b
}

// showBudget shows the budget bar while the run waits at its budget, its raise filled in
// with each bound of the run's budget again, or hides it. On Fyne's goroutine.
func (w *runWindow) showBudget(on bool) {
	b := w.budget
	if b == nil || on == b.shown && (!on || b.head.Text == fmt.Sprintf(budgetHead, w.info.Reason)) {
		return
	}
	b.shown = on
	if !on {
		b.content.Hide()
		return
	}
	b.head.SetText(fmt.Sprintf(budgetHead, w.info.Reason))
	budget := record.Budget{}
	if w.info.Budget != nil {
		budget = *w.info.Budget
	}
	fill := func(row *fyne.Container, e *widget.Entry, on bool, v string) {
		row.Hidden = !on
		if on && e.Text == "" {
			e.SetText(v)
		}
	}
	fill(b.costRow, b.cost, budget.CostUSD > 0, strings.TrimPrefix(record.CostText(budget.CostUSD), "$"))
	fill(b.tokensRow, b.tokens, budget.Tokens > 0, fmt.Sprint(budget.Tokens))
	fill(b.turnsRow, b.turns, budget.Turns > 0, fmt.Sprint(budget.Turns))
	b.content.Show()
	b.content.Refresh()
}

// raiseBudget raises the run's budget by what the bar says, off Fyne's goroutine (the
// tray carries it out); the note says how it went.
func (w *runWindow) raiseBudget() {
	b := w.budget
	if w.run == nil || w.ended || b == nil || b.raising {
		return
	}
	by, err := b.raiseBy()
	if err != nil {
		w.note.SetText("Not raised: " + err.Error())
		return
	}
	b.raising = true
	b.raise.Disable()
	w.note.SetText("Raising the budget…")
	run := w.run
	go func() {
		err := run.RaiseBudget(by, "you, in the run window")
		onUI(func() {
			defer w.settled.Add(1)
			b.raising = false
			b.raise.Enable()
			if err != nil {
				w.note.SetText("Not raised: " + err.Error())
				return
			}
			w.note.SetText("Budget raised by " + by.String() + ": the run goes on.")
			b.cost.SetText("")
			b.tokens.SetText("")
			b.turns.SetText("")
		})
	}()
}

// raiseBy reads the raise the bar's shown fields say; an empty one raises nothing.
func (b *budgetBar) raiseBy() (record.Budget, error) {
	var by record.Budget
	var err error
	if !b.costRow.Hidden && strings.TrimSpace(b.cost.Text) != "" {
		if by.CostUSD, err = record.ParseBudgetCost(b.cost.Text); err != nil {
			return by, err
		}
	}
	if !b.tokensRow.Hidden && strings.TrimSpace(b.tokens.Text) != "" {
		if by.Tokens, err = record.ParseBudgetCount(b.tokens.Text); err != nil {
			return by, err
		}
	}
	if !b.turnsRow.Hidden && strings.TrimSpace(b.turns.Text) != "" {
		n, err := record.ParseBudgetCount(b.turns.Text)
		if err != nil {
			return by, err
		}
		by.Turns = int(n)
	}
	if by.IsZero() {
		return by, fmt.Errorf("say what to raise the budget by")
	}
	return by, nil
}

// budgetHome makes the budget bar of a live run, and returns where it goes: above the
// reply box, hidden until the run waits at its budget. While building the window.
func (w *runWindow) budgetHome() fyne.CanvasObject {
	if w.run == nil {
		none := container.NewVBox()
		none.Hide() // takes no room: a past run's record has no budget to raise
		return none
	}
	w.budget = newBudgetBar(w)
	return w.budget.content
}
