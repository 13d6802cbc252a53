package approvals_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/segwi/segwi/approvals"
	"github.com/segwi/segwi/internal/testing/approvaltest"
	"github.com/segwi/segwi/internal/testing/await"
)

func bashCall(command, toolUseID string) approvals.Call {
	input, _ := json.Marshal(map[string]string{"command": command})
	return approvals.Call{ToolName: "Bash", Input: input, ToolUseID: toolUseID}
}

func newTestBroker(t *testing.T, d approvals.Decider, timeout time.Duration, trusted ...string) *approvals.Broker {
	t.Helper()
	tr, err := approvals.ParseTrusted(trusted)
	if err != nil {
		t.Fatalf("ParseTrusted(%q): %v", trusted, err)
	}
	b := approvals.NewBroker(d, 0)
	b.SetPolicy(timeout, tr)
	return b
}

// ask runs Broker.Ask on its own goroutine and returns where its answer arrives.
func ask(b *approvals.Broker, runID string, call approvals.Call) <-chan approvals.Answer {
	ch := make(chan approvals.Answer, 1)
	go func() { ch <- b.Ask(context.Background(), runID, call) }()
	return ch
}

func TestBrokerTrustedCommandIsAllowedWithoutAPerson(t *testing.T) {
	b := newTestBroker(t, approvaltest.Nobody(t), time.Minute, "git status")
	run := approvaltest.NewRun()
	b.AddRun(approvals.RunInfo{ID: "r1", Kind: "build", Checkout: "/src/web"}, run)

	got := b.Ask(context.Background(), "r1", bashCall("git status --short", "toolu_1"))
	want := approvals.Answer{Allow: true, By: approvals.ByTrusted, Rule: "git status"}
	if diff := cmp.Diff(want, got, cmpIgnoreWaited); diff != "" {
		t.Errorf("answer (-want +got):\n%s", diff)
	}
	recs := run.Records()
	if len(recs) != 2 || recs[0].Answer != nil || recs[1].Answer == nil {
		t.Fatalf("records: got %+v, want the request then its answer", recs)
	}
	if recs[1].Answer.By != approvals.ByTrusted || recs[1].Answer.Rule != "git status" {
		t.Errorf("recorded answer: got %+v, want By trusted with rule %q", *recs[1].Answer, "git status")
	}
	if got := run.Pending(); len(got) != 0 {
		t.Errorf("SetPending calls: got %v, want none for a trusted answer", got)
	}
}

var cmpIgnoreWaited = cmp.FilterPath(func(p cmp.Path) bool { return p.Last().String() == ".Waited" }, cmp.Ignore())

