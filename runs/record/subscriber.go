package record

// SubscriberBuffer is how many events a subscriber may fall behind before it misses some.
const SubscriberBuffer = 1024

// A Subscriber is one channel of events whose sender never waits: what does not fit is
// counted and reported by an EventDropped event once there is room. Run.Subscribe and
// Manager.Subscribe (package runs) hand out one each; a front end that relays a run's
// events from elsewhere (the window process, from the tray) uses one the same way. Its
// owner serialises Send and Close.
type Subscriber struct {
	ch      chan Event
	dropped int
	closed  bool
}

// NewSubscriber returns a subscriber whose channel holds backlog already, with room for
// SubscriberBuffer more.
func NewSubscriber(backlog []Event) *Subscriber {
	s := &Subscriber{ch: make(chan Event, SubscriberBuffer+len(backlog))}
	for _, e := range backlog {
		s.ch <- e
	}
	return s
}

// Events is the subscriber's channel, closed by Close.
func (s *Subscriber) Events() <-chan Event { return s.ch }

// Send hands e to the subscriber without waiting; what does not fit is counted and
// reported by an EventDropped event once there is room. After Close it does nothing.
func (s *Subscriber) Send(e Event) {
	if s.closed {
		return
	}
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

// Close closes the subscriber's channel: no event comes after. A second Close does nothing.
func (s *Subscriber) Close() {
	if !s.closed {
		s.closed = true
		close(s.ch)
	}
}
