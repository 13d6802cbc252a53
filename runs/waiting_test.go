package runs

import (
	"context"
	"errors"
	"slices"
	"testing"
	"time"

	"github.com/segwi/segwi/approvals"
	"github.com/segwi/segwi/internal/testing/await"
)

func TestWhatARunWaitsFor(t *testing.T) {
	tests := []struct {
		name     string
		pending  int
		keepOpen bool
		events   []inputEvent // what happened to its input since the start
		want     WaitReason
	}{
		{"a run in its turn waits for nothing", 0, true, []inputEvent{sendPrompt}, ""},
		{"a kept-open run whose turn is over waits for your reply", 0, true, []inputEvent{sendPrompt, gotResult}, WaitReply},
		{"and again after a follow-up's result", 0, true, []inputEvent{sendPrompt, gotResult, sendFollowUp, gotResult}, WaitReply},
		{"a follow-up sent puts it back to work", 0, true, []inputEvent{sendPrompt, gotResult, sendFollowUp}, ""},
		{"a run that is not kept open waits for nobody's reply", 0, false, []inputEvent{sendPrompt, gotResult}, ""},
		{"a run whose input is closed waits for no reply", 0, true, []inputEvent{sendPrompt, gotResult, closeAsked}, ""},
		{"a run that has sent nothing yet waits for nothing", 0, true, nil, ""},
		{"a pending approval is waited for", 1, false, []inputEvent{sendPrompt}, WaitApproval},
		{"a pending approval comes before a reply", 2, true, []inputEvent{sendPrompt, gotResult}, WaitApproval},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := waitFor(tt.pending, inputAfter(tt.keepOpen, tt.events...)); got != tt.want {
				t.Errorf("waitFor = %q, want %q", got, tt.want)
			}
		})
	}
}

// A kept-open run (the tray app's) whose turn is over says it waits for your reply, apart
// from waiting for an approval; a follow-up puts it back to running; closing its input
// ends it. The Manager's subscribers see each move.
func TestAKeptOpenRunSaysItWaitsForYourReply(t *testing.T) {
	m, _ := testManager(t, nil)
	states, cancel := m.Subscribe()
	defer cancel()
	r := start(t, m, Spec{Prompt: "fake:success", KeepOpen: true})
	waitingForYou := func() bool {
		info := r.Info()
		return info.State == StateWaiting && info.Waiting == WaitReply && info.Reason == "waiting for your reply"
	}
	await.For(t, 10*time.Second, "the run to wait for your reply after its first result", waitingForYou)
	if loaded, err := Load(m.config().StateDir, r.ID()); err != nil || loaded.Waiting != WaitReply {
		t.Errorf("run.json says waiting %q (%v), want reply", loaded.Waiting, err)
	}
	// The follow-up puts it back to running: the subscribers' moves below show it (a look
	// at Info after Send can come after the fake's quick answer, and see it waiting again).
	if err := r.Send("and now this"); err != nil {
		t.Fatalf("Send: %v", err)
	}
	await.For(t, 10*time.Second, "the run to wait for your reply after the follow-up's result", waitingForYou)
	r.CloseInput()
	if info := wait(t, r); info.State != StateSucceeded || info.Waiting != "" {
		t.Errorf("ended %s (%s) waiting %q, want succeeded", info.State, info.Reason, info.Waiting)
	}

	var moves []string
	for len(moves) == 0 || moves[len(moves)-1] != string(StateSucceeded) {
		select {
		case e := <-states:
			if e.RunID == r.ID() && e.Type == EventState {
				moves = append(moves, string(e.State.To)+"/"+string(e.State.Waiting))
				if e.State.To.Final() {
					moves[len(moves)-1] = string(e.State.To)
				}
			}
		case <-time.After(10 * time.Second):
			t.Fatalf("the Manager's subscribers saw %v, and no end", moves)
		}
	}
	want := []string{"queued/", "starting/", "running/", "waiting/reply", "running/", "waiting/reply", "running/", "succeeded"}
	if !slices.Equal(moves, want) {
		t.Errorf("state moves = %v\nwant          %v", moves, want)
	}
}

// A run that is not kept open (segwi run) never waits for a reply: its input closes with
// its last result.
func TestARunThatIsNotKeptOpenNeverWaitsForAReply(t *testing.T) {
	m, _ := testManager(t, nil)
	r := start(t, m, Spec{Prompt: "fake:success"})
	info := wait(t, r)
	for _, e := range events(t, m, info.ID) {
		if e.Type == EventState && e.State.Waiting != "" {
			t.Errorf("state event %+v: a run that is not kept open waited for %q", e.State, e.State.Waiting)
		}
	}
}

