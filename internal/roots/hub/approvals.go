package hub

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/segwi/segwi/approvals"
	"github.com/segwi/segwi/control"
	"github.com/segwi/segwi/settings"
	"github.com/segwi/segwi/tray"
)

// waiter is one approval request waiting for a person.
type waiter struct {
	msg    control.Approval
	answer chan control.Answer // buffered: holds the one answer
}

// Decide is the hub as the core's approvals.Decider: it hands req to the clients (starting
// a window process, whose popup shows it, when none runs), notifies the desktop, and waits
// for a client's Answer. It returns that answer, or ctx's error when ctx ends first (the
// request timed out, its run ended, Claude Code stopped waiting); either way the clients are
// told that it no longer waits. A window process that dies meanwhile does not end the
// wait: the request stays, and the next window process shows it again.
func (h *Hub) Decide(ctx context.Context, req approvals.Request) (approvals.Answer, error) {
	select {
	case <-h.ready:
	case <-ctx.Done():
		return approvals.Answer{}, ctx.Err()
	}
	w := &waiter{msg: h.approvalOf(req), answer: make(chan control.Answer, 1)}
	req.Run.Name, req.Run.Prompt = w.msg.Run.Name, w.msg.Run.Prompt // the notice names the run as the tray does
	h.mu.Lock()
	h.waiting = append(h.waiting, w)
	h.mu.Unlock()
	h.publish(w.msg)
	h.changed()
	note := &notice{}
	go h.ask(req, note)

	select {
	case a := <-w.answer:
		note.end()
		h.forget(w, control.ApprovalGone{Request: req.ID, Run: req.Run.ID, Why: control.WhyAnswered,
			Allow: a.Decision == control.Allow, By: a.By})
		return a.Approval(), nil
	case <-ctx.Done():
		note.end()
		h.forget(w, control.GoneBecause(req, context.Cause(ctx), time.Now()))
		return approvals.Answer{}, ctx.Err()
	}
}

// ask puts a new request in front of the person: its popup, in the window process (started
// when none runs), and a desktop notification (note, withdrawn once the request ends) whose
// click raises the popups. When no window can open, the log and the notification say so:
// the request then waits, as any does, until it is answered (a window opened meanwhile,
// from the menu) or times out and is denied.
func (h *Hub) ask(req approvals.Request, note *notice) {
	n := tray.AskNotice(req)
	if err := h.windows.need(); err != nil {
		h.opts.Log.Printf("approval request %s of run %s: no window could open to show it; unless one opens, it is denied when it times out at %s: %v",
			req.ID, req.Run.ID, req.Deadline.Format(time.TimeOnly), err)
		why := "see segwi's log"
		if h.windows.lostProgram() != nil {
			why = WindowsProgram + " is not installed"
		}
		n.Body += fmt.Sprintf("\n\nNo window could open to answer it (%s): unless one opens, segwi denies it when it times out.", why)
	}
	if h.opts.Notify != nil {
		n.Open = func() {
			h.Open(context.Background(), control.Show{Window: control.ShowApprovals})
		}
		note.shown(h.opts.Notify(n))
	}
}

// approvalOf is req as the clients are sent it, with the run's name and task.
func (h *Hub) approvalOf(req approvals.Request) control.Approval {
	name, prompt := settings.CheckoutName(req.Run.Checkout, h.core.Settings().Repositories), ""
	if r := h.core.Get(req.Run.ID); r != nil {
		info := r.Info()
		name, prompt = h.runName(info), info.Prompt // a worktree run by its repository's name
	}
	return control.ApprovalOf(req, name, prompt)
}

// forget takes w off the waiting list and tells the clients, with gone.
func (h *Hub) forget(w *waiter, gone control.ApprovalGone) {
	h.mu.Lock()
	h.waiting = slices.DeleteFunc(h.waiting, func(x *waiter) bool { return x == w })
	h.mu.Unlock()
	h.publish(gone)
	h.changed()
}

// errNotWaiting is the answer to an Answer for a request that no longer waits.
var errNotWaiting = errors.New("it no longer waits: it was answered already, timed out, or its run ended")

// answer hands a to the request it answers. The first answer wins, from any client; a
// later one is refused, and so is one for a request that no longer waits.
func (h *Hub) answer(a control.Answer) error {
	h.mu.Lock()
	defer h.mu.Unlock()
	for i, w := range h.waiting {
		if w.msg.Request == a.Request {
			// Off the list at once: a second answer finds nothing to answer.
			h.waiting = slices.Delete(h.waiting, i, i+1)
			w.answer <- a
			return nil
		}
	}
	return fmt.Errorf("answering approval request %s: %w", a.Request, errNotWaiting)
}

// windowEnded starts a new window process when the one that ended leaves requests
// waiting, or had run windows open (open, by run): it shows the requests again (in its
// snapshot) and opens those run windows again. Run windows are not opened again once
// window processes keep ending soon after their start (see windows.need).
func (h *Hub) windowEnded(open []string) {
	if h.pending() == 0 && len(open) == 0 {
		return
	}
	if err := h.windows.need(); err != nil {
		if h.pending() > 0 {
			h.opts.Log.Printf("no window for the approval requests waiting: %v", err)
		}
		if len(open) > 0 {
			h.opts.Log.Printf("the run windows that were open (%d) are not opened again: %v", len(open), err)
		}
		return
	}
	ctx := h.windows.context()
	for _, id := range open {
		go h.Open(ctx, control.Show{Window: control.ShowRun, Run: id})
	}
}

// pending is how many requests wait for a person.
func (h *Hub) pending() int {
	h.mu.Lock()
	defer h.mu.Unlock()
	return len(h.waiting)
}

// approvalsSnapshot is every waiting request, oldest first.
func (h *Hub) approvalsSnapshot() control.Approvals {
	h.mu.Lock()
	defer h.mu.Unlock()
	out := control.Approvals{Waiting: []control.Approval{}}
	for _, w := range h.waiting {
		out.Waiting = append(out.Waiting, w.msg)
	}
	return out
}
