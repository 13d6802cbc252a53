package runs

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/segwi/segwi/internal/testing/await"
)

// budgetManager returns a Manager whose runs run cat (catRuntime) with budget, and
// idle, when not zero, as their idle timeout.
func budgetManager(t *testing.T, budget Budget, idle time.Duration) *Manager {
	t.Helper()
	return catManager(t, func(c *Config) { c.Budget, c.IdleTimeout = budget, idle })
}

// A run at its budget holds what the person sends, and a close drops it, saying so in the
// record: nothing reached the agent after the turn that reached the budget.
func TestARunAtItsBudgetHoldsWhatIsSentAndACloseDropsIt(t *testing.T) {
	m := budgetManager(t, Budget{Turns: 1}, 0)
	r, err := m.Start(context.Background(), Spec{Kind: KindBuild, Checkout: newCheckout(t), Prompt: "one", KeepOpen: true})
	if err != nil {
		t.Fatal(err)
	}
	await.For(t, 10*time.Second, "the run to wait at its budget", func() bool { return r.Info().Waiting == WaitBudget })
	if in := r.Info(); in.Reason != "budget reached: 1 turn of 1" || in.StateText() != "budget reached" {
		t.Errorf("the run waits saying %q (%q)", in.Reason, in.StateText())
	}
	for _, text := range []string{"two", "three"} {
		if err := r.Send(text); err != nil {
			t.Fatalf("Send(%q) at the budget: %v; want it held", text, err)
		}
	}
	r.CloseInput()
	info := wait(t, r)
	if info.State != StateSucceeded {
		t.Errorf("ended %s (%s), want succeeded", info.State, info.Reason)
	}
	var prompts, held []string
	for _, e := range events(t, m, r.ID()) {
		switch {
		case e.Type == EventPrompt:
			prompts = append(prompts, e.Text)
		case e.Type == EventStatus && e.Subtype == "held":
			held = append(held, e.Text)
		}
	}
	if len(prompts) != 1 {
		t.Errorf("the agent was sent %q, want the prompt alone", prompts)
	}
	if len(held) != 3 || !strings.HasSuffix(held[0], ": two") || held[2] != "not sent: the run's input closed with 2 messages held back for its budget" {
		t.Errorf("the record says of the held messages %q", held)
	}
}

// A run nobody raises ends at the idle timeout, as a run nobody replies to does.
func TestARunAtItsBudgetEndsAtTheIdleTimeout(t *testing.T) {
	m := budgetManager(t, Budget{Turns: 1}, 500*time.Millisecond)
	r, err := m.Start(context.Background(), Spec{Kind: KindBuild, Checkout: newCheckout(t), Prompt: "one", KeepOpen: true})
	if err != nil {
		t.Fatal(err)
	}
	info := wait(t, r)
	if info.State != StateSucceeded {
		t.Errorf("ended %s (%s), want succeeded once its input closed", info.State, info.Reason)
	}
	found := false
	for _, e := range events(t, m, r.ID()) {
		if e.Type == EventStatus && e.Subtype == "idle" && strings.HasPrefix(e.Text, "the budget was not raised for 500ms") {
			found = true
		}
	}
	if !found {
		t.Error("the record does not say the budget was not raised within the idle timeout")
	}
}

// The approval page raises a budget as the person answers an approval: only while the run
// waits at its budget, and once. A raise that comes after the run went on (raised in its
// run window meanwhile) is refused, changing nothing; the raise that went through is
// recorded as the device's.
func TestARunsWaitingBudgetIsRaisedOnceAndOnlyWhileItWaits(t *testing.T) {
	m := budgetManager(t, Budget{Turns: 1}, 0)
	r, err := m.Start(context.Background(), Spec{Kind: KindBuild, Checkout: newCheckout(t), Prompt: "one", KeepOpen: true})
	if err != nil {
		t.Fatal(err)
	}
	defer r.CloseInput()
	await.For(t, 10*time.Second, "the run to wait at its budget", func() bool { return r.Info().Waiting == WaitBudget })
	const who = "you from phone (alice@example.com)"
	if err := r.RaiseWaitingBudget(Budget{Turns: 1}, who); err != nil {
		t.Fatalf("raising the budget of a run waiting at it: %v", err)
	}
	await.For(t, 10*time.Second, "the run to wait for a reply, no longer at its budget", func() bool { return r.Info().Waiting == WaitReply })
	err = r.RaiseWaitingBudget(Budget{Turns: 1}, who)
	if !errors.Is(err, ErrBudget) || !strings.Contains(err.Error(), "does not wait at its budget") {
		t.Errorf("a second raise of a run no longer at its budget: got %v, want it refused (ErrBudget)", err)
	}
	info := r.Info()
	if info.Budget == nil || info.Budget.Turns != 2 || len(info.BudgetRaises) != 1 || info.BudgetRaises[0].Who != who {
		t.Errorf("the record holds the budget %+v raised %+v, want 2 turns, raised once by %q", info.Budget, info.BudgetRaises, who)
	}
}
