package tray

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/segwi/segwi/approvals"
	"github.com/segwi/segwi/runs"
)

func TestNoticesSayWhatHappenedToWhichRun(t *testing.T) {
	info := runs.Info{ID: "r1", Kind: runs.KindBuild, Prompt: "Fix the login form\nand its tests"}
	tests := []struct {
		name    string
		e       runs.Event
		body    string
		lasting bool
	}{
		{"a run whose turn is over waits for your reply, until withdrawn",
			runs.Event{Type: runs.EventState, State: &runs.StateChange{From: runs.StateRunning, To: runs.StateWaiting, Waiting: runs.WaitReply}},
			"Claude Code finished its turn and waits for your reply. Reply in the run window, or Finish the run.", true},
		{"a run at its budget says how far it went and what to do",
			runs.Event{Type: runs.EventState, State: &runs.StateChange{From: runs.StateRunning, To: runs.StateWaiting, Waiting: runs.WaitBudget, Reason: "budget reached: $2.04 of $2.00"}},
			"The build run stopped at its budget ($2.04 of $2.00): no further turn starts until you raise it. Raise it or Stop the run in the run window.", false},
		{"a run that ended says how",
			runs.Event{Type: runs.EventState, State: &runs.StateChange{From: runs.StateRunning, To: runs.StateTimedOut, Reason: "no output for 30m0s (runs.idleTimeout)"}},
			"The build run timed out: no output for 30m0s (runs.idleTimeout).", false},
		{"a run that succeeded",
			runs.Event{Type: runs.EventState, State: &runs.StateChange{From: runs.StateRunning, To: runs.StateSucceeded}},
			"The build run succeeded.", false},
		{"an approval request that timed out",
			runs.Event{Type: runs.EventApprovalAnswer, ToolName: "Bash", Approval: &runs.ApprovalInfo{By: "timeout", WaitedMS: 300000}},
			"The build run asked to use Bash; nobody answered within 5m0s, so segwi denied it.", false},
		{"an approval request Claude Code stopped waiting for blames its own timeout",
			runs.Event{Type: runs.EventApprovalAnswer, ToolName: "Bash", Approval: &runs.ApprovalInfo{By: "cancelled", WaitedMS: 60_012}},
			"The build run asked to use Bash, and Claude Code stopped waiting for your answer after 1m0s (its own timeout): it went on without the call.", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			note, ok := Notice(tt.e, info, "web")
			if !ok || note.Title != "web · Fix the login form" || note.Body != tt.body || note.Lasting != tt.lasting {
				t.Errorf("Notice = %+v, %v\nwant title %q, body %q, lasting %v", note, ok, "web · Fix the login form", tt.body, tt.lasting)
			}
		})
	}
	for _, e := range []runs.Event{
		{Type: runs.EventState, State: &runs.StateChange{From: runs.StateQueued, To: runs.StateRunning}},
		{Type: runs.EventState, State: &runs.StateChange{From: runs.StateRunning, To: runs.StateWaiting, Waiting: runs.WaitApproval}}, // the request's own notification says it
		{Type: runs.EventApprovalAnswer, Approval: &runs.ApprovalInfo{By: "person", Allow: true}},
	} {
		if note, ok := Notice(e, info, "web"); ok {
			t.Errorf("Notice of %+v = %+v, want none", e, note)
		}
	}
}

func TestTheTitleOfANotificationNamesTheRun(t *testing.T) {
	tests := []struct {
		name string
		info runs.Info
		want string
	}{
		{"by its repository and task", runs.Info{Kind: runs.KindBuild, Prompt: "Fix the login form"}, "web · Fix the login form"},
		{"a long task is cut", runs.Info{Kind: runs.KindAsk, Prompt: "Why does the login form reject every password that has a quote in it, and only on Tuesdays?"},
			"web · Why does the login form reject every password that has a quo…"},
		{"a ready run without notes by its kind", runs.Info{Kind: runs.KindReady}, "web · ready run"},
		{"hidden characters are escaped", runs.Info{Kind: runs.KindBuild, Prompt: "Fix \u202eevil"}, `web · Fix \u202eevil`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := RunTitle("web", tt.info); got != tt.want {
				t.Errorf("RunTitle = %q, want %q", got, tt.want)
			}
		})
	}
}

// An approval's notification names the run in its title and says by when to answer: the
// request's deadline, which every countdown shows; it lasts until the request ends.
func TestTheNoticeOfAnApprovalSaysWhenToAnswerBy(t *testing.T) {
	deadline := time.Date(2026, 5, 1, 9, 10, 0, 0, time.Local)
	req := approvals.Request{
		Run:      approvals.RunInfo{ID: "r1", Kind: "build", Checkout: "/src/web", Name: "web", Prompt: "Fix the login form"},
		ToolName: "Bash", Input: json.RawMessage(`{"command":"make test"}`),
		Asked: deadline.Add(-10 * time.Minute), Deadline: deadline,
	}
	note := AskNotice(req)
	want := Note{Title: "web · Fix the login form", Body: "The build run in web wants to use Bash: make test.\nAnswer by 09:10:00, or segwi denies it.", Lasting: true}
	if note.Title != want.Title || note.Body != want.Body || !note.Lasting {
		t.Errorf("AskNotice = %+v\nwant        %+v", note, want)
	}
}

// A request whose deadline is its run's end (runs.maxDuration, before approvals.timeout)
// says so: then the run is stopped, not just the request denied.
func TestTheNoticeOfAnApprovalAtItsRunsEndSaysTheRunEnds(t *testing.T) {
	deadline := time.Date(2026, 5, 1, 9, 2, 0, 0, time.Local)
	req := approvals.Request{
		Run:      approvals.RunInfo{ID: "r1", Kind: "build", Checkout: "/src/web", Name: "web", Prompt: "Fix the login form"},
		ToolName: "Bash", Input: json.RawMessage(`{"command":"make test"}`),
		Asked: deadline.Add(-2 * time.Minute), Deadline: deadline, RunEnds: true,
	}
	want := "The build run in web wants to use Bash: make test.\nAnswer by 09:02:00, when the run ends (runs.maxDuration) and segwi denies it."
	if got := AskNotice(req).Body; got != want {
		t.Errorf("AskNotice body = %q\nwant             %q", got, want)
	}
}