func TestBrokerPassesOnThePersonsAnswer(t *testing.T) {
	tests := []struct {
		name     string
		person   approvals.Answer
		want     approvals.Answer
		wantStop bool
	}{
		{"an allow is an allow", approvals.Answer{Allow: true, By: approvals.ByPerson}, approvals.Answer{Allow: true, By: approvals.ByPerson}, false},
		{"an answer from another device keeps where it came from", approvals.Answer{Allow: true, By: approvals.ByPerson, Who: "phone (alice@example.com)"},
			approvals.Answer{Allow: true, By: approvals.ByPerson, Who: "phone (alice@example.com)"}, false},
		{"a deny from another device keeps it too", approvals.Answer{By: approvals.ByPerson, Who: "phone (alice@example.com)", Message: "no"},
			approvals.Answer{By: approvals.ByPerson, Who: "phone (alice@example.com)", Message: "Denied by the person at segwi: no"}, false},
		{"a deny carries the person's reason", approvals.Answer{By: approvals.ByPerson, Message: "not on main"},
			approvals.Answer{By: approvals.ByPerson, Message: "Denied by the person at segwi: not on main"}, false},
		{"a deny without a reason says none was given", approvals.Answer{By: approvals.ByPerson},
			approvals.Answer{By: approvals.ByPerson, Message: "Denied by the person at segwi: no reason given"}, false},
		{"a deny and stop interrupts and stops the run", approvals.Answer{By: approvals.ByPerson, Interrupt: true, Message: "enough"},
			approvals.Answer{By: approvals.ByPerson, Interrupt: true, Message: "Denied by the person at segwi, who also stopped the run: enough"}, true},
		{"an allow with interrupt is a deny and stop", approvals.Answer{Allow: true, Interrupt: true, By: approvals.ByPerson},
			approvals.Answer{By: approvals.ByPerson, Interrupt: true, Message: "Denied by the person at segwi, who also stopped the run: no reason given"}, true},
		{"a Decider claiming another answerer is taken as the person", approvals.Answer{By: approvals.ByTrusted, Rule: "rm", Message: "x"},
			approvals.Answer{By: approvals.ByPerson, Message: "Denied by the person at segwi: x"}, false},
		{"no terminal keeps its message and names no device", approvals.Answer{By: approvals.ByNoTerminal, Who: "phone", Message: "denied: no person was at the terminal"},
			approvals.Answer{By: approvals.ByNoTerminal, Message: "denied: no person was at the terminal"}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := approvaltest.NewPerson()
			b := newTestBroker(t, p, time.Minute)
			run := approvaltest.NewRun()
			b.AddRun(approvals.RunInfo{ID: "r1"}, run)

			answer := ask(b, "r1", bashCall("rm -rf build", "toolu_1"))
			req := p.NextAsked(t)
			if req.Run.ID != "r1" || req.ToolName != "Bash" || req.ToolUseID != "toolu_1" {
				t.Errorf("request shown: got %+v, want run r1, Bash, toolu_1", req)
			}
			if d := req.Deadline.Sub(req.Asked); d != time.Minute {
				t.Errorf("deadline: got %s after asking, want 1m0s", d)
			}
			p.Answer("toolu_1", tt.person)
			got := await.Recv(t, 10*time.Second, "the answer", answer)
			if diff := cmp.Diff(tt.want, got, cmpIgnoreWaited); diff != "" {
				t.Errorf("answer (-want +got):\n%s", diff)
			}
			if tt.wantStop {
				await.Recv(t, 10*time.Second, "the run to be stopped", run.Stopped())
			} else if n := run.Stops(); n != 0 {
				t.Errorf("Stop calls: got %d, want 0", n)
			}
			if diff := cmp.Diff([]int{1, 0}, run.Pending()); diff != "" {
				t.Errorf("SetPending values (-want +got):\n%s", diff)
			}
		})
	}
}

func TestBrokerRecordsRequestThenAnswer(t *testing.T) {
	p := approvaltest.NewPerson()
	b := newTestBroker(t, p, time.Minute)
	run := approvaltest.NewRun()
	info := approvals.RunInfo{ID: "r1", Kind: "ask", Checkout: "/src/api"}
	b.AddRun(info, run)

	answer := ask(b, "r1", bashCall("make deploy", "toolu_9"))
	p.NextAsked(t)
	p.Answer("toolu_9", approvals.Answer{By: approvals.ByPerson, Message: "no"})
	await.Recv(t, 10*time.Second, "the answer", answer)

	recs := run.Records()
	if len(recs) != 2 {
		t.Fatalf("records: got %d, want 2", len(recs))
	}
	if recs[0].Answer != nil {
		t.Errorf("first record: got answer %+v, want the bare request", *recs[0].Answer)
	}
	if diff := cmp.Diff(recs[0].Request, recs[1].Request); diff != "" {
		t.Errorf("the answer's record names another request (-first +second):\n%s", diff)
	}
	req := recs[0].Request
	if req.Run != info || req.ToolUseID != "toolu_9" || string(req.Input) != `{"command":"make deploy"}` || req.ID == "" {
		t.Errorf("recorded request: got %+v, want run %+v, toolu_9, the input and an id", req, info)
	}
	if a := recs[1].Answer; a.By != approvals.ByPerson || a.Waited <= 0 {
		t.Errorf("recorded answer: got %+v, want By person with a positive Waited", *a)
	}
}

func TestBrokerTimeoutDeniesAndSaysSo(t *testing.T) {
	p := approvaltest.NewPerson()
	b := newTestBroker(t, p, 30*time.Millisecond)
	run := approvaltest.NewRun()
	b.AddRun(approvals.RunInfo{ID: "r1"}, run)

	got := b.Ask(context.Background(), "r1", bashCall("rm -rf build", "toolu_1"))
	want := approvals.Answer{
		By: approvals.ByTimeout,
		Message: "No answer from a person within 30ms; denied by segwi's approval timeout. " +
			"The person did not decline it: ask again or do without.",
	}
	if diff := cmp.Diff(want, got, cmpIgnoreWaited); diff != "" {
		t.Errorf("answer (-want +got):\n%s", diff)
	}
	if got.Waited < 30*time.Millisecond {
		t.Errorf("Waited: got %s, want at least the 30ms timeout", got.Waited)
	}
	if w := p.NextWithdrawn(t); !errors.Is(w.Cause, approvals.ErrTimedOut) {
		t.Errorf("the Decider's context cause: got %v, want ErrTimedOut", w.Cause)
	}
}