// An approval that timed out reaches the Manager's subscribers, typed, for a front end to
// notify the person; one a person answered does not.
func TestAnApprovalThatTimedOutIsPublished(t *testing.T) {
	r := bareRun(t, t.TempDir())
	t.Cleanup(func() { r.rec.close() })
	notices, cancel := r.m.Subscribe()
	defer cancel()
	req := approvals.Request{ID: "q1", ToolName: "Bash", ToolUseID: "toolu_1"}
	r.RecordApproval(approvals.Record{Request: req, Answer: &approvals.Answer{Allow: true, By: approvals.ByPerson}})
	r.RecordApproval(approvals.Record{Request: req, Answer: &approvals.Answer{By: approvals.ByTimeout, Message: "no answer", Waited: time.Minute}})
	select {
	case e := <-notices:
		if e.Type != EventApprovalAnswer || e.Approval.By != "timeout" || e.Approval.RequestID != "q1" || e.ToolName != "Bash" {
			t.Errorf("published %+v (%+v), want the timed-out answer of q1", e, e.Approval)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("the timed-out answer was not published")
	}
	ctx, stop := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer stop()
	select {
	case e := <-notices:
		t.Errorf("also published %+v", e)
	case <-ctx.Done():
	}
}

func TestAListSaysWhatAWaitingRunWaitsFor(t *testing.T) {
	for _, tt := range []struct {
		info Info
		want string
	}{
		{Info{State: StateRunning}, "running"},
		{Info{State: StateWaiting, Waiting: WaitReply}, "waiting for your reply"},
		{Info{State: StateWaiting, Waiting: WaitApproval}, "waiting for approval"},
		{Info{State: StateWaiting, Waiting: WaitBudget}, "budget reached"},
		{Info{State: StateWaiting}, "waiting for approval"}, // recorded by an older segwi
		{Info{State: StateTimedOut}, "timed-out"},
	} {
		if got := tt.info.StateText(); got != tt.want {
			t.Errorf("StateText of %s/%q = %q, want %q", tt.info.State, tt.info.Waiting, got, tt.want)
		}
	}
}

// Finish on a kept-open run still in the queue is not lost: once it starts, Claude Code
// does its one turn and the run ends, without waiting for a reply until the idle timeout.
func TestAQueuedKeptOpenRunFinishedBeforeItStartsEndsAfterItsTurn(t *testing.T) {
	m, recDir := testManager(t, func(c *Config) { c.MaxConcurrent = 1 })
	hold, open := release(t)
	first := start(t, m, Spec{Prompt: "fake:hold=" + hold})
	queued := start(t, m, Spec{Prompt: "fake:success", KeepOpen: true})
	waitStart(t, recDir, first.ID())
	queued.CloseInput()
	open()
	wait(t, first)
	if info := wait(t, queued); info.State != StateSucceeded || info.Waiting != "" {
		t.Errorf("the run finished while queued ended %s (%s) waiting %q, want succeeded after its turn", info.State, info.Reason, info.Waiting)
	}
}

// A run's end reaches its subscribers once the run is no longer live: a window that
// commits or pushes the moment it sees "succeeded" finds the run's folder free. The hub
// did just that, and got "the run is still going" now and then: the final state went out
// before the record was closed and the folder's lock released.
func TestARunsEndIsToldOnceItsFolderIsFree(t *testing.T) {
	m, _ := testManager(t, nil)
	for i := range 5 {
		states, cancel := m.Subscribe()
		r := start(t, m, Spec{Prompt: "fake:success"})
		mine, cancelMine := r.Subscribe()
		for e := range states {
			if e.RunID == r.ID() && e.Type == EventState && e.State.To.Final() {
				break
			}
		}
		cancel()
		if _, err := KillLeftovers(m.config().StateDir, r.ID()); errors.Is(err, ErrRunLive) {
			t.Fatalf("run %d: the Manager's subscribers were told of its end while it was live: %v", i, err)
		}
		for e := range mine {
			if e.Type == EventState && e.State.To.Final() {
				break
			}
		}
		cancelMine()
		if _, err := AppendEvent(m.config().StateDir, r.ID(), Event{Type: EventStatus, Text: "after the end"}); errors.Is(err, ErrRunLive) {
			t.Fatalf("run %d: the run's own subscribers were told of its end while it was live: %v", i, err)
		}
	}
}
