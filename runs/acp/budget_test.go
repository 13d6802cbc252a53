package acp_test

import (
	"testing"
	"time"

	"github.com/segwi/segwi/internal/testing/await"
	"github.com/segwi/segwi/runs"
	"github.com/segwi/segwi/runs/acp"
)

// An ACP agent's run stops at its budget where a turn ends, from the cost its
// usage_update reported, as a Claude Code run does: the follow-up waits in segwi, and
// goes once the budget is raised.
func TestAnACPRunStopsAtItsBudget(t *testing.T) {
	bin, err := fakeACP()
	if err != nil {
		t.Fatal(err)
	}
	h := harnessFor(t, acp.Runtime{RuntimeName: "fake", Command: []string{bin}}, 30*time.Second, func(c *runs.Config) { c.Budget = runs.Budget{CostUSD: 0.2} })
	dir := checkout(t)
	r := h.start(t, runs.KindBuild, dir, "say hello", true) // the agent's session costs $0.25 after it
	await.For(t, 20*time.Second, "the run to wait at its budget", func() bool { return r.Info().Waiting == runs.WaitBudget })
	if got := r.Info().Reason; got != "budget reached: $0.25 of $0.20" {
		t.Errorf("the run waits saying %q", got)
	}
	if err := r.Send("say again"); err != nil {
		t.Fatal(err)
	}
	for _, e := range h.events(t, r.ID()) {
		if e.Type == runs.EventPrompt && e.Text == "say again" {
			t.Fatal("the follow-up went to the agent before the budget was raised")
		}
	}
	if err := r.RaiseBudget(runs.Budget{CostUSD: 1}, "the test"); err != nil {
		t.Fatal(err)
	}
	await.For(t, 20*time.Second, "the follow-up's turn", func() bool {
		in := r.Info()
		return in.Waiting == runs.WaitReply && in.Usage != nil && in.Usage.Turns == 2
	})
	if got := texts(h.events(t, r.ID())); len(got) != 2 || got[1] != "again" {
		t.Errorf("the agent said %q, want its answer to the follow-up after the raise", got)
	}
	r.CloseInput()
	wait(t, r)
}
