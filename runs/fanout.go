package runs

import (
	"time"
)

// emit records and publishes e; sync forces events.jsonl to disk.
func (r *Run) emit(e Event, sync bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.emitLocked(e, sync)
}

// backlogMax bound what a late subscriber is given of the past: the last events up to
// this many bytes of text. The whole past is in events.jsonl (ReadEvents).
const (
	backlogMaxEvents = 256
	backlogMaxBytes  = 2 << 20
)

func (r *Run) emitLocked(e Event, sync bool) {
	if r.ended {
		return
	}
	r.seq++
	e.RunID, e.Seq, e.Time = r.id, r.seq, time.Now()
	cutFields(&e)
	r.rec.event(&e, sync)
	for s := range r.subs {
		s.send(e)
	}
	if e.Type == EventState {
		r.m.publish(e)
	}
	size := len(e.Text) + len(e.Input) + len(e.Raw) + 128
	r.backlog = append(r.backlog, e)
	r.backlogSize += size
	for len(r.backlog) > 1 && (len(r.backlog) > backlogMaxEvents || r.backlogSize > backlogMaxBytes) {
		old := r.backlog[0]
		r.backlogSize -= len(old.Text) + len(old.Input) + len(old.Raw) + 128
		r.backlog[0] = Event{}
		r.backlog = r.backlog[1:]
	}
}

// Subscribe returns a channel of the run's events: the most recent past ones (up to 256,
// see ReadEvents for all of them), then each new one as it happens. The channel is closed
// after the run's last event, or when cancel is called. A subscriber that falls more than
// 1024 events behind misses events and is told so by an EventDropped event; publishing
// never waits for a subscriber.
func (r *Run) Subscribe() (events <-chan Event, cancel func()) {
	r.mu.Lock()
	defer r.mu.Unlock()
	s := &subscriber{ch: make(chan Event, subscriberBuffer+len(r.backlog))}
	for _, e := range r.backlog {
		s.ch <- e
	}
	if r.ended {
		close(s.ch)
		return s.ch, func() {}
	}
	if r.subs == nil {
		r.subs = map[*subscriber]struct{}{}
	}
	r.subs[s] = struct{}{}
	return s.ch, func() {
		r.mu.Lock()
		defer r.mu.Unlock()
		if _, ok := r.subs[s]; ok {
			delete(r.subs, s)
			close(s.ch)
		}
	}
}

const subscriberBuffer = 1024

type subscriber struct {
	ch      chan Event
	dropped int
}

// send hands e to the subscriber without waiting; what does not fit is counted and
// reported by an EventDropped event once there is room.
func (s *subscriber) send(e Event) {
	if s.dropped > 0 {
		select {
		case s.ch <- Event{RunID: e.RunID, Seq: e.Seq - 1, Time: e.Time, Type: EventDropped, Dropped: s.dropped}:
			s.dropped = 0
		default:
			s.dropped++
			return
		}
	}
	select {
	case s.ch <- e:
	default:
		s.dropped++
	}
}

// Subscribe returns a channel of every run's state events (Event.Type EventState, with
// RunID), for a tray that shows the runs and their states. It is closed by cancel. A
// subscriber that falls 1024 events behind misses some and gets an EventDropped event.
func (m *Manager) Subscribe() (events <-chan Event, cancel func()) {
	s := &subscriber{ch: make(chan Event, subscriberBuffer)}
	m.subMu.Lock()
	if m.subs == nil {
		m.subs = map[*subscriber]struct{}{}
	}
	m.subs[s] = struct{}{}
	m.subMu.Unlock()
	return s.ch, func() {
		m.subMu.Lock()
		defer m.subMu.Unlock()
		if _, ok := m.subs[s]; ok {
			delete(m.subs, s)
			close(s.ch)
		}
	}
}

func (m *Manager) publish(e Event) {
	m.subMu.Lock()
	defer m.subMu.Unlock()
	for s := range m.subs {
		s.send(e)
	}
}
