package app

import (
	"testing"
	"time"

	"github.com/segwi/segwi/runs"
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
