package runs

import (
	"errors"
	"fmt"
	"math"
	"strconv"
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

// Budget is what a run may use before it waits for the person; a zero field is no bound.
type Budget struct {
	CostUSD float64 `json:"costUSD,omitempty"` // its cost in US dollars, as the runtime reckons it
	Tokens  int64   `json:"tokens,omitempty"`  // its tokens, of every kind (Usage.Tokens)
	Turns   int     `json:"turns,omitempty"`   // its turns: the results of the messages it was sent
}

// IsZero says whether b bounds nothing.
func (b Budget) IsZero() bool { return b == Budget{} }

// Over returns b with each of o's non-negative fields in place of b's: the settings'
// budget with a run's own choices over it. A negative field of o keeps b's.
func (b Budget) Over(o Budget) Budget {
	if o.CostUSD >= 0 {
		b.CostUSD = o.CostUSD
	}
	if o.Tokens >= 0 {
		b.Tokens = o.Tokens
	}
	if o.Turns >= 0 {
		b.Turns = o.Turns
	}
	return b
}

// KeepAll is a Budget whose every field keeps the budget it is put over (Over): a run
// that sets none of its own.
var KeepAll = Budget{CostUSD: -1, Tokens: -1, Turns: -1}

// String says what b bounds, for a person: "$2.00, 100,000 tokens, 5 turns"; "none".
func (b Budget) String() string {
	var parts []string
	if b.CostUSD > 0 {
		parts = append(parts, CostText(b.CostUSD))
	}
	if b.Tokens > 0 {
		parts = append(parts, Thousands(b.Tokens)+" tokens")
	}
	if b.Turns > 0 {
		parts = append(parts, plural(b.Turns, "turn"))
	}
	if len(parts) == 0 {
		return "none"
	}
	return strings.Join(parts, ", ")
}

// CostText writes a cost in dollars as a person reads a budget, to a hundredth of a cent
// and with cents at least: "$2.00", "$2.04", "$0.0402".
func CostText(usd float64) string {
	s := strconv.FormatFloat(math.Round(usd*1e4)/1e4, 'f', -1, 64)
	switch i := strings.IndexByte(s, '.'); {
	case i < 0:
		s += ".00"
	case len(s)-i == 2:
		s += "0"
	}
	return "$" + s
}

// reached says which bounds of b a run has reached that used u over turns turns, for a
// person ("budget reached: $2.04 of $2.00"); "" when it has reached none.
func (b Budget) reached(u Usage, turns int) string {
	var parts []string
	if b.CostUSD > 0 && u.CostUSD >= b.CostUSD {
		parts = append(parts, CostText(u.CostUSD)+" of "+CostText(b.CostUSD))
	}
	if b.Tokens > 0 && u.Tokens() >= b.Tokens {
		parts = append(parts, Thousands(u.Tokens())+" tokens of "+Thousands(b.Tokens))
	}
	if b.Turns > 0 && turns >= b.Turns {
		parts = append(parts, fmt.Sprintf("%s of %d", plural(turns, "turn"), b.Turns))
	}
	if len(parts) == 0 {
		return ""
	}
	return "budget reached: " + strings.Join(parts, ", ")
}

// BudgetRaise is a raise of a run's budget: by how much, by whom, when.
type BudgetRaise struct {
	By   Budget    `json:"by"`
	Who  string    `json:"who,omitempty"`
	Time time.Time `json:"time"`
}

// BudgetInfo is what a budget event says: the run's budget, and the raise that made it
// (nil when the event says the budget was reached).
type BudgetInfo struct {
	Budget Budget       `json:"budget"`
	Raise  *BudgetRaise `json:"raise,omitempty"`
}

// ErrBudget is wrapped by RaiseBudget's error for a raise that cannot be made.
var ErrBudget = errors.New("the budget cannot be raised so")

// ParseBudgetCost reads a cost budget as a person writes it: "2", "2.50", "$2.50"; "0",
// "none" and "off" are no bound (0).
func ParseBudgetCost(s string) (float64, error) {
	t := strings.TrimSpace(s)
	if off(t) {
		return 0, nil
	}
	v, err := strconv.ParseFloat(strings.TrimPrefix(t, "$"), 64)
	if err != nil || math.IsNaN(v) || math.IsInf(v, 0) || v < 0 {
		return 0, fmt.Errorf("%q is not a cost in dollars like 2.00 (or 0 or none for no bound)", s)
	}
	return v, nil
}

// ParseBudgetCount reads a token or turn budget as a person writes it: "100000",
// "100,000", "100_000"; "0", "none" and "off" are no bound (0).
func ParseBudgetCount(s string) (int64, error) {
	t := strings.TrimSpace(s)
	if off(t) {
		return 0, nil
	}
	v, err := strconv.ParseInt(strings.NewReplacer(",", "", "_", "").Replace(t), 10, 64)
	if err != nil || v < 0 {
		return 0, fmt.Errorf("%q is not a whole number like 100000 (or 0 or none for no bound)", s)
	}
	return v, nil
}

func off(s string) bool {
	switch strings.ToLower(s) {
	case "none", "off", "0":
		return true
	}
	return false
}

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
	if still := b.reached(r.usageLocked(), r.input.results); still != "" && r.input.state == inputOver {
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
	r.emitLocked(Event{Type: EventBudget, Subtype: "raised", Text: text, Budget: &BudgetInfo{Budget: b, Raise: raise}}, true)
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
	return r.budget.reached(r.usageLocked(), r.input.results+1)
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
		r.emitLocked(Event{Type: EventPrompt, Text: r.m.red.String(text)}, false)
		r.in.later(text)
		return nil
	}
	r.heldBack = append(r.heldBack, text)
	why := "the current turn has ended under the run's budget (" + r.budget.String() + ")"
	if r.input.state == inputOver {
		why = "the person raises the run's budget"
	}
	r.emitLocked(Event{Type: EventStatus, Subtype: "held", Text: "a message waits in segwi until " + why + ": " + r.m.red.String(text)}, false)
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
	r.emitLocked(Event{Type: EventStatus, Subtype: "held", Text: fmt.Sprintf("not sent: the run's input closed with %s held back for its budget", plural(len(r.heldBack), "message"))}, false)
	r.heldBack = nil
}

// BudgetText says a run's budget and its raises, for a person: "$3.00, 5 turns (raised
// by $1.00 by you)"; "none".
func BudgetText(in Info) string {
	if in.Budget == nil {
		return "none"
	}
	s := in.Budget.String()
	var raises []string
	for _, r := range in.BudgetRaises {
		t := "raised by " + r.By.String()
		if r.Who != "" {
			t += " by " + r.Who
		}
		raises = append(raises, t)
	}
	if len(raises) > 0 {
		s += " (" + strings.Join(raises, ", ") + ")"
	}
	return s
}
