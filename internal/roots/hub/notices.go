package hub

import (
	"context"
	"sync"

	"github.com/segwi/segwi/approvals"
	"github.com/segwi/segwi/control"
	"github.com/segwi/segwi/runs"
	"github.com/segwi/segwi/tray"
)

// notifyRuns shows a desktop notification (Options.Notify) for each of events the person
// should know of (tray.Notice): a run that waits for their reply, a run that ended, an
// approval request that timed out or that Claude Code stopped waiting for. Clicking one
// opens the run's window. A run's "waits for your reply" is withdrawn once it no longer
// waits for the reply: the person replied, or the run ended.
func (h *Hub) notifyRuns(events []runs.Event) {
	if h.opts.Notify == nil {
		return
	}
	for _, e := range events {
		waitsReply := e.Type == runs.EventState && e.State != nil &&
			e.State.To == runs.StateWaiting && e.State.Waiting == runs.WaitReply
		if e.Type == runs.EventState && e.State != nil && !waitsReply {
			h.replied(e.RunID)
		}
		if !noticeable(e) {
			continue
		}
		info, err := h.runInfo(e.RunID)
		if err != nil {
			h.opts.Log.Printf("no notification for run %s: %v", e.RunID, err)
			continue
		}
		note, ok := tray.Notice(e, info, h.runName(info))
		if !ok {
			continue
		}
		id := info.ID
		note.Open = func() {
			h.Open(context.Background(), control.Show{Window: control.ShowRun, Run: id})
		}
		n := &notice{}
		if waitsReply {
			h.mu.Lock()
			old := h.replies[id]
			h.replies[id] = n
			h.mu.Unlock()
			if old != nil {
				old.end()
			}
		}
		go func() { n.shown(h.opts.Notify(note)) }()
	}
}

// replied withdraws run id's "waits for your reply", if it has one: the run moved on.
func (h *Hub) replied(id string) {
	h.mu.Lock()
	n := h.replies[id]
	delete(h.replies, id)
	h.mu.Unlock()
	if n != nil {
		n.end()
	}
}

// noticeable says whether e may be a notification, before the run's record is read.
func noticeable(e runs.Event) bool {
	switch {
	case e.Type == runs.EventState && e.State != nil:
		return e.State.To.Final() || e.State.Waiting == runs.WaitReply || e.State.Waiting == runs.WaitBudget
	case e.Type == runs.EventApprovalAnswer:
		return e.Approval != nil && (e.Approval.By == string(approvals.ByTimeout) || e.Approval.By == string(approvals.ByCancelled))
	}
	return false
}

// notice is a desktop notification the hub withdraws once what it announces is over: an
// approval request that ended, a run that no longer waits for the person's reply. It is
// shown on a goroutine of its own (the daemon may take seconds), so it may be over before
// the daemon has it: it is then withdrawn as soon as it is shown.
type notice struct {
	mu       sync.Mutex
	withdraw func() // what withdraws it, once shown
	over     bool   // what it announces is over
}

// shown takes what withdraws the notification, once the daemon has it (nil when it was not
// shown), and withdraws it at once when it is over already.
func (n *notice) shown(withdraw func()) {
	n.mu.Lock()
	over := n.over
	if !over {
		n.withdraw = withdraw
	}
	n.mu.Unlock()
	if over && withdraw != nil {
		withdraw()
	}
}

// end says that what the notification announces is over: it is withdrawn, now (on a
// goroutine of its own: end does not wait for the daemon) or once it is shown.
func (n *notice) end() {
	n.mu.Lock()
	n.over = true
	withdraw := n.withdraw
	n.withdraw = nil
	n.mu.Unlock()
	if withdraw != nil {
		go withdraw()
	}
}
