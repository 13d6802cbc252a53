package record

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// A run's usage is the sum of its turns', per model too, and a copy of its Info handed out
// before a turn ended keeps what it said.
func TestARunsUsageSumsItsTurns(t *testing.T) {
	var in Info
	turn1 := UsageInfo{Usage: Usage{InputTokens: 10, OutputTokens: 1, CostUSD: 0.5},
		Models: []ModelUsage{{Model: "opus", Usage: Usage{InputTokens: 10, OutputTokens: 1, CostUSD: 0.5}}}}
	turn2 := UsageInfo{Usage: Usage{InputTokens: 7, CacheReadTokens: 100, CacheWriteTokens: 3, CostUSD: 0.25},
		Models: []ModelUsage{
			{Model: "haiku", Usage: Usage{InputTokens: 2, CostUSD: 0.05}},
			{Model: "opus", Usage: Usage{InputTokens: 5, CacheReadTokens: 100, CacheWriteTokens: 3, CostUSD: 0.2}},
		}}
	in.Note(&Event{Type: EventUsage, Usage: &turn1})
	before := in
	in.Note(&Event{Type: EventResult, Result: &ResultInfo{CostUSD: 0.5}})
	in.Note(&Event{Type: EventUsage, Usage: &turn2})

	want := &RunUsage{Turns: 2, Usage: Usage{InputTokens: 17, OutputTokens: 1, CacheReadTokens: 100, CacheWriteTokens: 3, CostUSD: 0.75},
		Models: []ModelUsage{
			{Model: "haiku", Usage: Usage{InputTokens: 2, CostUSD: 0.05}},
			{Model: "opus", Usage: Usage{InputTokens: 15, OutputTokens: 1, CacheReadTokens: 100, CacheWriteTokens: 3, CostUSD: 0.7}},
		}}
	if diff := cmp.Diff(want, in.Usage); diff != "" {
		t.Errorf("the run's usage (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(&RunUsage{Turns: 1, Usage: turn1.Usage, Models: turn1.Models}, before.Usage); diff != "" {
		t.Errorf("a copy taken after the first turn changed (-want +got):\n%s", diff)
	}
	if got := in.Usage.Tokens(); got != 121 {
		t.Errorf("Tokens = %d, want 121", got)
	}
	if got := SummaryOf(in).Usage; got == nil || *got != want.Usage {
		t.Errorf("the summary's usage is %+v, want %+v", got, want.Usage)
	}
}

func TestThousands(t *testing.T) {
	for n, want := range map[int64]string{0: "0", 999: "999", 1000: "1,000", 1234567: "1,234,567", -12345: "-12,345"} {
		if got := Thousands(n); got != want {
			t.Errorf("Thousands(%d) = %q, want %q", n, got, want)
		}
	}
}

// By repository, a run in a worktree counts with the repository it was started in, and a
// run recorded before segwi named that with its checkout.
func TestUsageByRepositoryCountsAWorktreesRunWithItsRepository(t *testing.T) {
	at := time.Date(2026, 12, 4, 10, 0, 0, 0, time.UTC)
	sums := []Summary{
		{ID: "a", Checkout: "/src/web", Repository: "/src/web", Created: at, Usage: &Usage{InputTokens: 1, CostUSD: 1}},
		{ID: "b", Checkout: "/wt/003/b", Repository: "/src/web", Created: at, Usage: &Usage{InputTokens: 2, CostUSD: 2}},
		{ID: "c", Checkout: "/src/api", Created: at, CostUSD: 0.5},
	}
	rep := SumUsage(sums, at.Add(-time.Hour), UsageByRepository, time.UTC)
	want := []UsageRow{
		{Key: "/src/web", Runs: 2, Usage: Usage{InputTokens: 3, CostUSD: 3}},
		{Key: "/src/api", Runs: 1, Usage: Usage{CostUSD: 0.5}, CostOnly: 1},
	}
	if diff := cmp.Diff(want, rep.Rows); diff != "" {
		t.Errorf("rows (-want +got):\n%s", diff)
	}
}
