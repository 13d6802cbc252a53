package runs

import (
	"fmt"
	"strings"
	"time"
)

// A run's budget bounds what it may use: its cost, its tokens, its turns. It is checked
// where a turn ends, from the usage the runtime reported for it (usage.go): when a turn
// ends at or over the budget, segwi starts no further turn (no follow-up goes to the
// agent) and the run waits for the person (WaitBudget), who raises the budget and lets it
// go on, or stops it. A single turn is not cut short: it may go over by what it uses.
//
// While a run has a budget, the person's follow-ups sent during a turn wait in segwi
// until that turn has ended and the budget was checked (see input), rather than going to
// the agent's input at once: a follow-up the agent has read cannot be held back.

// Budget returns the run's budget (the zero Budget: none).
func (r *Run) Budget() Budget {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.budget
}

// RaiseBudget raises the run's budget by by (each field added to the bound it names; a
// bound that is off cannot be raised), saying who asked for the record. A run waiting at
// its budget then goes on: the follow-up that waited is sent, or it waits for the
// person's reply. A raise that leaves the run at its budget is refused, saying so, and
// changes nothing. Errors wrap ErrBudget, ErrNotRunning or ErrInputClosed.
func (r *Run) RaiseBudget(by Budget, who string) error { return r.raiseBudget(by, who, false) }

// RaiseWaitingBudget is RaiseBudget for a run that waits at its budget (WaitBudget), and
// only then: the person answers the run's "budget reached", as they answer an approval,
// and a second answer (the run went on meanwhile) is refused, wrapping ErrBudget. The
// approval page raises a budget so.
func (r *Run) RaiseWaitingBudget(by Budget, who string) error { return r.raiseBudget(by, who, true) }

func (r *Run) raiseBudget(by Budget, who string, waiting bool) error {
	var err error
	if !r.do(func() {
		r.mu.Lock()
		defer r.mu.Unlock()
		err = r.raiseBudgetLocked(by, who, waiting)
	}) {
		return fmt.Errorf("raising the budget of run %s: %w (it has ended)", r.id, ErrInputClosed)
	}
	return err
}

// raiseBudgetLocked is RaiseBudget (RaiseWaitingBudget when waiting) on the run's owner.
// r.mu is held.
func (r *Run) raiseBudgetLocked(by Budget, who string, waiting bool) error {
	if r.phase != phaseRunning || r.input.state == inputClosed {
		return fmt.Errorf("raising the budget of run %s (%s): %w", r.id, r.info.State, ErrNotRunning)
	}
	if waiting && r.input.state != inputOver {
		return fmt.Errorf("raising the budget of run %s: %w: it does not wait at its budget (%s)", r.id, ErrBudget, r.info.StateText())
	}
	b := r.budget
	if by.CostUSD < 0 || by.Tokens < 0 || by.Turns < 0 || by.IsZero() {
		return fmt.Errorf("raising the budget of run %s: %w: raise it by a cost, tokens or turns above 0", r.id, ErrBudget)
	}
	for _, f := range []struct {
		name   string
		on, by bool
	}{{"cost", b.CostUSD > 0, by.CostUSD > 0}, {"token", b.Tokens > 0, by.Tokens > 0}, {"turn", b.Turns > 0, by.Turns > 0}} {
		if f.by && !f.on {
			return fmt.Errorf("raising the budget of run %s: %w: it has no %s budget to raise (its budget is %s)", r.id, ErrBudget, f.name, b)
		}
	}
	if by.CostUSD > 0 && r.agentCost > 0 {
		return fmt.Errorf("raising the budget of run %s: %w: its %s keeps to the cost budget it started with (%s) itself, and takes no more messages past it; continue the run instead", r.id, ErrBudget, r.agent, CostText(r.agentCost))
	}
	b.CostUSD += by.CostUSD
	b.Tokens += by.Tokens
	b.Turns += by.Turns
	if still := b.Reached(r.usageLocked(), r.input.results); still != "" && r.input.state == inputOver {
		return fmt.Errorf("raising the budget of run %s by %s is not enough: %s; raise it further, or stop the run", r.id, by, strings.TrimPrefix(still, "budget "))
	}
	r.budget = b
	r.info.Budget = &b
	raise := &BudgetRaise{By: by, Who: r.m.red.String(who), Time: time.Now()}
	r.info.BudgetRaises = append(r.info.BudgetRaises, *raise)
	text := fmt.Sprintf("budget raised by %s to %s", by, b)
	if raise.Who != "" {
		text += " by " + raise.Who
	}
	r.emitLocked(Event{Type: EventBudget, Subtype: "raised", Text: text, Budget: &BudgetInfo{Budget: b, Raise: raise}}, toDisk)
	r.moveInputLocked(budgetRaised, "")
	return nil
}

