package hub

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/segwi/segwi/control"
	"github.com/segwi/segwi/runs"
)

// How a run's events go to a client that subscribed to them: every event that says how
// the run goes (its states, approvals, prompts, turns' results, its end) as it comes, and
// of the bulk (Claude Code's text, tool calls and results, status lines, other output) the
// latest, at most ten times a second. A client that reads more slowly than the run prints
// holds the bulk back (control's Peer.AwaitRoom) and is sent the latest of it, after a note
// of how many events it was not sent: it is never cut off for a run's output, and what the
// tray sends it besides (an approval, a run's state) waits behind little.
const (
	// sendEvery is how often at most a client is sent a run's bulk events: as often as the
	// run window shows them.
	sendEvery = 100 * time.Millisecond
	// maxHeldEvents and maxHeldBytes bound the bulk events held for a client between two
	// sends: past them the older half is left out.
	maxHeldEvents = 256
	maxHeldBytes  = 512 << 10
)

// subscribe sends p the live run id's events: its backlog, then each new one, as
// RunEvents carrying the run's summary after them, until the run ends (the last message
// says so), p unsubscribes or its connection ends. A second subscription of p to the
// same run replaces the first.
func (h *Hub) subscribe(p *control.Peer, id string) error {
	r := h.live(id)
	if r == nil {
		return fmt.Errorf("run %s: %w (it has ended: its record has its events)", id, runs.ErrNotRunning)
	}
	ctx, cancel := context.WithCancel(context.Background())
	h.mu.Lock()
	if h.subs[p] == nil {
		h.subs[p] = map[string]context.CancelFunc{}
	}
	if old := h.subs[p][id]; old != nil {
		old()
	}
	h.subs[p][id] = cancel
	h.mu.Unlock()
	events, stop := r.Subscribe()
	go func() {
		defer stop()
		h.forward(ctx, p, r, events)
	}()
	return nil
}

// unsubscribe ends p's subscription to the run id, if any.
func (h *Hub) unsubscribe(p *control.Peer, id string) {
	h.mu.Lock()
	cancel := h.subs[p][id]
	delete(h.subs[p], id)
	h.mu.Unlock()
	if cancel != nil {
		cancel()
	}
}

// forward sends r's events to p, as the constants above say, until events is closed (the
// run ended: the last message says so) or ctx is done.
func (h *Hub) forward(ctx context.Context, p *control.Peer, r *runs.Run, events <-chan runs.Event) {
	held := newHeldEvents()
	go func() {
		for e := range events {
			held.add(e)
		}
		held.end()
	}()
	var last time.Time
	for {
		select {
		case <-held.more:
		case <-ctx.Done():
			return
		case <-p.Done():
			return
		}
		if wait := sendEvery - time.Since(last); wait > 0 && !held.urgent() {
			select {
			case <-time.After(wait):
			case <-ctx.Done():
				return
			case <-p.Done():
				return
			}
		}
		if p.AwaitRoom(ctx) != nil {
			return
		}
		batch, ended := held.take()
		if len(batch) == 0 && !ended {
			continue
		}
		if ctx.Err() != nil || h.sendEvents(p, r, batch, ended) != nil || ended {
			return
		}
		last = time.Now()
	}
}

// heldEvents are the events of a run that wait to be sent to one client: every event
// that is not of the run's bulk (runs.EventType.Bulk), and the latest bulk ones, the older
// left out once there are too many, each run of them replaced by one EventDropped that
// counts them. Safe for concurrent use: forward's collector adds, forward takes.
type heldEvents struct {
	more chan struct{} // holds a token once something was added or the run ended

	mu        sync.Mutex
	events    []runs.Event
	bulk      int  // bulk events in events
	bulkBytes int  // their text
	now       bool // events hold one that is not bulk: it goes without waiting
	ended     bool // the run's last event is in
}

func newHeldEvents() *heldEvents { return &heldEvents{more: make(chan struct{}, 1)} }

// add holds e, leaving out the older half of the bulk events when too many wait.
func (h *heldEvents) add(e runs.Event) {
	h.mu.Lock()
	h.events = append(h.events, e)
	switch {
	case e.Type.Bulk():
		h.bulk++
		h.bulkBytes += eventBytes(e)
		if h.bulk > maxHeldEvents || h.bulkBytes > maxHeldBytes {
			h.thin()
		}
	case e.Type != runs.EventDropped:
		h.now = true
	}
	h.mu.Unlock()
	h.signal()
}

// end notes that the run's last event is in.
func (h *heldEvents) end() {
	h.mu.Lock()
	h.ended, h.now = true, true
	h.mu.Unlock()
	h.signal()
}

func (h *heldEvents) signal() {
	select {
	case h.more <- struct{}{}:
	default:
	}
}

// urgent reports whether what is held should go without waiting for the next send.
func (h *heldEvents) urgent() bool {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.now
}

// take returns what is held, and whether the run has ended (nothing is held after).
func (h *heldEvents) take() ([]runs.Event, bool) {
	h.mu.Lock()
	defer h.mu.Unlock()
	events := h.events
	h.events, h.bulk, h.bulkBytes, h.now = nil, 0, 0, false
	return events, h.ended
}

// thin leaves out the older half of the bulk events held: each run of events left out
// (with the notes of events left out before) becomes one EventDropped that counts them,
// where the first of them was. h.mu is held.
func (h *heldEvents) thin() {
	leaveOut := h.bulk - maxHeldEvents/2
	if h.bulkBytes > maxHeldBytes {
		leaveOut = max(leaveOut, h.bulk/2)
	}
	kept := h.events[:0:0]
	for _, e := range h.events {
		n := 0
		switch {
		case e.Type == runs.EventDropped:
			n = e.Dropped
		case leaveOut > 0 && e.Type.Bulk():
			n = 1
			leaveOut--
			h.bulk--
			h.bulkBytes -= eventBytes(e)
		default:
			kept = append(kept, e)
			continue
		}
		if last := len(kept) - 1; last >= 0 && kept[last].Type == runs.EventDropped {
			kept[last].Dropped += n
			continue
		}
		kept = append(kept, runs.Event{RunID: e.RunID, Seq: e.Seq - 1, Time: e.Time, Type: runs.EventDropped, Dropped: n})
	}
	h.events = kept
}

// eventBytes is about what e weighs as a message.
func eventBytes(e runs.Event) int { return len(e.Text) + len(e.Input) + len(e.Raw) + 128 }

// sendEvents sends events of r to p, the last message with r's summary and, when ended,
// the end of the subscription.
func (h *Hub) sendEvents(p *control.Peer, r *runs.Run, events []runs.Event, ended bool) error {
	info := r.Info()
	batches := control.BatchEvents(r.ID(), events, 0)
	if len(batches) == 0 {
		batches = []control.RunEvents{{Run: r.ID()}}
	}
	now := control.RunOf(info, h.runName(info))
	last := &batches[len(batches)-1]
	last.Now, last.Ended = &now, ended
	for _, b := range batches {
		if err := p.Send(b); err != nil {
			return err
		}
	}
	return nil
}
