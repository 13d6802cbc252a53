package approvals_test

import (
	"context"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/segwi/segwi/approvals"
	"github.com/segwi/segwi/internal/testing/approvaltest"
	"github.com/segwi/segwi/internal/testing/await"
)

var unknownCall = approvals.Answer{
	By:      approvals.ByUnknownCall,
	Message: "denied: this request names no tool call that the run's Claude Code is making, so segwi did not put it to a person",
}

// Found by an attack on segwi: with the run's token, a local program put requests of its
// own in front of the person. A request is answered only when the run's Claude Code is
// making the tool call it names.
func TestBrokerDeniesACallClaudeCodeIsNotMaking(t *testing.T) {
	tests := []struct {
		name      string
		call      approvals.Call
		wantAsked []string // tool use ids the run was asked about
	}{
		{"a tool use id the run does not know is denied", bashCall("rm -rf build", "toolu_forged"), []string{"toolu_forged"}},
		{"a trusted command under an unknown id is denied too", bashCall("git status", "toolu_forged"), []string{"toolu_forged"}},
		{"a request without a tool use id is denied without asking the run", bashCall("rm -rf build", ""), nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b := newTestBroker(t, approvaltest.Nobody(t), time.Minute, "git status")
			run := approvaltest.NewRun()
			run.ToolCalls = func(context.Context, string) bool { return false }
			b.AddRun(approvals.RunInfo{ID: "r1"}, run)

			got := b.Ask(context.Background(), "r1", tt.call)
			if diff := cmp.Diff(unknownCall, got, cmpIgnoreWaited); diff != "" {
				t.Errorf("answer (-want +got):\n%s", diff)
			}
			recs := run.Records()
			if len(recs) != 2 || recs[0].Answer != nil || recs[1].Answer == nil || recs[1].Answer.By != approvals.ByUnknownCall {
				t.Errorf("records: got %+v, want the request then its deny by unknown-call", recs)
			}
			if got := run.Pending(); len(got) != 0 {
				t.Errorf("SetPending calls: got %v, want none: nobody was asked", got)
			}
			if !slices.Equal(run.CallsAsked(), tt.wantAsked) {
				t.Errorf("tool calls asked of the run: got %v, want %v", run.CallsAsked(), tt.wantAsked)
			}
		})
	}
}

// The run may read the line announcing a call after the call's request arrives: the
// broker waits for it, and puts the request to the person once it appears.
func TestBrokerWaitsForTheToolCallToAppear(t *testing.T) {
	p := approvaltest.NewPerson()
	b := newTestBroker(t, p, time.Minute)
	run := approvaltest.NewRun()
	appeared := make(chan struct{})
	run.ToolCalls = func(ctx context.Context, id string) bool {
		select {
		case <-appeared:
			return id == "toolu_1"
		case <-ctx.Done():
			return false
		}
	}
	b.AddRun(approvals.RunInfo{ID: "r1"}, run)

	answer := ask(b, "r1", bashCall("make", "toolu_1"))
	await.For(t, 10*time.Second, "the broker asks the run about toolu_1", func() bool {
		return len(run.CallsAsked()) == 1
	})
	close(appeared)
	p.NextAsked(t)
	p.Answer("toolu_1", approvals.Answer{Allow: true, By: approvals.ByPerson})
	if got := await.Recv(t, 10*time.Second, "the answer", answer); !got.Allow || got.By != approvals.ByPerson {
		t.Errorf("answer: got %+v, want the person's allow", got)
	}
}

// The wait for a call is bounded: by ToolCallWait, and by the run's end.
func TestBrokerWaitForAToolCallIsBounded(t *testing.T) {
	neverAppears := func(ctx context.Context, _ string) bool { <-ctx.Done(); return false }

	t.Run("a call that never appears is denied once the wait is over", func(t *testing.T) {
		b := newTestBroker(t, approvaltest.Nobody(t), time.Minute)
		const wait = 50 * time.Millisecond
		approvals.SetToolCallWait(b, wait)
		run := approvaltest.NewRun()
		run.ToolCalls = neverAppears
		b.AddRun(approvals.RunInfo{ID: "r1"}, run)
		got := b.Ask(context.Background(), "r1", bashCall("make", "toolu_late"))
		if diff := cmp.Diff(unknownCall, got, cmpIgnoreWaited); diff != "" {
			t.Errorf("answer (-want +got):\n%s", diff)
		}
		if got.Waited < wait {
			t.Errorf("answered after %s, before the wait of %s was over", got.Waited, wait)
		}
	})
	t.Run("a run that ends during the wait ends it at once", func(t *testing.T) {
		b := newTestBroker(t, approvaltest.Nobody(t), time.Minute)
		approvals.SetToolCallWait(b, time.Hour)
		run := approvaltest.NewRun()
		run.ToolCalls = neverAppears
		b.AddRun(approvals.RunInfo{ID: "r1"}, run)
		answer := ask(b, "r1", bashCall("make", "toolu_late"))
		await.For(t, 10*time.Second, "the broker asks the run about the call", func() bool {
			return len(run.CallsAsked()) == 1
		})
		b.RemoveRun("r1") // returns once the answer is recorded
		if got := await.Recv(t, 10*time.Second, "the answer", answer); got.By != approvals.ByRunEnded {
			t.Errorf("answer: got %+v, want a deny by run-ended", got)
		}
	})
}

// The answers the broker words for a run of an ACP agent name that agent, not Claude
// Code: a request for a call the agent is not making, and one the agent stopped waiting
// for (with no word of a tool-call timeout segwi gave it: an ACP agent is given none).
func TestBrokerAnswersNameTheRunsAgent(t *testing.T) {
	t.Run("a call the agent is not making", func(t *testing.T) {
		b := newTestBroker(t, approvaltest.Nobody(t), time.Minute)
		run := approvaltest.NewRun()
		run.ToolCalls = func(context.Context, string) bool { return false }
		b.AddRun(approvals.RunInfo{ID: "r1", Agent: "codex"}, run)
		got := b.Ask(context.Background(), "r1", bashCall("rm -rf build", "call_forged"))
		want := approvals.Answer{By: approvals.ByUnknownCall,
			Message: "denied: this request names no tool call that the run's codex is making, so segwi did not put it to a person"}
		if diff := cmp.Diff(want, got, cmpIgnoreWaited); diff != "" {
			t.Errorf("answer (-want +got):\n%s", diff)
		}
	})
	t.Run("a request the agent stopped waiting for", func(t *testing.T) {
		p := approvaltest.NewPerson()
		b := newTestBroker(t, p, 10*time.Minute)
		run := approvaltest.NewRun()
		b.AddRun(approvals.RunInfo{ID: "r1", Agent: "codex"}, run)
		ctx, hangUp := context.WithCancelCause(context.Background())
		answer := make(chan approvals.Answer, 1)
		go func() { answer <- b.Ask(ctx, "r1", bashCall("make test", "call_1")) }()
		p.NextAsked(t)
		hangUp(approvals.ErrWithdrawn)
		got := await.Recv(t, 10*time.Second, "the answer", answer)
		if got.By != approvals.ByCancelled || !strings.HasPrefix(got.Message, "codex stopped waiting for an answer after ") ||
			strings.Contains(got.Message, "Claude Code") || strings.Contains(got.Message, "timeout") {
			t.Errorf("answer %+v, want cancelled, saying codex stopped waiting, with no word of Claude Code or a timeout", got)
		}
	})
}
