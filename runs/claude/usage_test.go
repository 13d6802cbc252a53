package claude_test

import (
	"context"
	"math"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/segwi/segwi/internal/testing/await"
	"github.com/segwi/segwi/internal/testing/claudetest"
	"github.com/segwi/segwi/internal/testing/fakeapi"
	"github.com/segwi/segwi/runs"
	"github.com/segwi/segwi/runs/claude"
)

// The usage the fake model server reports is what segwi records, per turn and per run,
// through the real Claude Code: its tokens exactly, its cost as Claude Code prices them.
func TestUsageIsRecordedPerTurnAndPerRun(t *testing.T) {
	bin := claudetest.Binary(t)
	const model = "claude-sonnet-5-5" // what --model sonnet sends
	echo := fakeapi.ToolUse("Bash", fakeapi.Input{"command": "echo hi", "description": "Say hi"})
	// Turn 1 is two requests (a tool call, then its answer); turn 2 is one.
	a := fakeapi.Usage{InputTokens: 1000, OutputTokens: 20, CacheReadInputTokens: 5000, CacheCreationInputTokens: 300}
	b := fakeapi.Usage{InputTokens: 200, OutputTokens: 10, CacheReadInputTokens: 6000}
	c := fakeapi.Usage{InputTokens: 50, OutputTokens: 5, CacheReadInputTokens: 7000, CacheCreationInputTokens: 100}
	srv := fakeapi.New(t, fakeapi.Turns(
		fakeapi.Say(echo).WithUsage(a),
		fakeapi.Say(fakeapi.Text("Said hi.")).WithUsage(b),
		fakeapi.Say(fakeapi.Text("Nothing more.")).WithUsage(c),
	))
	env := claudetest.Env(t, srv.URL)
	stateDir := t.TempDir()
	m := newManager(t, runs.Config{
		Runtime: claude.Runtime{Path: bin}, StateDir: stateDir, Env: env.Vars(),
		Model: "sonnet", StopGrace: 2 * time.Second,
	})
	r, err := m.Start(context.Background(), runs.Spec{Kind: runs.KindBuild, Checkout: claudetest.Checkout(t), Prompt: "Say hi", KeepOpen: true})
	if err != nil {
		t.Fatal(err)
	}
	waitingAfter := func(turns int) func() bool {
		return func() bool {
			in := r.Info()
			return in.State == runs.StateWaiting && in.Waiting == runs.WaitReply && in.Usage != nil && in.Usage.Turns == turns
		}
	}
	await.For(t, 60*time.Second, "the first turn's end", waitingAfter(1))
	if err := r.Send("Anything more?"); err != nil {
		t.Fatal(err)
	}
	await.For(t, 60*time.Second, "the second turn's end", waitingAfter(2))
	r.CloseInput()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	info, err := r.Wait(ctx)
	if err != nil {
		t.Fatal(err)
	}

	usage := func(us ...fakeapi.Usage) runs.Usage {
		var sum fakeapi.Usage
		for _, u := range us {
			sum.Add(u)
		}
		return runs.Usage{InputTokens: int64(sum.InputTokens), OutputTokens: int64(sum.OutputTokens),
			CacheReadTokens: int64(sum.CacheReadInputTokens), CacheWriteTokens: int64(sum.CacheCreationInputTokens)}
	}
	tokensOnly := func(u runs.Usage) runs.Usage { u.CostUSD = 0; return u }
	// Claude Code's own side requests (none are expected, but a later version may make
	// some) are counted too, under their model: the turns' totals are all it was told.
	var all []fakeapi.Usage
	for _, req := range srv.Requests() {
		if u, ok := srv.Sent(req); ok {
			all = append(all, u)
		}
	}

	var turns []*runs.UsageInfo
	var lastResult *runs.ResultInfo
	err = runs.ReadEvents(stateDir, r.ID(), func(e runs.Event) error {
		switch e.Type {
		case runs.EventUsage:
			turns = append(turns, e.Usage)
		case runs.EventResult:
			lastResult = e.Result
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(turns) != 2 {
		t.Fatalf("the record holds %d usage events, want one per turn (2)", len(turns))
	}
	modelUsage := func(u *runs.UsageInfo) runs.Usage {
		for _, mu := range u.Models {
			if mu.Model == model {
				return mu.Usage
			}
		}
		t.Errorf("turn usage %+v has no %s", u, model)
		return runs.Usage{}
	}
	if diff := cmp.Diff(usage(a, b), tokensOnly(modelUsage(turns[0]))); diff != "" {
		t.Errorf("turn 1's usage of %s (-want +got):\n%s", model, diff)
	}
	if diff := cmp.Diff(usage(c), tokensOnly(modelUsage(turns[1]))); diff != "" {
		t.Errorf("turn 2's usage of %s (-want +got):\n%s", model, diff)
	}
	if turns[0].Requests != 2 || turns[1].Requests != 1 {
		t.Errorf("the turns made %d and %d requests, want 2 and 1", turns[0].Requests, turns[1].Requests)
	}
	var sum runs.Usage
	for i, u := range turns {
		if u.CostUSD <= 0 {
			t.Errorf("turn %d cost $%v, want Claude Code's price of its tokens", i+1, u.CostUSD)
		}
		sum.Add(u.Usage)
	}
	if diff := cmp.Diff(usage(all...), tokensOnly(sum)); diff != "" {
		t.Errorf("the turns' tokens are not what the server reported (-want +got):\n%s", diff)
	}

	// The run's record sums the turns, and its cost is Claude Code's total.
	loaded, err := runs.Load(stateDir, r.ID())
	if err != nil {
		t.Fatal(err)
	}
	for _, got := range []runs.Info{info, loaded} {
		if got.Usage == nil || got.Usage.Turns != 2 {
			t.Fatalf("the run's usage is %+v, want two turns'", got.Usage)
		}
		if diff := cmp.Diff(tokensOnly(sum), tokensOnly(got.Usage.Usage)); diff != "" {
			t.Errorf("the run's usage (-want +got):\n%s", diff)
		}
		if math.Abs(got.Usage.CostUSD-lastResult.CostUSD) > 1e-9 || math.Abs(got.Usage.CostUSD-sum.CostUSD) > 1e-9 {
			t.Errorf("the run cost $%v, its turns $%v, Claude Code's total $%v: want them equal", got.Usage.CostUSD, sum.CostUSD, lastResult.CostUSD)
		}
	}
	// And the runs index keeps its totals for the lists and `segwi usage`.
	sums, _, err := runs.Summaries(stateDir)
	if err != nil || len(sums) != 1 || sums[0].Usage == nil {
		t.Fatalf("Summaries = %+v, %v; want the run with its usage", sums, err)
	}
	if diff := cmp.Diff(loaded.Usage.Usage, *sums[0].Usage); diff != "" {
		t.Errorf("the summary's usage (-want +got):\n%s", diff)
	}
}
