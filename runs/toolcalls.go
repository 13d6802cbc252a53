package runs

import (
	"context"
	"sync"
)

// toolCalls keeps the tool calls a run's Claude Code is making, as its output announces
// them, so that the approvals server can refuse a request for a call it is not making.
type toolCalls struct {
	mu      sync.Mutex
	running map[string]bool // by tool use id: true from the call until its result
	appear  chan struct{}   // closed and replaced each time a call appears
}

// started notes that the call id appeared on the output.
func (c *toolCalls) started(id string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.running == nil {
		c.running = map[string]bool{}
	}
	c.running[id] = true
	if c.appear != nil {
		close(c.appear)
		c.appear = nil
	}
}

// finished notes that the call id has its result: it is no longer being made.
func (c *toolCalls) finished(id string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.running[id] {
		c.running[id] = false
	}
}

// wait reports whether the call id is being made, waiting for it to appear until ctx is
// done.
func (c *toolCalls) wait(ctx context.Context, id string) bool {
	for {
		c.mu.Lock()
		running, seen := c.running[id]
		if c.appear == nil {
			c.appear = make(chan struct{})
		}
		appear := c.appear
		c.mu.Unlock()
		if seen {
			return running
		}
		select {
		case <-appear:
		case <-ctx.Done():
			return false
		}
	}
}

// ToolCallRunning reports whether the run's Claude Code is making the tool call
// toolUseID: the call appeared on its output and has no result yet. Claude Code prints a
// call before it asks about it, but the request may still arrive before segwi has read
// that line, so it waits for the call to appear; it returns false when ctx is done first.
// The approvals server calls it.
func (r *Run) ToolCallRunning(ctx context.Context, toolUseID string) bool {
	return r.calls.wait(ctx, toolUseID)
}
