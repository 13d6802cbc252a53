package record

import "testing"

func TestBudgetReached(t *testing.T) {
	tests := []struct {
		name  string
		b     Budget
		u     Usage
		turns int
		want  string
	}{
		{"no budget", Budget{}, Usage{CostUSD: 100, InputTokens: 1e9}, 100, ""},
		{"under every bound", Budget{CostUSD: 2, Tokens: 1000, Turns: 3}, Usage{CostUSD: 1.99, InputTokens: 999}, 2, ""},
		{"a cost over", Budget{CostUSD: 2}, Usage{CostUSD: 2.04}, 1, "budget reached: $2.04 of $2.00"},
		{"a small cost at it", Budget{CostUSD: 0.05}, Usage{CostUSD: 0.063}, 1, "budget reached: $0.063 of $0.05"},
		{"tokens of every kind count", Budget{Tokens: 1000}, Usage{InputTokens: 400, OutputTokens: 100, CacheReadTokens: 500}, 1,
			"budget reached: 1,000 tokens of 1,000"},
		{"turns at the bound", Budget{Turns: 2}, Usage{}, 2, "budget reached: 2 turns of 2"},
		{"one turn", Budget{Turns: 1}, Usage{}, 1, "budget reached: 1 turn of 1"},
		{"two bounds", Budget{CostUSD: 1, Turns: 2}, Usage{CostUSD: 1}, 3, "budget reached: $1.00 of $1.00, 3 turns of 2"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := tt.b.Reached(tt.u, tt.turns); got != tt.want {
				t.Errorf("%+v reached with %+v over %d turns: %q, want %q", tt.b, tt.u, tt.turns, got, tt.want)
			}
		})
	}
}

func TestCostText(t *testing.T) {
	for usd, want := range map[float64]string{0: "$0.00", 2: "$2.00", 2.04: "$2.04", 0.5: "$0.50", 0.0402: "$0.0402", 0.063: "$0.063", 1.23456: "$1.2346", 12: "$12.00"} {
		if got := CostText(usd); got != want {
			t.Errorf("CostText(%v) = %q, want %q", usd, got, want)
		}
	}
}

func TestBudgetOver(t *testing.T) {
	settings := Budget{CostUSD: 2, Tokens: 5000, Turns: 10}
	got := settings.Over(Budget{CostUSD: 0, Tokens: -1, Turns: 3})
	if want := (Budget{Tokens: 5000, Turns: 3}); got != want {
		t.Errorf("the run's own budget over the settings': %+v, want %+v", got, want)
	}
	if got := settings.Over(KeepAll); got != settings {
		t.Errorf("KeepAll over the settings: %+v, want them", got)
	}
}

func TestParseBudget(t *testing.T) {
	for in, want := range map[string]float64{"2": 2, "2.50": 2.5, "$0.05": 0.05, "none": 0, "0": 0, " off ": 0} {
		if got, err := ParseBudgetCost(in); err != nil || got != want {
			t.Errorf("ParseBudgetCost(%q) = %v, %v; want %v", in, got, err, want)
		}
	}
	for _, in := range []string{"", "-1", "two", "NaN", "Inf", "2$"} {
		if _, err := ParseBudgetCost(in); err == nil {
			t.Errorf("ParseBudgetCost(%q) took it", in)
		}
	}
	for in, want := range map[string]int64{"100000": 100000, "100,000": 100000, "1_000": 1000, "none": 0} {
		if got, err := ParseBudgetCount(in); err != nil || got != want {
			t.Errorf("ParseBudgetCount(%q) = %v, %v; want %v", in, got, err, want)
		}
	}
	for _, in := range []string{"", "-5", "1.5", "lots"} {
		if _, err := ParseBudgetCount(in); err == nil {
			t.Errorf("ParseBudgetCount(%q) took it", in)
		}
	}
}

func TestBudgetText(t *testing.T) {
	in := Info{Budget: &Budget{CostUSD: 3, Turns: 5}, BudgetRaises: []BudgetRaise{{By: Budget{CostUSD: 1}, Who: "you"}, {By: Budget{Turns: 2}}}}
	if got, want := BudgetText(in), "$3.00, 5 turns (raised by $1.00 by you, raised by 2 turns)"; got != want {
		t.Errorf("BudgetText = %q, want %q", got, want)
	}
	if got := BudgetText(Info{}); got != "none" {
		t.Errorf("BudgetText of no budget = %q, want none", got)
	}
}