func TestBrokerRemoveRunDeniesAndWithdrawsPending(t *testing.T) {
	p := approvaltest.NewPerson()
	b := newTestBroker(t, p, time.Hour)
	run := approvaltest.NewRun()
	b.AddRun(approvals.RunInfo{ID: "r1"}, run)

	a1 := ask(b, "r1", bashCall("one", "toolu_1"))
	a2 := ask(b, "r1", bashCall("two", "toolu_2"))
	p.NextAsked(t)
	p.NextAsked(t)
	b.RemoveRun("r1")

	// RemoveRun returns only once the answers are recorded: no waiting here.
	answered := run.Answered()
	if len(answered) != 2 {
		t.Fatalf("answers recorded when RemoveRun returned: got %d, want 2", len(answered))
	}
	for _, rec := range answered {
		if rec.Answer.By != approvals.ByRunEnded {
			t.Errorf("recorded answer to %s: got By %s, want run-ended", rec.Request.ToolUseID, rec.Answer.By)
		}
	}
	if got := run.Pending(); got[len(got)-1] != 0 {
		t.Errorf("last SetPending: got %d, want 0", got[len(got)-1])
	}
	for _, ch := range []<-chan approvals.Answer{a1, a2} {
		got := await.Recv(t, 10*time.Second, "the answer", ch)
		want := approvals.Answer{By: approvals.ByRunEnded, Message: "denied: the segwi run ended before a person answered"}
		if diff := cmp.Diff(want, got, cmpIgnoreWaited); diff != "" {
			t.Errorf("answer (-want +got):\n%s", diff)
		}
	}
	for range 2 {
		if w := p.NextWithdrawn(t); !errors.Is(w.Cause, approvals.ErrRunEnded) {
			t.Errorf("the Decider's context cause: got %v, want ErrRunEnded", w.Cause)
		}
	}
	if got := b.Ask(context.Background(), "r1", bashCall("three", "toolu_3")); got.By != approvals.ByRunEnded {
		t.Errorf("a request after the run ended: got By %s, want run-ended", got.By)
	}
	if n := len(run.Records()); n != 4 {
		t.Errorf("records: got %d, want 4 (nothing recorded after the run ended)", n)
	}
}