// usageLocked is what the run used so far. r.mu is held.
func (r *Run) usageLocked() Usage {
	if r.info.Usage == nil {
		return Usage{}
	}
	return r.info.Usage.Usage
}

// budgetReachedLocked says whether the turn whose result came now (not counted yet in
// the input's results) ended the run at or over its budget, and which bound, for a
// person; "" when it did not. r.mu is held.
func (r *Run) budgetReachedLocked() string {
	if r.budget.IsZero() {
		return ""
	}
	return r.budget.Reached(r.usageLocked(), r.input.results+1)
}

// setBudget gives the run of Start its budget: own over the settings' (nil: theirs). A
// run with a budget holds the person's follow-ups during a turn (input.hold).
func (r *Run) setBudget(settings Budget, own *Budget) {
	b := settings
	if own != nil {
		b = settings.Over(*own)
	}
	b = Budget{CostUSD: max(b.CostUSD, 0), Tokens: max(b.Tokens, 0), Turns: max(b.Turns, 0)}
	r.budget = b
	r.input.hold = !b.IsZero()
	if !b.IsZero() {
		r.info.Budget = &b
	}
	if tb, ok := r.runtime.(TurnCostBounder); ok && tb.BoundsTurnCost() && !r.spec.KeepOpen {
		r.agentCost = b.CostUSD // one message: nothing is lost if the agent takes no more past it
	}
}

// TurnCostBounder is a Runtime whose agent can bound its own cost mid-turn
// (Launch.MaxCostUSD), as Claude Code's --max-budget-usd does: checked after each request
// to the model, so over by at most about one request, and for its whole process, which
// then answers every later message with an error and never asks the model again. segwi
// gives it a run's cost budget only when the run sends one message (not kept open), where
// no later message is lost; a kept-open run's budget is checked where its turns end.
type TurnCostBounder interface {
	BoundsTurnCost() bool
}

// holdLocked carries out a move of the input that holds a follow-up (text) or writes the
// oldest one held, on the run's owner; the written channel is a Send's: a follow-up held
// counts as sent, and says where it waits. r.mu is held.
func (r *Run) holdLocked(act inputAction, text string) <-chan error {
	if act == inputWriteHeld {
		text, r.heldBack = r.heldBack[0], r.heldBack[1:]
		r.emitLocked(Event{Type: EventPrompt, Text: r.m.red.String(text)}, toFile)
		r.in.later(text)
		return nil
	}
	r.heldBack = append(r.heldBack, text)
	why := "the current turn has ended under the run's budget (" + r.budget.String() + ")"
	if r.input.state == inputOver {
		why = "the person raises the run's budget"
	}
	r.emitLocked(Event{Type: EventStatus, Subtype: "held", Text: "a message waits in segwi until " + why + ": " + r.m.red.String(text)}, toFile)
	written := make(chan error, 1)
	written <- nil
	return written
}

// dropHeldLocked says, when the input closes, that the follow-ups it held were not sent,
// and forgets them. r.mu is held.
func (r *Run) dropHeldLocked() {
	if len(r.heldBack) == 0 {
		return
	}
	r.emitLocked(Event{Type: EventStatus, Subtype: "held", Text: fmt.Sprintf("not sent: the run's input closed with %s held back for its budget", plural(len(r.heldBack), "message"))}, toFile)
	r.heldBack = nil
}
