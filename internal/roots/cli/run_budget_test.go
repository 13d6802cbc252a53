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
		{[]string{"--continue", "20260102-150405-abcdef", "--budget-turns", "two", "x"}, `--budget-turns: "two" is not a whole number`},
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

// A foreground run that reaches its budget says how to go on: the command line that
// continues it with a budget; that command continues it with the budget it names (over
// the settings', bound by bound), and one that names none has the settings'.
func TestRunAtItsBudgetSaysHowToGoOn(t *testing.T) {
	home := isolate(t)
	stateDir := filepath.Join(home, "state", "segwi")
	cfg := runConfig(t, "    budget: {tokens: 500000, turns: 1}\n")
	checkout := newCheckout(t)
	r := segwi(t, "", "--config", cfg, "run", "--checkout", checkout, "fake:success")
	first := runIDLine(r.stderr)
	goOn := "segwi run --continue " + first + " --budget-tokens 500000 --budget-turns 1 \"...\""
	if r.code != 0 || !strings.Contains(r.stderr, "segwi: the run reached its budget as its turn ended; to go on, continue it with a budget of its own") ||
		!strings.Contains(r.stderr, "\n  "+goOn+"\n") {
		t.Fatalf("a run at its budget: exit %d, stderr:\n%s\nwant 0 and the line %q", r.code, r.stderr, goOn)
	}

	// The line as said, with a raise and the next message.
	args := strings.Fields(strings.TrimSuffix(goOn, ` "..."`))[1:]
	args = append(args, "--budget-turns", "3", "fake:success and now the tests")
	r = segwi(t, "", append([]string{"--config", cfg}, args...)...)
	next := runIDLine(r.stderr)
	if r.code != 0 || next == "" {
		t.Fatalf("segwi %q: exit %d, stderr:\n%s", args, r.code, r.stderr)
	}
	info, err := runs.Load(stateDir, next)
	if err != nil {
		t.Fatal(err)
	}
	if want := (runs.Budget{Tokens: 500000, Turns: 3}); info.ContinuedFrom != first || info.Budget == nil || *info.Budget != want {
		t.Errorf("the continued run continues %q with budget %+v, want %s and %+v", info.ContinuedFrom, info.Budget, first, want)
	}
	if strings.Contains(r.stderr, "at its budget") || strings.Contains(r.stderr, "reached its budget") {
		t.Errorf("the continued run's 1 turn of its 3 is not at its budget, yet:\n%s", r.stderr)
	}

	// No budget flags: the settings' budget.
	r = segwi(t, "", "--config", cfg, "run", "--continue", next, "fake:success")
	if info, err = runs.Load(stateDir, runIDLine(r.stderr)); err != nil {
		t.Fatal(err)
	}
	if want := (runs.Budget{Tokens: 500000, Turns: 1}); r.code != 0 || info.Budget == nil || *info.Budget != want {
		t.Errorf("a continued run without budget flags: exit %d, budget %+v, want the settings' %+v; stderr:\n%s", r.code, info.Budget, want, r.stderr)
	}
}