func TestBrokerLimitsPendingRequestsPerRun(t *testing.T) {
	p := approvaltest.NewPerson()
	b := newTestBroker(t, p, time.Hour)
	run, other := approvaltest.NewRun(), approvaltest.NewRun()
	b.AddRun(approvals.RunInfo{ID: "r1"}, run)
	b.AddRun(approvals.RunInfo{ID: "r2"}, other)

	var answers []<-chan approvals.Answer
	for i := range approvals.DefaultMaxPending {
		answers = append(answers, ask(b, "r1", bashCall("cmd", fmt.Sprint("toolu_", i))))
		p.NextAsked(t) // one at a time, so the pending counts come in order
	}
	got := b.Ask(context.Background(), "r1", bashCall("cmd", "toolu_over"))
	want := approvals.Answer{By: approvals.ByLimit, Message: "denied: this run already has 16 requests waiting for a person"}
	if diff := cmp.Diff(want, got, cmpIgnoreWaited); diff != "" {
		t.Errorf("answer over the limit (-want +got):\n%s", diff)
	}

	// Another run is not held back by the first one's full queue.
	otherAnswer := ask(b, "r2", bashCall("cmd", "toolu_other"))
	if req := p.NextAsked(t); req.Run.ID != "r2" {
		t.Errorf("request shown: got run %s, want r2", req.Run.ID)
	}
	p.Answer("toolu_other", approvals.Answer{Allow: true, By: approvals.ByPerson})
	if a := await.Recv(t, 10*time.Second, "the other run's answer", otherAnswer); !a.Allow {
		t.Errorf("the other run's answer: got %+v, want allow", a)
	}

	for i := range approvals.DefaultMaxPending {
		p.Answer(fmt.Sprint("toolu_", i), approvals.Answer{Allow: true, By: approvals.ByPerson})
		if a := await.Recv(t, 10*time.Second, "the answer", answers[i]); !a.Allow {
			t.Errorf("answer %d: got %+v, want allow", i, a)
		}
	}
	wantPending := []int{}
	for n := 1; n <= 16; n++ {
		wantPending = append(wantPending, n)
	}
	for n := 15; n >= 0; n-- {
		wantPending = append(wantPending, n)
	}
	if diff := cmp.Diff(wantPending, run.Pending()); diff != "" {
		t.Errorf("SetPending values of the full run (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]int{1, 0}, other.Pending()); diff != "" {
		t.Errorf("SetPending values of the other run (-want +got):\n%s", diff)
	}
	limited := run.Answered()[0]
	if limited.Request.ToolUseID != "toolu_over" || limited.Answer.By != approvals.ByLimit {
		t.Errorf("first answer recorded: got %s by %s, want toolu_over by limit", limited.Request.ToolUseID, limited.Answer.By)
	}
}

func TestBrokerRunsAreIndependent(t *testing.T) {
	p := approvaltest.NewPerson()
	b := newTestBroker(t, p, time.Hour)
	runs := map[string]*approvaltest.Run{"a": approvaltest.NewRun(), "b": approvaltest.NewRun()}
	for id, r := range runs {
		b.AddRun(approvals.RunInfo{ID: id}, r)
	}
	aAnswer := ask(b, "a", bashCall("cmd a", "toolu_a"))
	bAnswer := ask(b, "b", bashCall("cmd b", "toolu_b"))
	p.NextAsked(t)
	p.NextAsked(t)

	// Ending run a leaves run b's request waiting for its person.
	b.RemoveRun("a")
	if got := await.Recv(t, 10*time.Second, "run a's answer", aAnswer); got.By != approvals.ByRunEnded {
		t.Errorf("run a: got By %s, want run-ended", got.By)
	}
	p.Answer("toolu_b", approvals.Answer{By: approvals.ByPerson, Message: "b says no"})
	if got := await.Recv(t, 10*time.Second, "run b's answer", bAnswer); got.By != approvals.ByPerson || got.Message != "Denied by the person at segwi: b says no" {
		t.Errorf("run b: got %+v, want the person's deny", got)
	}
	for id, r := range runs {
		for _, rec := range r.Records() {
			if rec.Request.Run.ID != id {
				t.Errorf("run %s holds a record of run %s", id, rec.Request.Run.ID)
			}
		}
	}
}

func TestBrokerDeciderFailureDenies(t *testing.T) {
	p := approvaltest.NewPerson()
	b := newTestBroker(t, p, time.Hour)
	b.AddRun(approvals.RunInfo{ID: "r1"}, approvaltest.NewRun())
	answer := ask(b, "r1", bashCall("cmd", "toolu_1"))
	p.NextAsked(t)
	p.Fail("toolu_1", errors.New("display gone"))
	got := await.Recv(t, 10*time.Second, "the answer", answer)
	if got.Allow || got.By != approvals.ByFailure || !strings.Contains(got.Message, "display gone") {
		t.Errorf("answer: got %+v, want a deny by failure naming the error", got)
	}
}

func TestBrokerCancelledCallIsWithdrawn(t *testing.T) {
	p := approvaltest.NewPerson()
	b := newTestBroker(t, p, time.Hour)
	b.AddRun(approvals.RunInfo{ID: "r1"}, approvaltest.NewRun())
	ctx, cancel := context.WithCancel(context.Background())
	answer := make(chan approvals.Answer, 1)
	go func() { answer <- b.Ask(ctx, "r1", bashCall("cmd", "toolu_1")) }()
	p.NextAsked(t)
	cancel()
	if got := await.Recv(t, 10*time.Second, "the answer", answer); got.By != approvals.ByCancelled {
		t.Errorf("answer: got By %s, want cancelled", got.By)
	}
}

func TestBrokerUnknownRunIsDenied(t *testing.T) {
	b := newTestBroker(t, approvaltest.Nobody(t), time.Hour)
	if got := b.Ask(context.Background(), "nope", bashCall("ls", "toolu_1")); got.Allow || got.By != approvals.ByRunEnded {
		t.Errorf("answer: got %+v, want a run-ended deny", got)
	}
}

func TestBrokerAddRunTwiceFails(t *testing.T) {
	b := newTestBroker(t, approvaltest.Nobody(t), time.Hour)
	if _, err := b.AddRun(approvals.RunInfo{ID: "r1"}, approvaltest.NewRun()); err != nil {
		t.Fatalf("first AddRun: %v", err)
	}
	if _, err := b.AddRun(approvals.RunInfo{ID: "r1"}, approvaltest.NewRun()); err == nil {
		t.Error("second AddRun of r1: got no error, want one")
	}
}

// A run's Claude Code is told at its start how long to wait for an answer, and cannot be
// told otherwise while it runs: a reload that makes approvals.timeout longer must not give
// the run's requests a deadline after Claude Code has stopped waiting, while a shorter one
// applies at once.
func TestBrokerRequestsWaitNoLongerThanTheirRunsClaudeCode(t *testing.T) {
	tests := []struct {
		name     string
		reloaded time.Duration // approvals.timeout after the run started under 10m
		want     time.Duration // how long its next request may wait
	}{
		{"a longer timeout waits for the runs started after it", time.Hour, 10 * time.Minute},
		{"a shorter timeout applies at once", 2 * time.Minute, 2 * time.Minute},
		{"the same timeout changes nothing", 10 * time.Minute, 10 * time.Minute},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := approvaltest.NewPerson()
			b := newTestBroker(t, p, 10*time.Minute)
			b.AddRun(approvals.RunInfo{ID: "r1"}, approvaltest.NewRun())
			b.SetPolicy(tt.reloaded, approvals.Trusted{})
			b.AddRun(approvals.RunInfo{ID: "r2"}, approvaltest.NewRun())

			ask(b, "r1", bashCall("make test", "toolu_1"))
			if req := p.NextAsked(t); req.Deadline.Sub(req.Asked) != tt.want {
				t.Errorf("the run started under 10m: deadline %s after asking, want %s", req.Deadline.Sub(req.Asked), tt.want)
			}
			ask(b, "r2", bashCall("make test", "toolu_2"))
			if req := p.NextAsked(t); req.Deadline.Sub(req.Asked) != tt.reloaded {
				t.Errorf("the run started after the reload: deadline %s after asking, want %s", req.Deadline.Sub(req.Asked), tt.reloaded)
			}
		})
	}
}

