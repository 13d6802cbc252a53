package tray

import (
	"testing"

	"github.com/segwi/segwi/runs"
)

func TestNoticesSayWhatHappenedToWhichRun(t *testing.T) {
	info := runs.Info{ID: "r1", Kind: runs.KindBuild}
	tests := []struct {
		name        string
		e           runs.Event
		title, body string
	}{
		{"a run whose turn is over waits for your reply",
			runs.Event{Type: runs.EventState, State: &runs.StateChange{From: runs.StateRunning, To: runs.StateWaiting, Waiting: runs.WaitReply}},
			WaitsForReply, "web · build: Claude Code finished its turn. Reply in the run window, or Finish the run."},
		{"a run that ended says how",
			runs.Event{Type: runs.EventState, State: &runs.StateChange{From: runs.StateRunning, To: runs.StateTimedOut, Reason: "no output for 30m0s (runs.idleTimeout)"}},
			"segwi: a run timed out", "web · build: timed-out (no output for 30m0s (runs.idleTimeout))"},
		{"a run that succeeded",
			runs.Event{Type: runs.EventState, State: &runs.StateChange{From: runs.StateRunning, To: runs.StateSucceeded}},
			"segwi: a run succeeded", "web · build: succeeded"},
		{"an approval request that timed out",
			runs.Event{Type: runs.EventApprovalAnswer, ToolName: "Bash", Approval: &runs.ApprovalInfo{By: "timeout", WaitedMS: 300000}},
			ApprovalTimedOut, "web · build: Bash was denied after 5m0s without an answer."},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			title, body, ok := Notice(tt.e, info, "web")
			if !ok || title != tt.title || body != tt.body {
				t.Errorf("Notice = %q, %q, %v\nwant     %q, %q", title, body, ok, tt.title, tt.body)
			}
		})
	}
	for _, e := range []runs.Event{
		{Type: runs.EventState, State: &runs.StateChange{From: runs.StateQueued, To: runs.StateRunning}},
		{Type: runs.EventState, State: &runs.StateChange{From: runs.StateRunning, To: runs.StateWaiting, Waiting: runs.WaitApproval}}, // the popup's own notification says it
		{Type: runs.EventApprovalAnswer, Approval: &runs.ApprovalInfo{By: "person", Allow: true}},
	} {
		if title, _, ok := Notice(e, info, "web"); ok {
			t.Errorf("Notice of %+v = %q, want none", e, title)
		}
	}
}
