package approvals

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"testing"
	"time"
)

// fakeRun is a Run that keeps what the approvals code tells it. Its Claude Code is making
// every tool call asked about, unless the test sets toolCalls.
type fakeRun struct {
	// toolCalls answers ToolCallRunning when set.
	toolCalls func(ctx context.Context, toolUseID string) bool

	mu         sync.Mutex
	records    []Record
	pending    []int
	stops      int
	stopped    chan struct{} // closed on the first Stop
	connected  int
	callsAsked []string
}

func newFakeRun() *fakeRun { return &fakeRun{stopped: make(chan struct{})} }

func (r *fakeRun) Connected() {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.connected++
}

func (r *fakeRun) ToolCallRunning(ctx context.Context, toolUseID string) bool {
	r.mu.Lock()
	r.callsAsked = append(r.callsAsked, toolUseID)
	r.mu.Unlock()
	if r.toolCalls != nil {
		return r.toolCalls(ctx, toolUseID)
	}
	return true
}

// Connections returns how many times Connected was called.
func (r *fakeRun) Connections() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.connected
}

func (r *fakeRun) RecordApproval(rec Record) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if rec.Answer != nil {
		a := *rec.Answer
		rec.Answer = &a
	}
	r.records = append(r.records, rec)
}

func (r *fakeRun) SetPending(n int) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.pending = append(r.pending, n)
}

// Ending says yes once Stop was called, as a run being stopped does.
func (r *fakeRun) Ending() bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.stops > 0
}

func (r *fakeRun) Stop() {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.stops++
	if r.stops == 1 {
		close(r.stopped)
	}
}

func (r *fakeRun) Records() []Record {
	r.mu.Lock()
	defer r.mu.Unlock()
	return slices.Clone(r.records)
}

func (r *fakeRun) Pending() []int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return slices.Clone(r.pending)
}

func (r *fakeRun) Stops() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.stops
}

// answered returns the answered records, in order.
func (r *fakeRun) answered() []Record {
	var out []Record
	for _, rec := range r.Records() {
		if rec.Answer != nil {
			out = append(out, rec)
		}
	}
	return out
}

// person is a Decider played by the test: each request shows up on asked, and waits
// until the test answers it (by tool_use_id) or it is withdrawn.
type person struct {
	asked     chan Request
	withdrawn chan withdrawal

	mu      sync.Mutex
	replies map[string]chan reply
}

type reply struct {
	answer Answer
	err    error
}

type withdrawal struct {
	req   Request
	cause error
}

func newPerson() *person {
	return &person{
		asked:     make(chan Request, 1024),
		withdrawn: make(chan withdrawal, 1024),
		replies:   make(map[string]chan reply),
	}
}

func (p *person) replyTo(toolUseID string) chan reply {
	p.mu.Lock()
	defer p.mu.Unlock()
	ch, ok := p.replies[toolUseID]
	if !ok {
		ch = make(chan reply, 1)
		p.replies[toolUseID] = ch
	}
	return ch
}

func (p *person) Decide(ctx context.Context, req Request) (Answer, error) {
	p.asked <- req
	select {
	case r := <-p.replyTo(req.ToolUseID):
		return r.answer, r.err
	case <-ctx.Done():
		p.withdrawn <- withdrawal{req, context.Cause(ctx)}
		return Answer{}, context.Cause(ctx)
	}
}

// answer gives the person's answer to the request with toolUseID.
func (p *person) answer(toolUseID string, a Answer) { p.replyTo(toolUseID) <- reply{answer: a} }

// fail makes the Decider fail on the request with toolUseID.
func (p *person) fail(toolUseID string, err error) { p.replyTo(toolUseID) <- reply{err: err} }

// nextAsked waits for the next request put in front of the person.
func (p *person) nextAsked(t *testing.T) Request {
	t.Helper()
	select {
	case req := <-p.asked:
		return req
	case <-time.After(10 * time.Second):
		t.Fatal("no request reached the person within 10s")
		return Request{}
	}
}

// nextWithdrawn waits for the next request taken away from the person.
func (p *person) nextWithdrawn(t *testing.T) withdrawal {
	t.Helper()
	select {
	case w := <-p.withdrawn:
		return w
	case <-time.After(10 * time.Second):
		t.Fatal("no request was withdrawn from the person within 10s")
		return withdrawal{}
	}
}

// nobody is a Decider that must not be asked.
type nobody struct{ t testing.TB }

func (n nobody) Decide(ctx context.Context, req Request) (Answer, error) {
	n.t.Errorf("the Decider was asked about %s %s, want no person asked", req.ToolName, req.Input)
	return Answer{}, fmt.Errorf("unexpected request")
}

// recv waits for a value on ch.
func recv[T any](t *testing.T, ch <-chan T) T {
	t.Helper()
	select {
	case v := <-ch:
		return v
	case <-time.After(10 * time.Second):
		t.Fatal("nothing received within 10s")
		var zero T
		return zero
	}
}
