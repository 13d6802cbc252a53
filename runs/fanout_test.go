package runs

import (
	"strconv"
	"testing"
)

// emitTexts emits n text events on r, numbered from first.
func emitTexts(r *Run, first, n int) {
	for i := range n {
		r.emit(Event{Type: EventText, Text: "line " + strconv.Itoa(first+i)}, toFile)
	}
}

// receive takes n events off ch, failing the test when fewer are there.
func receive(t *testing.T, ch <-chan Event, n int) []Event {
	t.Helper()
	var got []Event
	for range n {
		select {
		case e, ok := <-ch:
			if !ok {
				t.Fatalf("the channel closed after %d events, want %d", len(got), n)
			}
			got = append(got, e)
		default:
			t.Fatalf("%d events waiting, want %d", len(got), n)
		}
	}
	return got
}

func TestALateSubscriberGetsTheRecentPastThenWhatComes(t *testing.T) {
	r := bareRun(t, t.TempDir())
	defer r.rec.close()
	emitTexts(r, 1, backlogMaxEvents+44)
	events, cancel := r.Subscribe()
	defer cancel()
	past := receive(t, events, backlogMaxEvents)
	if first, last := past[0].Seq, past[len(past)-1].Seq; first != 45 || last != backlogMaxEvents+44 {
		t.Errorf("the past given runs from seq %d to %d, want the last %d: 45 to %d", first, last, backlogMaxEvents, backlogMaxEvents+44)
	}
	emitTexts(r, 1000, 1)
	if next := receive(t, events, 1)[0]; next.Text != "line 1000" {
		t.Errorf("the next event = %q, want the one emitted after subscribing", next.Text)
	}
}

func TestASlowSubscriberIsToldHowManyEventsItMissed(t *testing.T) {
	r := bareRun(t, t.TempDir())
	defer r.rec.close()
	events, cancel := r.Subscribe()
	defer cancel()
	emitTexts(r, 1, subscriberBuffer+10) // nobody reads: the last 10 do not fit
	receive(t, events, subscriberBuffer)
	emitTexts(r, 5000, 1)
	got := receive(t, events, 2)
	if got[0].Type != EventDropped || got[0].Dropped != 10 {
		t.Errorf("after a full channel, got %s (dropped %d), want a dropped event counting 10", got[0].Type, got[0].Dropped)
	}
	if got[1].Text != "line 5000" {
		t.Errorf("then %q, want the new event", got[1].Text)
	}
}

func TestTheManagerPublishesEveryRunsStateChanges(t *testing.T) {
	r := bareRun(t, t.TempDir())
	defer r.rec.close()
	states, cancel := r.m.Subscribe()
	defer cancel()
	r.mu.Lock()
	r.setStateLocked(StateRunning, "")
	r.mu.Unlock()
	emitTexts(r, 1, 3)
	got := receive(t, states, 1)[0]
	if got.Type != EventState || got.RunID != r.ID() || got.State.To != StateRunning {
		t.Errorf("the Manager's subscriber got %+v, want the run's move to running", got)
	}
	if extra := len(states); extra != 0 {
		t.Errorf("the Manager's subscriber got %d more events, want only state changes", extra)
	}
	cancel()
	if _, open := <-states; open {
		t.Errorf("the channel is open after cancel")
	}
}

func TestSubscribersAreClosedAfterTheRunsLastEvent(t *testing.T) {
	r := bareRun(t, t.TempDir())
	events, cancel := r.Subscribe()
	defer cancel()
	emitTexts(r, 1, 2)
	r.finish(StateSucceeded, "", nil)
	var last Event
	for e := range events {
		last = e
	}
	if last.Type != EventState || last.State.To != StateSucceeded {
		t.Errorf("the last event before the close = %+v, want the move to succeeded", last)
	}
	late, cancelLate := r.Subscribe()
	defer cancelLate()
	n := 0
	for range late {
		n++
	}
	if n != 3 {
		t.Errorf("a subscriber after the end got %d events, want the 3 of the past, then a closed channel", n)
	}
	r.emit(Event{Type: EventText, Text: "too late"}, toFile)
	if got := len(r.backlog); got != 3 {
		t.Errorf("an event after the end was kept: %d events, want 3", got)
	}
}

// A subscriber that comes while the run ends, after its final state was recorded and
// before it was told, gets that state like the others: its channel is not closed on it
// before the end it waits for.
func TestASubscriberWhileTheRunEndsGetsItsEnd(t *testing.T) {
	r := bareRun(t, t.TempDir())
	defer r.rec.close()
	emitTexts(r, 1, 2)
	r.mu.Lock()
	r.stepLocked(onEnding, "", "")
	r.setStateLocked(StateSucceeded, "")
	r.stepLocked(onEnded, "", "")
	r.mu.Unlock()
	events, cancel := r.Subscribe()
	defer cancel()
	r.tellEnd()
	var last Event
	n := 0
	for e := range events {
		last = e
		n++
	}
	if n != 3 || last.Type != EventState || last.State.To != StateSucceeded {
		t.Errorf("got %d events ending with %+v, want the 2 texts, then the move to succeeded, then a closed channel", n, last)
	}
}
