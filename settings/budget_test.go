package settings

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

// A run's budget is off unless set; set, its three bounds are read from the file, and a
// bad one is a problem naming its key, the others still read.
func TestRunsBudget(t *testing.T) {
	if got := Default().Runs.Budget; got != (Budget{}) {
		t.Errorf("the default budget is %+v, want none", got)
	}
	res := load(t, writeConfig(t, "config.yaml", "segwi:\n  runs:\n    budget: {cost: 2.50, tokens: 100000, turns: 20}\n"))
	if len(res.Problems) != 0 {
		t.Fatalf("problems: %v", res.Problems)
	}
	if want := (Budget{Cost: 2.5, Tokens: 100000, Turns: 20}); res.Settings.Runs.Budget != want {
		t.Errorf("the budget read is %+v, want %+v", res.Settings.Runs.Budget, want)
	}
	res = load(t, writeConfig(t, "config.toml", "[segwi.runs.budget]\ncost = 3\nturns = 0\n"))
	if want := (Budget{Cost: 3}); len(res.Problems) != 0 || res.Settings.Runs.Budget != want {
		t.Errorf("TOML budget %+v (problems %v), want %+v", res.Settings.Runs.Budget, res.Problems, want)
	}

	bad := map[string]any{"segwi": map[string]any{"runs": map[string]any{"budget": map[string]any{
		"cost": "$2", "tokens": -5, "turns": 1.5, "money": 1,
	}}}}
	res, err := Check("/c.yaml", bad)
	if err != nil {
		t.Fatal(err)
	}
	want := []Problem{
		{File: "/c.yaml", Key: "segwi.runs.budget.cost", Message: `must be a sum of US dollars like 2.50 (0 for no bound), got "$2"`},
		{File: "/c.yaml", Key: "segwi.runs.budget.tokens", Message: "must be between 0 and 1000000000000, got -5"},
		{File: "/c.yaml", Key: "segwi.runs.budget.turns", Message: "must be a whole number between 0 and 1000000, got 1.5"},
	}
	if diff := cmp.Diff(want, res.Problems); diff != "" {
		t.Errorf("problems (-want +got):\n%s", diff)
	}
	if len(res.Unknown) != 1 || res.Unknown[0] != "segwi.runs.budget.money" {
		t.Errorf("unknown keys %v, want segwi.runs.budget.money", res.Unknown)
	}
	res, _ = Check("/c.yaml", map[string]any{"segwi": map[string]any{"runs": map[string]any{"budget": map[string]any{"cost": -1}}}})
	if len(res.Problems) != 1 || res.Problems[0].Message != "must be between 0 (no bound) and 1000000 dollars, got -1" {
		t.Errorf("a negative cost: %v", res.Problems)
	}
}
