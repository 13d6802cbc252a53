package record

import (
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"
)

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
		parts = append(parts, Plural(b.Turns, "turn"))
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

// Reached says which bounds of b a run has reached that used u over turns turns, for a
// person ("budget reached: $2.04 of $2.00"); "" when it has reached none.
func (b Budget) Reached(u Usage, turns int) string {
	var parts []string
	if b.CostUSD > 0 && u.CostUSD >= b.CostUSD {
		parts = append(parts, CostText(u.CostUSD)+" of "+CostText(b.CostUSD))
	}
	if b.Tokens > 0 && u.Tokens() >= b.Tokens {
		parts = append(parts, Thousands(u.Tokens())+" tokens of "+Thousands(b.Tokens))
	}
	if b.Turns > 0 && turns >= b.Turns {
		parts = append(parts, fmt.Sprintf("%s of %d", Plural(turns, "turn"), b.Turns))
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
