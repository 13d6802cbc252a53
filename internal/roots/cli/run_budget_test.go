package cli

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/segwi/segwi/runs"
)

// segwi run's --budget-* flags set the run's budget over the settings', one bound at a
// time, and the record keeps it; a wrong one is a wrong command line.
func TestRunBudgetFlags(t *testing.T) {
	home := isolate(t)
	cfg := runConfig(t, "    budget: {cost: 5, tokens: 500000, turns: 3}\n")
	checkout := newCheckout(t)
	r := segwi(t, "", "--config", cfg, "run", "--checkout", checkout, "--budget-cost", "$2.50", "--budget-turns", "none", "fake:success")
	if r.code != 0 {
		t.Fatalf("got exit %d; stderr:\n%s", r.code, r.stderr)
	}
	info, err := runs.Load(filepath.Join(home, "state", "segwi"), runIDLine(r.stderr))
	if err != nil {
		t.Fatal(err)
	}
	if want := (runs.Budget{CostUSD: 2.5, Tokens: 500000}); info.Budget == nil || *info.Budget != want {
		t.Errorf("the run's budget is %+v, want %+v: the flags over the settings", info.Budget, want)
	}

	for _, tt := range []struct {
		args []string
		want string
	}{
		{[]string{"--budget-cost", "two", "x"}, `--budget-cost: "two" is not a cost in dollars like 2.00`},
		{[]string{"--budget-tokens", "-3", "x"}, `--budget-tokens: "-3" is not a whole number`},
		{[]string{"--budget-turns", "2000000", "x"}, "--budget-turns: 2000000 is more than 1000000"},
		{[]string{"--continue", "20260102-150405-abcdef", "--budget-turns", "2", "x"}, "a continued run has the budget of the settings"},
	} {
		r := segwi(t, "", append([]string{"--config", cfg, "run", "--checkout", checkout}, tt.args...)...)
		if tt.args[0] == "--continue" {
			r = segwi(t, "", append([]string{"--config", cfg, "run"}, tt.args...)...)
		}
		if r.code != 2 || !strings.Contains(r.stderr, tt.want) {
			t.Errorf("segwi run %q: exit %d, stderr:\n%s\nwant 2 and %q", tt.args, r.code, r.stderr, tt.want)
		}
	}
}
