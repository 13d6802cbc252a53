package claude_test

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/segwi/segwi/internal/testing/await"
	"github.com/segwi/segwi/internal/testing/claudetest"
	"github.com/segwi/segwi/internal/testing/fakeapi"
	"github.com/segwi/segwi/runs"
	"github.com/segwi/segwi/runs/claude"
)

// A budget of two turns, or a cost the second turn reaches, stops a run of five messages
// after its second turn, with the real Claude Code: the run waits for the person at its
// budget, the three follow-ups the person sent during the first turn do not reach the
// model, and a raise lets the run go on, one turn after another.
func TestABudgetStopsTheRunAfterTheTurnThatReachedIt(t *testing.T) {
	bin := claudetest.Binary(t)
	// Each turn is one request reading 10,000 tokens and writing 10: $0.0201 at the price
	// Claude Code gives the model --model sonnet names, so that $0.04 is reached by the
	// second turn and not the first.
	perTurn := fakeapi.Usage{InputTokens: 10_000, OutputTokens: 10}
	tests := []struct {
		name   string
		budget runs.Budget
		want   string // the run's reason at its budget
		raise  runs.Budget
	}{
		{"two turns", runs.Budget{Turns: 2}, "budget reached: 2 turns of 2", runs.Budget{Turns: 4}},
		{"a small cost", runs.Budget{CostUSD: 0.04}, "budget reached: $0.0402 of $0.04", runs.Budget{CostUSD: 1}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var replies []fakeapi.Reply
			for i := 1; i <= 5; i++ {
				replies = append(replies, fakeapi.Say(fakeapi.Text(fmt.Sprintf("Answer %d.", i))).WithUsage(perTurn))
			}
			srv := fakeapi.New(t, fakeapi.Turns(replies...))
			env := claudetest.Env(t, srv.URL)
			stateDir := t.TempDir()
			m := newManager(t, runs.Config{
				Runtime: claude.Runtime{Path: bin}, StateDir: stateDir, Env: env.Vars(),
				Model: "sonnet", StopGrace: 2 * time.Second, Budget: tt.budget,
			})
			r, err := m.Start(context.Background(), runs.Spec{Kind: runs.KindAsk, Checkout: claudetest.Checkout(t), Prompt: "Message 1", KeepOpen: true})
			if err != nil {
				t.Fatal(err)
			}
			await.For(t, 60*time.Second, "the run's start", func() bool { return r.State() == runs.StateRunning })
			for i := 2; i <= 5; i++ {
				if err := r.Send(fmt.Sprintf("Message %d", i)); err != nil {
					t.Fatal(err)
				}
			}
			await.For(t, 90*time.Second, "the run to wait at its budget", func() bool {
				in := r.Info()
				return in.State == runs.StateWaiting && in.Waiting == runs.WaitBudget
			})
			t.Logf("usage at the budget: %+v", r.Info().Usage)
			if got := r.Info().Reason; got != tt.want {
				t.Errorf("the run waits saying %q, want %q", got, tt.want)
			}
			// What the model was asked: the first two messages, one a turn, and nothing more.
			if got := lastUserTexts(srv); !slices.Equal(got, []string{"Message 1", "Message 2"}) {
				t.Fatalf("the model was sent %q before the raise, want the first two messages only", got)
			}
			if got := r.Info().Usage; got == nil || got.Turns != 2 {
				t.Fatalf("the run's usage at its budget is %+v, want two turns'", got)
			}

			// A raise too small is refused and changes nothing.
			if err := r.RaiseBudget(runs.Budget{Tokens: 1}, "the test"); err == nil {
				t.Error("a raise of a token budget the run does not have was taken")
			}
			if err := r.RaiseBudget(tt.raise, "the test"); err != nil {
				t.Fatal(err)
			}
			await.For(t, 120*time.Second, "the three other turns after the raise", func() bool {
				in := r.Info()
				return in.State == runs.StateWaiting && in.Waiting == runs.WaitReply && in.Usage != nil && in.Usage.Turns == 5
			})
			if got := lastUserTexts(srv); len(got) != 5 || got[2] != "Message 3" || got[4] != "Message 5" {
				t.Errorf("the model was sent %q in all, want the five messages one a turn", got)
			}
			r.CloseInput()
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			defer cancel()
			info, err := r.Wait(ctx)
			if err != nil {
				t.Fatal(err)
			}
			if info.State != runs.StateSucceeded {
				t.Errorf("the run ended %s (%s), want succeeded", info.State, info.Reason)
			}
			want := tt.budget
			want.CostUSD += tt.raise.CostUSD
			want.Turns += tt.raise.Turns
			loaded, err := runs.Load(stateDir, r.ID())
			if err != nil {
				t.Fatal(err)
			}
			if loaded.Budget == nil || *loaded.Budget != want || len(loaded.BudgetRaises) != 1 ||
				loaded.BudgetRaises[0].By != tt.raise || loaded.BudgetRaises[0].Who != "the test" {
				t.Errorf("the record keeps the budget %+v raised %+v, want %+v raised once by %+v by the test", loaded.Budget, loaded.BudgetRaises, want, tt.raise)
			}
			// The record tells it in order: the budget reached, the raise, then the third
			// message to the agent.
			var order []string
			err = runs.ReadEvents(stateDir, r.ID(), func(e runs.Event) error {
				switch {
				case e.Type == runs.EventBudget:
					order = append(order, e.Subtype)
				case e.Type == runs.EventPrompt && strings.Contains(e.Text, "Message 3"):
					order = append(order, "message 3")
				}
				return nil
			})
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(order, []string{"reached", "raised", "message 3"}) {
				t.Errorf("the record tells %q, want the budget reached, then raised, then message 3 sent", order)
			}
		})
	}
}

