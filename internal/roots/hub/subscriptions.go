package hub

import (
	"context"
	"fmt"

	"github.com/segwi/segwi/control"
	"github.com/segwi/segwi/runs"
)

// maxBatchEvents bounds the events of one RunEvents message: a busy run's events go in
// messages of at most this many (and of at most control.MaxMessageBytes).
const maxBatchEvents = 256

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

// forward sends r's events to p, each burst as few messages as fit, until events is
// closed (the run ended: the last message says so) or ctx is done.
func (h *Hub) forward(ctx context.Context, p *control.Peer, r *runs.Run, events <-chan runs.Event) {
	for {
		var burst []runs.Event
		select {
		case <-ctx.Done():
			return
		case <-p.Done():
			return
		case e, ok := <-events:
			if !ok {
				h.sendEvents(p, r, nil, true)
				return
			}
			burst = append(burst, e)
		}
		ended := false
	more:
		for len(burst) < maxBatchEvents {
			select {
			case e, ok := <-events:
				if !ok {
					ended = true
					break more
				}
				burst = append(burst, e)
			default:
				break more
			}
		}
		if ctx.Err() != nil || h.sendEvents(p, r, burst, ended) != nil || ended {
			return
		}
	}
}

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
