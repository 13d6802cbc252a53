package app

import (
	"testing"
	"time"

	"github.com/segwi/segwi/runs"
	"github.com/segwi/segwi/runs/changes"
	"github.com/segwi/segwi/runs/worktree"
)

// The header says what a waiting run waits for: an approval, or the person's reply once
// its turn is over.
func TestTheStatusLineSaysWhatAWaitingRunWaitsFor(t *testing.T) {
	now := runT0.Add(90 * time.Second)
	for _, tt := range []struct {
		name string
		info runs.Info
		want string
	}{
		{"an approval waits", runs.Info{State: runs.StateWaiting, Waiting: runs.WaitApproval, Start: runT0},
			"State: ⚠ waiting for you: answer the approval here or in its popup · 1m 30s"},
		{"its turn is over", runs.Info{State: runs.StateWaiting, Waiting: runs.WaitReply, Start: runT0},
			"State: ⚠ waiting for your reply: its turn is over; send a follow-up, or Finish · 1m 30s"},
		{"it reached its budget", runs.Info{State: runs.StateWaiting, Waiting: runs.WaitBudget, Reason: "budget reached: $2.04 of $2.00", Start: runT0},
			"State: ⚠ budget reached: $2.04 of $2.00: raise the budget below, or Stop · 1m 30s"},
		{"it works", runs.Info{State: runs.StateRunning, Start: runT0}, "State: running · 1m 30s"},
		{"its turns' usage shows", runs.Info{State: runs.StateRunning, Start: runT0, CostUSD: 0.0123,
			Usage: &runs.RunUsage{Turns: 2, Usage: runs.Usage{InputTokens: 1200, OutputTokens: 30, CacheReadTokens: 11000, CostUSD: 0.0123}}},
			"State: running · 1m 30s · $0.0123 · 12,230 tokens"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if got := statusLine(tt.info, 0, now); got != tt.want {
				t.Errorf("statusLine = %q, want %q", got, tt.want)
			}
		})
	}
}

// The header says where the run works: its checkout and branch, or its worktree's branch
// and folder, the branch first so that a long folder does not hide it.
func TestTheWhereLineNamesTheWorktree(t *testing.T) {
	in := runs.Info{Checkout: "/src/web", State: runs.StateSucceeded, Base: &changes.Base{Branch: "main"}}
	if got, want := whereLine(in), "Checkout: /src/web   Branch: main"; got != want {
		t.Errorf("whereLine of a run in its checkout = %q, want %q", got, want)
	}
	in.Checkout = "/data/segwi/worktrees/web/20250314-092653-d0e5f1"
	in.Worktree = &worktree.Worktree{Path: in.Checkout, Branch: "segwi/greet-d0e5f1", Repository: "/src/web"}
	if got, want := whereLine(in), "Worktree on branch segwi/greet-d0e5f1   Folder: /data/segwi/worktrees/web/20250314-092653-d0e5f1"; got != want {
		t.Errorf("whereLine of a run in a worktree = %q, want %q", got, want)
	}
}