// lastUserTexts returns the person's messages the model was sent, in the order their
// turns asked: the last user text of each scripted request.
func lastUserTexts(srv *fakeapi.Server) []string {
	var out []string
	for _, req := range srv.Scripted() {
		texts := req.UserText()
		for i := len(texts) - 1; i >= 0; i-- {
			if j := strings.Index(texts[i], "Message "); j >= 0 {
				out = append(out, texts[i][j:])
				break
			}
		}
	}
	return out
}

// A run that sends Claude Code one message (not kept open) gives it its cost budget as
// --max-budget-usd, so that a runaway turn is bounded too: with each request costing
// $0.0201, a $0.05 budget ends a turn of seven requests after the third, Claude Code's
// own check coming after each request.
func TestACostBudgetBoundsTheOneTurnOfARunNotKeptOpen(t *testing.T) {
	bin := claudetest.Binary(t)
	perRequest := fakeapi.Usage{InputTokens: 10_000, OutputTokens: 10}
	srv := fakeapi.New(t, func(req *fakeapi.Request) fakeapi.Reply {
		if n := req.Turn(); n < 6 {
			return fakeapi.Say(fakeapi.ToolUse("Bash", fakeapi.Input{"command": fmt.Sprintf("echo step %d", n), "description": "A step"})).WithUsage(perRequest)
		}
		return fakeapi.Say(fakeapi.Text("Done.")).WithUsage(perRequest)
	})
	env := claudetest.Env(t, srv.URL)
	stateDir := t.TempDir()
	m := newManager(t, runs.Config{
		Runtime: claude.Runtime{Path: bin}, StateDir: stateDir, Env: env.Vars(),
		Model: "sonnet", StopGrace: 2 * time.Second, Budget: runs.Budget{CostUSD: 0.05, Turns: 3},
	})
	r, err := m.Start(context.Background(), runs.Spec{Kind: runs.KindBuild, Checkout: claudetest.Checkout(t), Prompt: "Take seven steps"})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	info, err := r.Wait(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if n := len(srv.Scripted()); n != 3 {
		t.Errorf("the model was asked %d times, want 3: Claude Code stops the turn after the request that reached $0.05", n)
	}
	if !slices.Contains(info.Argv, "--max-budget-usd") || info.Argv[slices.Index(info.Argv, "--max-budget-usd")+1] != "0.05" {
		t.Errorf("claude ran as %q, want --max-budget-usd 0.05", info.Argv)
	}
	if want := "budget reached: $0.0603 of $0.05: claude stopped at the run's cost budget itself and exited with code 1"; info.State != runs.StateFailed || info.Reason != want {
		t.Errorf("the run ended %s: %q; want failed: %q", info.State, info.Reason, want)
	}
	if err := r.RaiseBudget(runs.Budget{CostUSD: 1}, "the test"); err == nil {
		t.Error("an ended run's budget was raised")
	}
}

// A kept-open run's budget is checked where its turns end only: Claude Code gets no
// --max-budget-usd, since it would take no more messages past it.
func TestAKeptOpenRunGivesClaudeCodeNoCostBound(t *testing.T) {
	bin := claudetest.Binary(t)
	srv := fakeapi.New(t, fakeapi.Turns(fakeapi.Say(fakeapi.Text("Hello."))))
	env := claudetest.Env(t, srv.URL)
	m := newManager(t, runs.Config{Runtime: claude.Runtime{Path: bin}, StateDir: t.TempDir(), Env: env.Vars(),
		StopGrace: 2 * time.Second, Budget: runs.Budget{CostUSD: 0.05}})
	r, err := m.Start(context.Background(), runs.Spec{Kind: runs.KindAsk, Checkout: claudetest.Checkout(t), Prompt: "Hi", KeepOpen: true})
	if err != nil {
		t.Fatal(err)
	}
	await.For(t, 60*time.Second, "the first turn's end", func() bool { return r.Info().Usage != nil })
	if argv := r.Info().Argv; slices.Contains(argv, "--max-budget-usd") {
		t.Errorf("a kept-open run's claude ran as %q, want no --max-budget-usd", argv)
	}
	r.CloseInput()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if _, err := r.Wait(ctx); err != nil {
		t.Fatal(err)
	}
}

// A run that Claude Code stopped at its cost budget (--max-budget-usd: its process takes no
// more messages) goes on as a continued run with a budget of its own: a new process
// resuming the session, with the raised bound as its --max-budget-usd, the model given
// the earlier conversation. This is what segwi run says to do when a run ends at its
// budget.
func TestARunStoppedAtItsCostBudgetGoesOnContinuedWithABudget(t *testing.T) {
	bin := claudetest.Binary(t)
	perRequest := fakeapi.Usage{InputTokens: 10_000, OutputTokens: 10}
	var resumedAfter atomic.Int64 // the assistant messages the continued run's request held
	srv := fakeapi.New(t, func(req *fakeapi.Request) fakeapi.Reply {
		if slices.ContainsFunc(req.UserText(), func(s string) bool { return strings.Contains(s, "Go on") }) {
			resumedAfter.Store(int64(req.Turn()))
			return fakeapi.Say(fakeapi.Text("Done.")).WithUsage(perRequest)
		}
		return fakeapi.Say(fakeapi.ToolUse("Bash", fakeapi.Input{"command": fmt.Sprintf("echo step %d", req.Turn()), "description": "A step"})).WithUsage(perRequest)
	})
	env := claudetest.Env(t, srv.URL)
	m := newManager(t, runs.Config{
		Runtime: claude.Runtime{Path: bin}, StateDir: t.TempDir(), Env: env.Vars(),
		Model: "sonnet", StopGrace: 2 * time.Second, Budget: runs.Budget{CostUSD: 0.05},
	})
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	first, err := m.Start(context.Background(), runs.Spec{Kind: runs.KindBuild, Checkout: claudetest.Checkout(t), Prompt: "Take seven steps"})
	if err != nil {
		t.Fatal(err)
	}
	info, err := first.Wait(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(info.Reason, "budget reached: $0.0603 of $0.05") {
		t.Fatalf("the first run ended %s: %q; want it stopped at its budget", info.State, info.Reason)
	}

	next, err := m.Continue(context.Background(), first.ID(), "Go on", false, &runs.Budget{CostUSD: 0.1})
	if err != nil {
		t.Fatal(err)
	}
	info, err = next.Wait(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if info.State != runs.StateSucceeded || info.Turns != 1 {
		t.Errorf("the continued run ended %s after %d turns: %q; want succeeded after 1", info.State, info.Turns, info.Reason)
	}
	if !slices.Contains(info.Argv, "--resume") || !slices.Contains(info.Argv, "--max-budget-usd") || info.Argv[slices.Index(info.Argv, "--max-budget-usd")+1] != "0.1" {
		t.Errorf("claude ran as %q, want --resume and --max-budget-usd 0.1", info.Argv)
	}
	if n := resumedAfter.Load(); n < 3 {
		t.Errorf("the continued run's request held %d of the model's earlier replies, want the 3 of the run it continues", n)
	}
}
