package app

import (
	"bytes"
	"errors"
	"io"
	"os"
	"time"

	"github.com/segwi/segwi/internal/lib/visible"
	"github.com/segwi/segwi/runs/record"
)

// flushEvery is how often at most a run window applies the events that arrived: a fast
// run updates the window ten times a second, not once per event.
const flushEvery = 100 * time.Millisecond

// feed reads events until the channel closes and hands them to apply in batches: the first
// event of a batch starts a timer of every, and the batch goes when it fires (or when the
// channel closes, with ended true). apply runs on feed's goroutine; it may block (the run
// window waits for Fyne), which holds back reading, so memory stays bounded: the run's
// publisher then drops events for this subscriber and says so. after makes the timer
// (time.After outside tests). received, when set, is called after each event is taken.
func feed(events <-chan record.Event, every time.Duration, after func(time.Duration) <-chan time.Time,
	received func(), apply func(batch []record.Event, ended bool)) {
	var batch []record.Event
	var due <-chan time.Time
	for {
		select {
		case e, ok := <-events:
			if !ok {
				apply(batch, true)
				return
			}
			batch = append(batch, e)
			if due == nil {
				due = after(every)
			}
			if received != nil {
				received()
			}
		case <-due:
			apply(batch, false)
			batch, due = nil, nil
		}
	}
}

// maxRawBytes bounds the raw output a run window keeps: the end of output.log.
const maxRawBytes = 256 << 10

// rawTail follows the end of a run's output.log, keeping its last maxRawBytes. Not safe
// for concurrent use: the feeder goroutine owns it.
type rawTail struct {
	path   string
	offset int64
	buf    []byte
	cut    bool // the start of the output is not kept
}

// read takes in what was appended to the file since the last read. A missing file is
// empty output.
func (r *rawTail) read() error {
	f, err := os.Open(r.path)
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return err
	}
	size := st.Size()
	if size < r.offset { // replaced; start again
		r.offset, r.buf = 0, nil
	}
	if size-r.offset > maxRawBytes {
		r.offset, r.buf, r.cut = size-maxRawBytes, nil, true
	}
	if size == r.offset {
		return nil
	}
	more := make([]byte, size-r.offset)
	n, err := f.ReadAt(more, r.offset)
	if err != nil && !errors.Is(err, io.EOF) {
		return err
	}
	r.offset += int64(n)
	r.buf = append(r.buf, more[:n]...)
	if over := len(r.buf) - maxRawBytes; over > 0 {
		r.buf, r.cut = append([]byte(nil), r.buf[over:]...), true
	}
	return nil
}

// lines returns the kept output as lines, the first saying when the start was cut.
func (r *rawTail) lines() []string {
	body := r.buf
	var out []string
	if r.cut {
		// Drop the partial first line.
		if i := bytes.IndexByte(body, '\n'); i >= 0 {
			body = body[i+1:]
		}
		out = append(out, "… (earlier output is in the run's output.log)")
	}
	body = bytes.TrimRight(body, "\n")
	if len(body) == 0 {
		return out
	}
	for _, l := range bytes.Split(body, []byte("\n")) {
		// Without the terminal's control sequences (ESC[?25h and the like), as the
		// events show it; output.log keeps them.
		text := visible.StripTerminal(l)
		if len(text) == 0 && len(l) > 0 {
			continue // escapes only
		}
		out = append(out, string(text)) // whole, to open and copy; the list shows its start
	}
	return out
}