// The timeout's deny names the wait the request really had, not the longer timeout a
// reload set meanwhile.
func TestBrokerTimeoutOfARunStartedUnderAShorterTimeoutNamesIt(t *testing.T) {
	b := newTestBroker(t, approvaltest.NewPerson(), 30*time.Millisecond)
	b.AddRun(approvals.RunInfo{ID: "r1"}, approvaltest.NewRun())
	b.SetPolicy(time.Hour, approvals.Trusted{})
	got := b.Ask(context.Background(), "r1", bashCall("rm -rf build", "toolu_1"))
	if got.By != approvals.ByTimeout || !strings.Contains(got.Message, "within 30ms") {
		t.Errorf("answer: got %+v, want the timeout's deny after 30ms", got)
	}
}

// A request that Claude Code stops waiting for is recorded as withdrawn by Claude Code's
// own timeout, with the time it waited and the wait segwi asked for: the person did not
// decline it and was not too slow for segwi.
func TestBrokerRequestClaudeCodeStoppedWaitingForSaysItsOwnTimeout(t *testing.T) {
	p := approvaltest.NewPerson()
	b := newTestBroker(t, p, 10*time.Minute)
	now := time.Now() // the deadline runs on the real clock: it must lie ahead
	var mu sync.Mutex
	approvals.SetClock(b, func() time.Time { mu.Lock(); defer mu.Unlock(); return now })
	run := approvaltest.NewRun()
	b.AddRun(approvals.RunInfo{ID: "r1"}, run)
	ctx, hangUp := context.WithCancelCause(context.Background())
	answer := make(chan approvals.Answer, 1)
	go func() { answer <- b.Ask(ctx, "r1", bashCall("make test", "toolu_1")) }()
	p.NextAsked(t)
	mu.Lock()
	now = now.Add(time.Minute)
	mu.Unlock()
	hangUp(approvals.ErrWithdrawn)

	got := await.Recv(t, 10*time.Second, "the answer", answer)
	want := approvals.Answer{By: approvals.ByCancelled, Waited: time.Minute,
		Message: "Claude Code stopped waiting for an answer after 1m0s, before a person answered: its own tool-call timeout ran out " +
			"(segwi had told it to wait 11m0s). Nobody declined it."}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("answer (-want +got):\n%s", diff)
	}
	if a := run.Answered(); len(a) != 1 || a[0].Answer.Message != want.Message {
		t.Errorf("recorded answers: got %+v, want the same", a)
	}
}

