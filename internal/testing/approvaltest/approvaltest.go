// Package approvaltest holds the fakes that the tests of the approvals broker and of its MCP
// server share: a Run that keeps what it is told, a person who answers when the test says,
// and Deciders that must not be asked. Only tests import it.
package approvaltest

import (
	"context"
	"errors"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/segwi/segwi/approvals"
)

// Run is an approvals.Run that keeps what the approvals code tells it. Its Claude Code is
// making every tool call asked about, unless the test sets ToolCalls.
type Run struct {
	// ToolCalls answers ToolCallRunning when set; set it before the run is added.
	ToolCalls func(ctx context.Context, toolUseID string) bool

	mu         sync.Mutex
	records    []approvals.Record
	pending    []int
	stops      int
	stopped    chan struct{} // closed on the first Stop
	connected  int
	callsAsked []string
	ends       time.Time
}

// NewRun returns a Run that has been told nothing yet.
func NewRun() *Run { return &Run{stopped: make(chan struct{})} }

// Connected counts the calls; see Connections.
func (r *Run) Connected() {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.connected++
}

// ToolCallRunning keeps toolUseID (see CallsAsked) and says yes, or what ToolCalls says.
func (r *Run) ToolCallRunning(ctx context.Context, toolUseID string) bool {
	r.mu.Lock()
	r.callsAsked = append(r.callsAsked, toolUseID)
	r.mu.Unlock()
	if r.ToolCalls != nil {
		return r.ToolCalls(ctx, toolUseID)
	}
	return true
}

// CallsAsked returns the tool use ids ToolCallRunning was asked about, in order.
func (r *Run) CallsAsked() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return slices.Clone(r.callsAsked)
}

// Connections returns how many times Connected was called.
func (r *Run) Connections() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.connected
}

// RecordApproval keeps a copy of rec; see Records.
func (r *Run) RecordApproval(rec approvals.Record) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if rec.Answer != nil {
		a := *rec.Answer
		rec.Answer = &a
	}
	r.records = append(r.records, rec)
}

// SetPending keeps n; see Pending.
func (r *Run) SetPending(n int) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.pending = append(r.pending, n)
}

// Ending says yes once Stop was called, as a run being stopped does.
func (r *Run) Ending() bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.stops > 0
}

// Ends returns what SetEnds set: the zero time (no end known) unless the test set one.
func (r *Run) Ends() time.Time {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.ends
}

// SetEnds makes Ends say that the run is to end at t, as a run's maximum duration does
// (a reload of runs.maxDuration moves it).
func (r *Run) SetEnds(t time.Time) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.ends = t
}

// Stop counts the calls; see Stops and Stopped.
func (r *Run) Stop() {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.stops++
	if r.stops == 1 {
		close(r.stopped)
	}
}

// Stopped is closed on the first Stop.
func (r *Run) Stopped() <-chan struct{} { return r.stopped }

// Records returns the records kept, in order.
func (r *Run) Records() []approvals.Record {
	r.mu.Lock()
	defer r.mu.Unlock()
	return slices.Clone(r.records)
}

// Pending returns the values SetPending was given, in order.
func (r *Run) Pending() []int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return slices.Clone(r.pending)
}

// Stops returns how many times Stop was called.
func (r *Run) Stops() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.stops
}

// Answered returns the records that carry an answer, in order.
func (r *Run) Answered() []approvals.Record {
	var out []approvals.Record
	for _, rec := range r.Records() {
		if rec.Answer != nil {
			out = append(out, rec)
		}
	}
	return out
}

// Discard is an approvals.Run that keeps nothing: its Claude Code makes every tool call
// asked about (the test does not read its output, where they would appear), and it is
// never stopped.
type Discard struct{}

// RecordApproval does nothing.
func (Discard) RecordApproval(approvals.Record) {}

// SetPending does nothing.
func (Discard) SetPending(int) {}

// Stop does nothing.
func (Discard) Stop() {}

// Connected does nothing.
func (Discard) Connected() {}

// ToolCallRunning says yes: the test's client makes up its tool calls.
func (Discard) ToolCallRunning(context.Context, string) bool { return true }

// Ending says no.
func (Discard) Ending() bool { return false }

// Ends says no end is known.
func (Discard) Ends() time.Time { return time.Time{} }

// Person is an approvals.Decider played by the test: each request shows up for NextAsked,
// and waits until the test answers it (by tool_use_id) or it is withdrawn.
type Person struct {
	asked     chan approvals.Request
	withdrawn chan Withdrawal

	mu      sync.Mutex
	replies map[string]chan reply
}

type reply struct {
	answer approvals.Answer
	err    error
}

// Withdrawal is a request taken away from the person, and why (its context's cause).
type Withdrawal struct {
	Req   approvals.Request
	Cause error
}

// NewPerson returns a Person who has been asked nothing yet.
func NewPerson() *Person {
	return &Person{
		asked:     make(chan approvals.Request, 1024),
		withdrawn: make(chan Withdrawal, 1024),
		replies:   make(map[string]chan reply),
	}
}

func (p *Person) replyTo(toolUseID string) chan reply {
	p.mu.Lock()
	defer p.mu.Unlock()
	ch, ok := p.replies[toolUseID]
	if !ok {
		ch = make(chan reply, 1)
		p.replies[toolUseID] = ch
	}
	return ch
}

// Decide waits for the test's answer to req, or for ctx to be done.
func (p *Person) Decide(ctx context.Context, req approvals.Request) (approvals.Answer, error) {
	p.asked <- req
	select {
	case r := <-p.replyTo(req.ToolUseID):
		return r.answer, r.err
	case <-ctx.Done():
		p.withdrawn <- Withdrawal{req, context.Cause(ctx)}
		return approvals.Answer{}, context.Cause(ctx)
	}
}

// Answer gives the person's answer to the request with toolUseID.
func (p *Person) Answer(toolUseID string, a approvals.Answer) {
	p.replyTo(toolUseID) <- reply{answer: a}
}

// Fail makes the Decider fail on the request with toolUseID.
func (p *Person) Fail(toolUseID string, err error) { p.replyTo(toolUseID) <- reply{err: err} }

// NextAsked waits for the next request put in front of the person.
func (p *Person) NextAsked(t testing.TB) approvals.Request {
	t.Helper()
	select {
	case req := <-p.asked:
		return req
	case <-time.After(10 * time.Second):
		t.Fatal("no request reached the person within 10s")
		return approvals.Request{}
	}
}

// NextWithdrawn waits for the next request taken away from the person.
func (p *Person) NextWithdrawn(t testing.TB) Withdrawal {
	t.Helper()
	select {
	case w := <-p.withdrawn:
		return w
	case <-time.After(10 * time.Second):
		t.Fatal("no request was withdrawn from the person within 10s")
		return Withdrawal{}
	}
}

// Nobody returns an approvals.Decider that must not be asked: a request fails t.
func Nobody(t testing.TB) approvals.Decider { return nobody{t} }

type nobody struct{ t testing.TB }

func (n nobody) Decide(ctx context.Context, req approvals.Request) (approvals.Answer, error) {
	n.t.Errorf("the Decider was asked about %s %s, want no person asked", req.ToolName, req.Input)
	return approvals.Answer{}, errors.New("unexpected request")
}

// ensure the fakes are what they stand in for.
var (
	_ approvals.Run     = (*Run)(nil)
	_ approvals.Run     = Discard{}
	_ approvals.Decider = (*Person)(nil)
)
