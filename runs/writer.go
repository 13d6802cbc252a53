package runs

import (
	"fmt"
	"sync"
)

// writer writes to a run's agent what its owner decided, in that order, on a goroutine of
// its own: the messages, then the close of the input. The owner never waits for the agent
// to read; a Send waits for its own message only.
type writer struct {
	r  *Run
	to Session

	mu     sync.Mutex
	queue  []writeOp
	more   chan struct{} // there is something in queue
	closed bool          // the close is queued: nothing comes after it
}

// writeOp is one thing to write: a message, or the close of the input.
type writeOp struct {
	text    string
	close   bool
	written chan error // the write's outcome, for a Send; nil for the prompt and the close
}

// newWriter returns the writer to r's agent, which session speaks to, and starts it.
func newWriter(r *Run, session Session) *writer {
	w := &writer{r: r, to: session, more: make(chan struct{}, 1)}
	go w.run()
	return w
}

// message queues text; written gets the outcome of its write.
func (w *writer) message(text string) <-chan error {
	written := make(chan error, 1)
	w.add(writeOp{text: text, written: written})
	return written
}

// later queues text for nobody waiting on its write: what goes wrong is told in a
// status event.
func (w *writer) later(text string) { w.add(writeOp{text: text}) }

// close queues the close of the input, after every message queued before it.
func (w *writer) close() { w.add(writeOp{close: true}) }

func (w *writer) add(op writeOp) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.closed {
		if op.written != nil {
			op.written <- fmt.Errorf("writing to the input of run %s: %w", w.r.id, ErrInputClosed)
		}
		return
	}
	w.closed = op.close
	w.queue = append(w.queue, op)
	select {
	case w.more <- struct{}{}:
	default:
	}
}

// run writes what is queued until it has closed the input.
func (w *writer) run() {
	for range w.more {
		w.mu.Lock()
		ops := w.queue
		w.queue = nil
		w.mu.Unlock()
		for _, op := range ops {
			if op.close {
				w.to.CloseInput()
				w.r.do(w.r.inputShut)
				return
			}
			err := w.write(op.text)
			switch {
			case op.written != nil:
				op.written <- err
			case err != nil:
				w.r.emit(Event{Type: EventStatus, Subtype: "input", Text: err.Error()}, toFile)
			}
		}
	}
}

// write sends text to the agent as the person's message (Session.Send).
func (w *writer) write(text string) error {
	if err := w.to.Send(text); err != nil {
		return fmt.Errorf("writing to the input of run %s: %w", w.r.id, err)
	}
	w.r.touch()
	return nil
}
