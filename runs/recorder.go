package runs

import (
	"bufio"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"syscall"
	"time"
)

// MaxOutputBytes caps output.log; what comes after is not kept there (the events are).
const MaxOutputBytes = 64 << 20

// outputCutMarker ends an output.log that reached MaxOutputBytes.
const outputCutMarker = "\n[segwi: output.log reached its 64 MiB cap here; the rest of the output is not kept in this file, events.jsonl has the events]\n"

// MaxEventsBytes caps what events.jsonl holds of a run's bulk (EventType.Bulk: Claude
// Code's text, its tool calls and their results, status lines, other output). The first
// bulk event past it is recorded as an EventCapped that says so; after it, only what says
// how the run goes is recorded: its states, approvals and their answers, the prompts,
// the turns' results, refusals, its exit and segwi's own events. The live events go on
// whole to the run's subscribers.
const MaxEventsBytes = 64 << 20

// eventsCapText is the text of the EventCapped event.
const eventsCapText = "events.jsonl reached its 64 MiB cap here: from here on it records the run's states, " +
	"approvals, prompts, turns' results, refusals and end, not Claude Code's text, tool calls and results, " +
	"status lines or other output (the live events showed them)"

// syncEvery is how soon what a run writes reaches the disk while it prints: a timer armed
// by the first write after a sync syncs what was written since, syncEvery after that sync.
// What a person must never lose is synced at once (a run's first and final states, each
// approval request and its answer); the rest, Claude Code's text, tool calls and output,
// waits at most this long, which is what a power cut can take of it. It was a second: a
// run at work (three events every half second) then cost segwi's process 1.7 to 1.9 ms of
// CPU and 37 to 40 context switches a second, against 1.2 to 1.5 ms and 17 to 21 now
// (TestARunAtWorkCostsSegwiLittleASecond): two fsyncs a second, each a system call that
// blocks for a few hundred microseconds, and Go's sysmon thread polls every 20 µs while it
// blocks.
const syncEvery = 5 * time.Second

// recorder appends a run's events and output to its folder. It is safe for concurrent
// use: the reader goroutine, the approvals server and the run's state changes all write.
type recorder struct {
	dir string

	mu       sync.Mutex
	events   *os.File
	ew       *bufio.Writer
	out      *os.File
	ow       *bufio.Writer
	evN      int64 // bytes written to events.jsonl
	maxEv    int64 // MaxEventsBytes; tests lower it
	evCut    bool  // events.jsonl reached its cap for the bulk
	outN     int64 // bytes written to output.log
	outCut   bool  // output.log reached its cap
	dirty    bool  // written since the last sync
	evDirty  bool  // events.jsonl written since its last sync
	outDirty bool  // output.log written since its last sync
	lastSync time.Time
	every    time.Duration  // syncEvery; tests lower it
	buf      []byte         // the event being written
	syncing  sync.WaitGroup // fsyncs running without mu; close waits for them
	// syncLater syncs what was written syncEvery after the last sync: armed by the first
	// write after a sync, so that a quiet run's record wakes nobody.
	syncLater *time.Timer
	err       error // the first write error; the run goes on, and it is reported at the end
	closed    bool
}

// openRecorder opens (creating) the events and output files of the run folder dir.
func openRecorder(dir string) (*recorder, error) {
	open := func(name string) (*os.File, error) {
		return os.OpenFile(filepath.Join(dir, name), os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o600)
	}
	ev, err := open(eventsFile)
	if err != nil {
		return nil, fmt.Errorf("creating run record: %w", err)
	}
	out, err := open(outputFile)
	if err != nil {
		ev.Close()
		return nil, fmt.Errorf("creating run record: %w", err)
	}
	return &recorder{
		dir: dir, events: ev, out: out,
		ew: bufio.NewWriterSize(ev, 64<<10), ow: bufio.NewWriterSize(out, 64<<10),
		lastSync: time.Now(), every: syncEvery, maxEv: MaxEventsBytes,
	}, nil
}

// reach is how far the recorder takes an event at once.
type reach int

const (
	// toBuffer: into the recorder's buffer, written out with the next flush (the reader's
	// events, in a flood) and synced within syncEvery.
	toBuffer reach = iota
	// toFile: into events.jsonl, where other processes read it (segwi runs events, a
	// window opening on the run), and synced within syncEvery.
	toFile
	// toDisk: synced at once (a run's first and final states, an approval and its
	// answer), with what was written before it.
	toDisk
)