// A run's maximum duration (runs.maxDuration) ends its requests with it: a request asked
// two minutes before the run's end must not count down the whole approval timeout. Its
// deadline, shown to the person and recorded, is the run's end, and what happens then is
// what every countdown said: the request is denied because the run ended, not timed out.
func TestBrokerRequestWaitsNoLongerThanItsRun(t *testing.T) {
	p := approvaltest.NewPerson()
	b := newTestBroker(t, p, 10*time.Minute)
	run := approvaltest.NewRun()
	ends := time.Now().Add(300 * time.Millisecond)
	run.SetEnds(ends)
	b.AddRun(approvals.RunInfo{ID: "r1"}, run)

	answer := ask(b, "r1", bashCall("make deploy", "toolu_1"))
	req := p.NextAsked(t)
	if !req.Deadline.Equal(ends) || !req.RunEnds {
		t.Errorf("the person is shown the deadline %s (run's end %v), want the run's end %s, 10 minutes before the approval timeout",
			req.Deadline.Sub(req.Asked), req.RunEnds, ends.Sub(req.Asked))
	}
	got := await.Recv(t, 10*time.Second, "the answer at the run's end", answer)
	want := approvals.Answer{By: approvals.ByRunEnded,
		Message: "denied: the segwi run reached its maximum duration (runs.maxDuration) before a person answered, and is stopped"}
	if diff := cmp.Diff(want, got, cmpIgnoreWaited); diff != "" {
		t.Errorf("answer (-want +got):\n%s", diff)
	}
	if w := p.NextWithdrawn(t); !errors.Is(w.Cause, approvals.ErrRunOutOfTime) || !errors.Is(w.Cause, approvals.ErrRunEnded) {
		t.Errorf("the Decider's context cause: got %v, want ErrRunOutOfTime, an ErrRunEnded", w.Cause)
	}
	for _, rec := range run.Records() {
		if !rec.Request.Deadline.Equal(ends) || !rec.Request.RunEnds {
			t.Errorf("recorded deadline %s (run's end %v), want the run's end %s", rec.Request.Deadline, rec.Request.RunEnds, ends)
		}
	}
}

// A run's end after the approval timeout changes nothing: the request has its timeout.
func TestBrokerRunEndingAfterTheTimeoutLeavesTheTimeout(t *testing.T) {
	p := approvaltest.NewPerson()
	b := newTestBroker(t, p, 10*time.Minute)
	run := approvaltest.NewRun()
	run.SetEnds(time.Now().Add(time.Hour))
	b.AddRun(approvals.RunInfo{ID: "r1"}, run)
	ask(b, "r1", bashCall("make test", "toolu_1"))
	if req := p.NextAsked(t); req.Deadline.Sub(req.Asked) != 10*time.Minute || req.RunEnds {
		t.Errorf("deadline %s after asking (run's end %v), want the 10m timeout", req.Deadline.Sub(req.Asked), req.RunEnds)
	}
}

// A reload that makes runs.maxDuration longer while a request waits leaves the request the
// deadline it was shown: at it the request is denied, saying that its deadline was the
// run's end and has been moved, never that the run ended while it goes on.
func TestBrokerRequestAtARunsEndMovedLaterEndsAsShown(t *testing.T) {
	p := approvaltest.NewPerson()
	b := newTestBroker(t, p, 10*time.Minute)
	run := approvaltest.NewRun()
	run.SetEnds(time.Now().Add(200 * time.Millisecond))
	b.AddRun(approvals.RunInfo{ID: "r1"}, run)
	answer := ask(b, "r1", bashCall("make test", "toolu_1"))
	req := p.NextAsked(t)
	run.SetEnds(time.Now().Add(time.Hour))

	got := await.Recv(t, 10*time.Second, "the answer at the deadline shown", answer)
	if got.By != approvals.ByTimeout || !strings.Contains(got.Message, "since made longer") {
		t.Errorf("answer: got %+v, want a timeout at the deadline shown, saying the run's end moved", got)
	}
	if got.Waited < req.Deadline.Sub(req.Asked) {
		t.Errorf("answered after %s, before the deadline shown (%s)", got.Waited, req.Deadline.Sub(req.Asked))
	}
}
