package runs

import (
	"bufio"
	"bytes"
	"errors"
	"io"
	"time"

	"github.com/segwi/segwi/internal/lib/visible"
)

// MaxLineBytes is the longest output line read as one; a longer one is kept in
// output.log in pieces and shown as one cut output event.
const MaxLineBytes = 16 << 20

// readOutput reads the agent's output until it ends, one line at a time: it keeps each in
// output.log, and has the session parse it into events. It is the run's only reader of
// the output.
func (r *Run) readOutput(s Session) { r.readLines(s.Output(), MaxLineBytes, s.Parse) }

// parseFunc turns a line of output into events (Session.Parse).
type parseFunc func(line []byte, emit func(Event))

// A pty hands its reader at most 4 KB a read. A run that prints as fast as it can would
// have the reader wake for each 4 KB, and segwi spend more on waking it than on reading:
// once floodBytes came within floodWithin, the reader pauses for floodPause, in which the
// pty's buffer fills (up to about 64 KiB, then the agent waits to write), and reads what
// it holds without waiting in between. Output that comes more slowly is read as it comes.
const (
	floodBytes  = 64 << 10
	floodWithin = 10 * time.Millisecond
	floodPause  = 2 * time.Millisecond
)

// readLines is readOutput with lines cut in pieces once they hold maxLine bytes.
func (r *Run) readLines(out io.Reader, maxLine int, parse parseFunc) {
	br := bufio.NewReaderSize(out, 64<<10)
	var line, red []byte
	long := false // inside a line longer than MaxLineBytes
	var burst int // bytes read since burstFrom
	burstFrom := time.Now()
	for {
		if br.Buffered() == 0 && burst >= floodBytes {
			// A flood: let the pty's buffer fill before reading on (see floodPause).
			if time.Since(burstFrom) < floodWithin {
				time.Sleep(floodPause)
			}
			burst, burstFrom = 0, time.Now()
		}
		chunk, err := br.ReadSlice('\n')
		burst += len(chunk)
		if len(chunk) > 0 {
			r.touch()
		}
		switch {
		case errors.Is(err, bufio.ErrBufferFull):
			line = append(line, chunk...)
			if len(line) >= maxLine {
				line, red = r.longPiece(line, red, maxLine, !long)
				long = true
			}
			continue
		case long:
			line = append(line, chunk...)
			red = r.lines.Append(red[:0], line)
			r.rec.output(red)
			line, long = line[:0], false
		case len(chunk) > 0:
			whole := chunk
			if len(line) > 0 {
				line = append(line, chunk...)
				whole = line
			}
			red = r.lines.Append(red[:0], whole)
			r.rec.output(red)
			r.handleLine(parse, red)
			line = line[:0]
		}
		if br.Buffered() == 0 {
			// All that was read is handled, and the next read waits for more: what the
			// files buffer, the events of the line just read included, is written out now,
			// so that a window or a command reading them sees the last lines now, not with
			// the next output or the recorder's sync. That costs one write per read of the
			// pty, and nothing while the run is quiet.
			r.rec.flush()
		}
		if err != nil {
			return // io.EOF, or EIO once the pty's other side is closed: the output ended
		}
		if cap(red) > 1<<20 {
			red = nil // let a huge line's buffer go
		}
		if cap(line) > 1<<20 {
			line = nil
		}
	}
}

// eventText is an output line as events carry it: without terminal control sequences
// (ESC[?25h and the like; output.log keeps them), and redacted again when any were
// stripped, since a sequence may have parted a secret that the redaction of the raw line
// then missed.
func (r *Run) eventText(line []byte) []byte {
	text := visible.StripTerminal(line)
	if len(text) != len(line) {
		text = r.m.red.Bytes(text)
	}
	return text
}

// longLineHoldDivisor sets how much of a long line's piece is held back for the next one:
// 1/16 of the limit (1 MiB of MaxLineBytes). A secret and what marks it as one ("Bearer",
// a key's name) that fit in it are always redacted whole (see redact.Lines.AppendPiece).
const longLineHoldDivisor = 16

// longPiece writes the front of an over-long line to output.log, cut where no secret can
// be split, emits one cut output event for the line when first, and returns the rest of
// the line to go on with.
func (r *Run) longPiece(line, red []byte, maxLine int, first bool) ([]byte, []byte) {
	red, n := r.lines.AppendPiece(red[:0], line, maxLine/longLineHoldDivisor)
	r.rec.output(red)
	if first {
		e := OutputEvent(r.eventText(red[:min(len(red), MaxFieldBytes)]))
		e.Truncated = true
		e.Subtype = "long-line"
		r.emit(e, toBuffer)
	}
	rest := copy(line, line[n:])
	return line[:rest], red
}

// handleLine parses one redacted output line (newline included) into events, and tells
// the run's owner of each turn's result.
func (r *Run) handleLine(parse parseFunc, line []byte) {
	line = bytes.TrimSuffix(bytes.TrimSuffix(line, []byte("\n")), []byte("\r"))
	parse(r.eventText(line), func(e Event) {
		switch e.Type {
		case EventToolCall:
			r.calls.started(e.ToolUseID)
		case EventToolResult, EventRefusal:
			r.calls.finished(e.ToolUseID)
		}
		r.emit(e, toBuffer)
		if e.Type == EventResult {
			failed := e.Result.IsError
			r.do(func() { r.turnEnded(failed) })
		}
	})
}

// turnEnded takes a turn's result, on the run's owner: the input closes with the last
// result of a run not kept open; a kept-open run whose turn is over waits for the
// person's reply; one whose turn ended at or over its budget waits for the person to
// raise it (budget.go).
func (r *Run) turnEnded(failed bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.lastFailed = failed
	e := gotResult
	r.reached = r.budgetReachedLocked()
	if reached := r.reached; reached != "" {
		e = gotResultOver
		r.emitLocked(Event{Type: EventBudget, Subtype: "reached", Text: reached, Budget: &BudgetInfo{Budget: r.budget}}, toDisk)
	}
	r.moveInputLocked(e, "")
}