// event appends e to events.jsonl, up to its cap for the bulk (MaxEventsBytes), as far as
// reach.
func (r *recorder) event(e *Event, reach reach) {
	r.mu.Lock()
	defer r.mu.Unlock()
	bulk := e.Type.Bulk()
	if r.closed || r.evCut && bulk {
		return
	}
	b, err := e.AppendJSON(r.buf[:0])
	if err == nil && bulk && r.evN+int64(len(b))+1 > r.maxEv {
		r.evCut = true
		b, err = (&Event{RunID: e.RunID, Seq: e.Seq, Time: e.Time, Type: EventCapped, Text: eventsCapText}).AppendJSON(b[:0])
	}
	r.buf = b
	if err != nil {
		r.fail(fmt.Errorf("recording event %d: %w", e.Seq, err))
		return
	}
	b = append(b, '\n')
	n, err := r.ew.Write(b)
	r.evN += int64(n)
	if err != nil {
		r.fail(err)
	}
	r.evDirty = true
	r.written()
	switch reach {
	case toFile:
		if err := r.ew.Flush(); err != nil {
			r.fail(err)
		}
	case toDisk:
		r.syncLocked()
	}
}

// output appends redacted pty bytes to output.log, up to MaxOutputBytes.
func (r *recorder) output(b []byte) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.closed || r.outCut {
		return
	}
	if room := MaxOutputBytes - r.outN; int64(len(b)) > room {
		b = b[:room]
		r.outCut = true
	}
	n, err := r.ow.Write(b)
	r.outN += int64(n)
	if err != nil {
		r.fail(err)
	}
	if r.outCut {
		r.ow.WriteString(outputCutMarker)
	}
	r.outDirty = true
	r.written()
}

// written notes that something was written, and makes sure it reaches the disk within
// syncEvery of the last sync. r.mu is held.
func (r *recorder) written() {
	if r.dirty {
		return // a sync is due already
	}
	r.dirty = true
	wait := r.every - time.Since(r.lastSync)
	if r.syncLater == nil {
		r.syncLater = time.AfterFunc(wait, r.syncIfDirty)
	} else {
		r.syncLater.Reset(wait)
	}
}

// flush writes out what the files buffer, without syncing them: readers in other
// processes then see it.
func (r *recorder) flush() {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.closed {
		return
	}
	for _, w := range []*bufio.Writer{r.ew, r.ow} {
		if err := w.Flush(); err != nil {
			r.fail(err)
		}
	}
}

// syncIfDirty flushes and syncs when something was written since the last sync: the
// timer that the first write after a sync arms calls it syncEvery after that sync, so that
// events reach the disk at least that often while they flow, and nothing wakes while none
// do. The fsync itself runs without the lock, so the reader goroutine does not wait
// for the disk.
func (r *recorder) syncIfDirty() {
	r.mu.Lock()
	if r.closed || !r.dirty {
		r.mu.Unlock()
		return
	}
	for _, w := range []*bufio.Writer{r.ew, r.ow} {
		if err := w.Flush(); err != nil {
			r.fail(err)
		}
	}
	files := r.dirtyFiles()
	r.lastSync = time.Now()
	r.syncing.Add(1)
	r.mu.Unlock()
	defer r.syncing.Done()
	for _, f := range files {
		if err := f.Sync(); err != nil && !errors.Is(err, syscall.EINVAL) {
			r.mu.Lock()
			r.fail(err)
			r.mu.Unlock()
		}
	}
}

func (r *recorder) syncLocked() {
	for _, w := range []*bufio.Writer{r.ew, r.ow} {
		if err := w.Flush(); err != nil {
			r.fail(err)
		}
	}
	for _, f := range r.dirtyFiles() {
		if err := f.Sync(); err != nil && !errors.Is(err, syscall.EINVAL) {
			r.fail(err)
		}
	}
	r.lastSync = time.Now()
}

// dirtyFiles returns the files written since their last sync, which the caller is about
// to sync, and marks all clean: a state change syncs events.jsonl, and output.log only
// when output came since (an fsync of an unchanged file still costs a system call and
// the file system's check). r.mu is held.
func (r *recorder) dirtyFiles() []*os.File {
	files := make([]*os.File, 0, 2)
	if r.evDirty {
		files = append(files, r.events)
	}
	if r.outDirty {
		files = append(files, r.out)
	}
	r.dirty, r.evDirty, r.outDirty = false, false, false
	return files
}

// fail keeps err as the first error met while recording, unless one is kept already.
// r.mu is held.
func (r *recorder) fail(err error) {
	if r.err == nil {
		r.err = fmt.Errorf("recording run in %s: %w", r.dir, err)
	}
}

// failed is fail for a part of the record written elsewhere (run.json): the error is
// reported with the record's at the end.
func (r *recorder) failed(err error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.fail(err)
}

// close syncs the files (unless nothing was written since the last sync) and closes them,
// and returns the first error met while recording.
// Nothing is written after it; a second call returns the same error.
func (r *recorder) close() error {
	r.mu.Lock()
	if r.closed {
		defer r.mu.Unlock()
		return r.err
	}
	r.closed = true // from here on, writes and the timer's syncs do nothing
	if r.syncLater != nil {
		r.syncLater.Stop()
	}
	r.mu.Unlock()
	r.syncing.Wait() // a timer's fsync that began before
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.dirty {
		r.syncLocked()
	}
	r.events.Close()
	r.out.Close()
	return r.err
}
