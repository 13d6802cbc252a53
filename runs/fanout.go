package runs

import (
	"time"

	"github.com/segwi/segwi/approvals"
)

// emit records e as far as reach (the reader's events toBuffer, segwi's own toFile or,
// for what must outlive a power cut, toDisk) and publishes it.
func (r *Run) emit(e Event, reach reach) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.emitLocked(e, reach)
}

// backlogMaxEvents and backlogMaxBytes bound what a late subscriber is given of the past: the last events up to
// this many bytes of text. The whole past is in events.jsonl (ReadEvents).
const (
	backlogMaxEvents = 256
	backlogMaxBytes  = 2 << 20
)

// emitLocked is emit with r.mu held. An event after the run ended is dropped: its record
// is closed. One while the run is ending is held back from subscribers (see phaseEnding).
func (r *Run) emitLocked(e Event, reach reach) {
	if r.phase == phaseEnded {
		return
	}
	r.seq++
	e.RunID, e.Seq, e.Time = r.id, r.seq, time.Now()
	cutFields(&e)
	r.info.Note(&e)
	r.rec.event(&e, reach)
	if r.phase == phaseEnding {
		r.held = append(r.held, e)
		return
	}
	r.fanOutLocked(e)
}

// fanOutLocked hands a recorded event to the run's subscribers, the Manager's (when
// notable) and the backlog a late subscriber starts from. r.mu is held.
func (r *Run) fanOutLocked(e Event) {
	r.subs.send(e)
	if notable(e) {
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

// tellEnd hands the events held while the run was ending to its subscribers, the last
// its final state, and closes their channels: nothing comes after.
func (r *Run) tellEnd() {
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, e := range r.held {
		r.fanOutLocked(e)
	}
	r.held = nil
	r.subs.closeAll()
}

// Subscribe returns a channel of the run's events: the most recent past ones (up to 256,
// see ReadEvents for all of them), then each new one as it happens. The channel is closed
// after the run's last event, or when cancel is called. A subscriber that falls more than
// 1024 events behind misses events and is told so by an EventDropped event; publishing
// never waits for a subscriber.
func (r *Run) Subscribe() (events <-chan Event, cancel func()) {
	r.mu.Lock()
	defer r.mu.Unlock()
	s := NewSubscriber(r.backlog)
	if r.phase == phaseEnded && r.held == nil { // ended, and its last events told
		s.Close()
		return s.Events(), func() {}
	}
	r.subs.add(s)
	return s.Events(), func() {
		r.mu.Lock()
		defer r.mu.Unlock()
		r.subs.remove(s)
	}
}

// Subscribe returns a channel of every run's notable events (with RunID; see notable):
// its state changes and each turn's usage (EventUsage), for a tray that shows the runs,
// their states and the day's spend, and what a front end notifies the person of. A run waiting for the person's reply is a state change to
// StateWaiting with StateChange.Waiting WaitReply; a run that ended, one to a final state;
// an approval that timed out, an EventApprovalAnswer whose Approval.By is "timeout", and
// one that Claude Code stopped waiting for, whose Approval.By is "cancelled". The
// channel is closed by cancel. A subscriber that falls 1024 events behind misses some and
// gets an EventDropped event.
func (m *Manager) Subscribe() (events <-chan Event, cancel func()) {
	m.subMu.Lock()
	defer m.subMu.Unlock()
	s := NewSubscriber(nil)
	m.subs.add(s)
	return s.Events(), func() {
		m.subMu.Lock()
		defer m.subMu.Unlock()
		m.subs.remove(s)
	}
}

// notable says whether e goes to the Manager's subscribers: a state change, a turn's
// usage, or an approval that timed out or that Claude Code stopped waiting for.
func notable(e Event) bool {
	return e.Type == EventState || e.Type == EventUsage ||
		e.Type == EventApprovalAnswer && e.Approval != nil &&
			(e.Approval.By == string(approvals.ByTimeout) || e.Approval.By == string(approvals.ByCancelled))
}

// publish hands a run's notable event to the Manager's subscribers.
func (m *Manager) publish(e Event) {
	m.subMu.Lock()
	defer m.subMu.Unlock()
	m.subs.send(e)
}

// subscribers are the subscribers of one run's events, or of the Manager's state events.
// Their owner's lock guards them.
type subscribers map[*Subscriber]struct{}

// add adds s.
func (ss *subscribers) add(s *Subscriber) {
	if *ss == nil {
		*ss = subscribers{}
	}
	(*ss)[s] = struct{}{}
}

// remove removes s and closes its channel; a subscriber already removed is left alone.
func (ss subscribers) remove(s *Subscriber) {
	if _, ok := ss[s]; ok {
		delete(ss, s)
		s.Close()
	}
}

// send hands e to every subscriber, without waiting for any.
func (ss subscribers) send(e Event) {
	for s := range ss {
		s.Send(e)
	}
}

// closeAll closes every subscriber's channel and removes them all: no event comes after.
func (ss *subscribers) closeAll() {
	for s := range *ss {
		s.Close()
	}
	*ss = nil
}
