package runs

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/segwi/segwi/approvals"
	"github.com/segwi/segwi/internal/redact"
)

// Spec says what run to start.
type Spec struct {
	Kind     Kind
	Checkout string // the folder the run works in
	Prompt   string // the task (build), the question (ask), or optional notes (ready)
	Model    string // overrides Config.Model for this run when set
	// KeepOpen keeps the run's input open after a result, so that a person may send a
	// follow-up; the run then ends on CloseInput, Stop or the idle timeout. Without it
	// (the CLI), the run ends once every message sent has its result.
	KeepOpen bool
}

// Errors a caller may branch on.
var (
	ErrInputClosed = errors.New("the run's input is closed")
	ErrNotRunning  = errors.New("the run is not running")
	ErrClosed      = errors.New("segwi is stopping its runs")
)

// Run is one run: a Claude Code process, its events and its record. Its methods are safe
// for concurrent use. *Run implements approvals.Run.
type Run struct {
	m        *Manager
	id       string
	dir      string
	spec     Spec
	prompt   string // the first message, with the kind's prefix
	claude   string // the resolved binary
	checkout string // the checkout, absolute with symlinks resolved: the lock key
	rec      *recorder
	lock     *os.File
	lines    *redact.Lines // output.log's line redactor; the reader goroutine's
	done     chan struct{}
	took     bool // holds one of the Manager's slots; guarded by Manager.mu

	checkoutLock   *os.File // the checkout's lock across segwi processes; guarded by Manager.mu
	waitsElsewhere bool     // said it waits for another segwi's run; guarded by Manager.mu

	lastActivity atomic.Int64 // unix nanoseconds of the last output or approval activity
	calls        toolCalls    // the tool calls Claude Code is making, from its output

	writeMu sync.Mutex // orders writes to the input

	mu          sync.Mutex
	info        Info
	seq         int64
	pending     int // approval requests waiting for a person
	proc        *process
	token       string // the approvals bearer token, redacted everywhere
	inputClosed bool
	sent        int // messages written to the input
	results     int // results read
	lastFailed  bool
	stops       int // how many times a stop was asked: 1 = SIGTERM sent, 2 = SIGKILL
	stopAs      State
	stopReason  string
	stopAt      time.Time
	killed      bool
	exited      bool // the process has exited: the run is ending, whatever a Stop says now
	subs        map[*subscriber]struct{}
	backlog     []Event
	backlogSize int
	ended       bool
}

// ID returns the run's id, the name of its folder.
func (r *Run) ID() string { return r.id }

// Dir returns the run's folder.
func (r *Run) Dir() string { return r.dir }

// Info returns a snapshot of the run's summary.
func (r *Run) Info() Info {
	r.mu.Lock()
	defer r.mu.Unlock()
	info := r.info
	info.Argv = append([]string(nil), info.Argv...)
	return info
}

// State returns the run's current state.
func (r *Run) State() State {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.info.State
}

// Done returns a channel closed when the run has ended and its record is complete.
func (r *Run) Done() <-chan struct{} { return r.done }

// Wait returns the run's summary once it has ended, or ctx's error when ctx is done first.
func (r *Run) Wait(ctx context.Context) (Info, error) {
	select {
	case <-r.done:
		return r.Info(), nil
	case <-ctx.Done():
		return r.Info(), ctx.Err()
	}
}

// Send writes a follow-up message to the run's input. It returns when the message is
// written (at most 10 s if Claude Code does not read), with ErrNotRunning before the run
// has started or once it stops, and ErrInputClosed once its input is closed.
func (r *Run) Send(text string) error {
	r.mu.Lock()
	switch {
	case r.inputClosed:
		r.mu.Unlock()
		return fmt.Errorf("sending to run %s: %w (it ends after its current turn; start a new run)", r.id, ErrInputClosed)
	case r.proc == nil || r.stops > 0 || r.info.State.Final():
		r.mu.Unlock()
		return fmt.Errorf("sending to run %s (%s): %w", r.id, r.info.State, ErrNotRunning)
	}
	r.sent++
	r.mu.Unlock()
	return r.write(text)
}

// write sends text as a user message and records it as a prompt event.
func (r *Run) write(text string) error {
	r.writeMu.Lock()
	defer r.writeMu.Unlock()
	r.emit(Event{Type: EventPrompt, Text: r.m.red.String(text)}, false)
	r.mu.Lock()
	in := r.proc.stdin
	r.mu.Unlock()
	in.SetWriteDeadline(time.Now().Add(10 * time.Second))
	if _, err := in.Write(userMessage(text)); err != nil {
		return fmt.Errorf("writing to the input of run %s: %w", r.id, err)
	}
	r.touch()
	return nil
}

// CloseInput closes the run's input: Claude Code finishes the current turn and exits,
// which ends the run. Calling it again does nothing.
func (r *Run) CloseInput() {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.closeInputLocked()
}

func (r *Run) closeInputLocked() {
	if r.inputClosed || r.proc == nil {
		return
	}
	r.inputClosed = true
	r.proc.stdin.Close()
}

// Stop stops the run in two steps. The first call sends SIGTERM to the run's process
// group (Claude Code aborts the turn and exits); if the group is still there after
// Config.StopGrace, or on a second call, it gets SIGKILL. A queued run just leaves the
// queue. Stop returns at once; Done tells when the run has ended.
func (r *Run) Stop() { r.stop(StateStopped, "stopped by a person") }

func (r *Run) stop(as State, reason string) {
	if r.m.dequeue(r) {
		r.finish(as, reason+" before it started", nil)
		return
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.info.State.Final() || r.ended || r.exited {
		return
	}
	r.stops++
	if r.stops == 1 {
		r.stopAs, r.stopReason, r.stopAt = as, reason, time.Now()
		r.setStateLocked(StateStopping, reason)
		if r.proc != nil {
			r.proc.signal(syscall.SIGTERM)
		}
		return
	}
	r.killLocked("stopped a second time: killing its process group")
}

func (r *Run) killLocked(why string) {
	if r.killed || r.proc == nil {
		return
	}
	r.killed = true
	r.emitLocked(Event{Type: EventStatus, Subtype: "kill", Text: why}, false)
	r.proc.signal(syscall.SIGKILL)
}

// RecordApproval appends an approval request, or its answer, to the run's record. The
// approvals server calls it.
func (r *Run) RecordApproval(rec approvals.Record) {
	red := r.m.red
	req := rec.Request
	ev := Event{
		Type:      EventApprovalRequest,
		ToolName:  req.ToolName,
		ToolUseID: req.ToolUseID,
		Input:     red.Bytes(req.Input),
		Approval:  &ApprovalInfo{RequestID: req.ID, Deadline: req.Deadline, Note: red.String(req.Note)},
	}
	if a := rec.Answer; a != nil {
		ev.Type = EventApprovalAnswer
		ev.Input = nil
		ev.Approval = &ApprovalInfo{
			RequestID: req.ID, Allow: a.Allow, Interrupt: a.Interrupt, By: string(a.By),
			Rule: red.String(a.Rule), Message: red.String(a.Message), WaitedMS: a.Waited.Milliseconds(),
		}
	}
	r.touch()
	r.emit(ev, true)
}

// Connected removes the run's mcp.json: Claude Code read it before connecting and does
// not read it again, not even to reconnect, and the token in it must not stay where the
// agent or another local program can read it. The approvals server calls it.
func (r *Run) Connected() {
	path := filepath.Join(r.dir, mcpFile)
	if err := os.Remove(path); err != nil && !errors.Is(err, fs.ErrNotExist) {
		r.emit(Event{Type: EventStatus, Subtype: "mcp-config",
			Text: fmt.Sprintf("could not remove %s, which holds the run's approvals token: %v", path, err)}, false)
	}
}

// SetPending tells the run how many of its approval requests wait for a person: the run
// is waiting while there is one, running otherwise. The approvals server calls it.
func (r *Run) SetPending(n int) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.pending = n
	r.touch()
	switch {
	case n > 0 && r.info.State == StateRunning:
		r.setStateLocked(StateWaiting, "an approval request waits for a person")
	case n == 0 && r.info.State == StateWaiting:
		r.setStateLocked(StateRunning, "")
	}
}

func (r *Run) touch() { r.lastActivity.Store(time.Now().UnixNano()) }

// setStateLocked moves the run to state s, records it (synced) and publishes it. r.mu is held.
func (r *Run) setStateLocked(s State, reason string) {
	from := r.info.State
	if from == s {
		return
	}
	r.info.State, r.info.Reason = s, reason
	if err := writeInfo(r.dir, r.info); err != nil {
		r.rec.mu.Lock()
		r.rec.fail(err)
		r.rec.mu.Unlock()
	}
	r.emitLocked(Event{Type: EventState, State: &StateChange{From: from, To: s, Reason: reason}}, true)
}

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

// launch starts the process of a run the Manager took off the queue, and follows it to
// its end. It runs on its own goroutine.
func (r *Run) launch() {
	cfg := r.m.config()
	r.m.refreshSecrets(cfg)

	mcpPath := ""
	if cfg.Approvals != nil {
		reg, err := cfg.Approvals.Register(approvals.RunInfo{ID: r.id, Kind: string(r.spec.Kind), Checkout: r.checkout}, r)
		if err != nil {
			r.finish(StateFailed, fmt.Sprintf("could not register the run with the approvals server: %v", err), nil)
			return
		}
		r.m.red.Add(reg.Token)
		r.mu.Lock()
		r.token = reg.Token
		r.mu.Unlock()
		mcpPath = filepath.Join(r.dir, mcpFile)
		if err := os.WriteFile(mcpPath, reg.MCPConfig(), 0o600); err != nil {
			r.finish(StateFailed, fmt.Sprintf("could not write %s: %v", mcpPath, err), nil)
			return
		}
	}

	model := r.spec.Model
	if model == "" {
		model = cfg.Model
	}
	argv := argvFor(r.claude, r.spec.Kind, model, mcpPath)
	env := envFor(cfg.Env, cfg.PassForgeTokens, r.id, r.spec.Kind)

	r.mu.Lock()
	r.info.Argv, r.info.Model = argv, model
	if r.stops > 0 { // stopped while starting
		r.mu.Unlock()
		r.finish(r.stopAs, r.stopReason+" before it started", nil)
		return
	}
	r.mu.Unlock()

	r.sweepBeforeStart()
	proc, err := startProcess(r.claude, argv, r.checkout, env)
	if err != nil {
		r.finish(StateFailed, fmt.Sprintf("could not start %s in %s: %v", r.claude, r.checkout, err), nil)
		return
	}
	trackRun(r.id)
	r.touch()
	r.mu.Lock()
	r.proc = proc
	r.info.PID, r.info.Start = proc.pgid, time.Now()
	switch {
	case r.stops > 0:
		proc.signal(syscall.SIGTERM)
	case r.pending > 0:
		r.setStateLocked(StateWaiting, "an approval request waits for a person")
	default:
		r.setStateLocked(StateRunning, "")
	}
	r.sent++
	r.mu.Unlock()

	readerDone := make(chan struct{})
	go func() {
		defer close(readerDone)
		r.readOutput(proc.pty)
	}()
	watchDone := make(chan struct{})
	go r.watch(watchDone)

	if err := r.write(r.prompt); err != nil {
		r.emit(Event{Type: EventStatus, Subtype: "input", Text: err.Error()}, false)
	}

	waitErr := proc.wait()
	r.mu.Lock()
	r.exited = true // a Stop from now on is too late to change how the run ended
	r.mu.Unlock()
	exit := exitInfo(proc.cmd.ProcessState)
	// No process of the run outlives it: whatever is left of the group goes now, and
	// every other process the run started, however it left the group.
	proc.signal(syscall.SIGKILL)
	left, leftEvents := r.endLeftovers(proc)
	gone := proc.groupGone(5 * time.Second)
	// The reader ends when the last holder of the pty's other side is gone; a process
	// that left the group could keep it open, so give up waiting after a while.
	select {
	case <-readerDone:
	case <-time.After(2 * time.Second):
		proc.pty.Close()
		<-readerDone
	}
	proc.pty.Close()
	close(watchDone)

	r.mu.Lock()
	r.closeInputLocked()
	r.inputClosed = true
	r.mu.Unlock()

	var extra []Event
	if !gone {
		extra = append(extra, Event{Type: EventStatus, Subtype: "kill",
			Text: fmt.Sprintf("processes of group %d were still alive 5 s after SIGKILL", proc.pgid)})
	}
	if waitErr != nil && !errors.As(waitErr, new(*exitErr)) {
		extra = append(extra, Event{Type: EventStatus, Subtype: "wait", Text: waitErr.Error()})
	}
	r.mu.Lock()
	state, reason := r.outcomeLocked(exit)
	r.mu.Unlock()
	extra = append(extra, Event{Type: EventExit, Exit: &exit})
	extra = append(extra, leftEvents...)
	if said := leftoverSummary(left); said != "" {
		reason = strings.TrimPrefix(reason+"; "+said, "; ")
	}
	r.finish(state, reason, extra)
}

// outcomeLocked decides the end state of a run whose process exited.
func (r *Run) outcomeLocked(exit ExitInfo) (State, string) {
	switch {
	case r.stops > 0:
		return r.stopAs, r.stopReason
	case exit.Code != 0 && exit.Signal != "":
		return StateFailed, fmt.Sprintf("claude was killed by %s", exit.Signal)
	case exit.Code != 0:
		return StateFailed, fmt.Sprintf("claude exited with code %d", exit.Code)
	case r.results == 0:
		return StateFailed, "claude exited without a result"
	case r.lastFailed:
		return StateFailed, "the last turn ended with an error"
	}
	return StateSucceeded, ""
}

// finish ends the run: its last events, its final state, the record closed, the
// approvals registration withdrawn, the Manager told. Only the first call does anything.
func (r *Run) finish(state State, reason string, last []Event) {
	cfg := r.m.config()
	r.mu.Lock()
	if r.ended {
		r.mu.Unlock()
		return
	}
	token := r.token
	r.mu.Unlock()
	if token != "" && cfg.Approvals != nil {
		cfg.Approvals.Unregister(r.id)
		os.Remove(filepath.Join(r.dir, mcpFile)) // still there if Claude Code never connected
	}

	r.mu.Lock()
	for _, e := range last {
		if e.Exit != nil {
			code := e.Exit.Code
			r.info.ExitCode = &code
		}
		r.emitLocked(e, false)
	}
	r.info.End = time.Now()
	r.setStateLocked(state, reason)
	r.ended = true
	for s := range r.subs {
		close(s.ch)
	}
	r.subs = nil
	r.mu.Unlock()

	if err := r.rec.close(); err != nil {
		fmt.Fprintf(os.Stderr, "segwi: %v\n", err)
	}
	if token != "" {
		r.m.red.Remove(token)
	}
	r.lock.Close() // releases the folder's lock: the run is no longer live
	r.m.ended(r)
	close(r.done)
}

// watch enforces the run's time limits and the second step of a stop, and syncs the
// record every second, until done is closed.
func (r *Run) watch(done <-chan struct{}) {
	for {
		cfg := r.m.config()
		tick := min(cfg.IdleTimeout, cfg.MaxDuration, cfg.StopGrace, time.Second) / 10
		tick = max(tick, 5*time.Millisecond)
		select {
		case <-done:
			return
		case <-time.After(tick):
		}
		r.rec.syncIfDirty()
		r.check(cfg, time.Now())
	}
}

// check applies the limits of cfg at now.
func (r *Run) check(cfg Config, now time.Time) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.ended || r.proc == nil {
		return
	}
	if r.stops > 0 {
		if now.Sub(r.stopAt) >= cfg.StopGrace {
			r.killLocked(fmt.Sprintf("still running %s after SIGTERM (runs.stopGrace): killing its process group", cfg.StopGrace))
		}
		return
	}
	// maxDuration is wall clock: a request waiting for a person does not extend it.
	if now.Sub(r.info.Start) >= cfg.MaxDuration {
		r.mu.Unlock()
		r.stop(StateTimedOut, fmt.Sprintf("ran longer than %s (runs.maxDuration)", cfg.MaxDuration))
		r.mu.Lock()
		return
	}
	if r.pending > 0 {
		r.touch() // waiting for a person is not being idle
		return
	}
	idle := now.Sub(time.Unix(0, r.lastActivity.Load()))
	if idle >= cfg.IdleTimeout {
		if r.spec.KeepOpen && r.results >= r.sent && !r.inputClosed {
			// The turn is over and nobody followed up: end the run as CloseInput would.
			r.emitLocked(Event{Type: EventStatus, Subtype: "idle", Text: fmt.Sprintf("no follow-up for %s (runs.idleTimeout): closing the input", cfg.IdleTimeout)}, false)
			r.closeInputLocked()
			return
		}
		reason := fmt.Sprintf("no output for %s (runs.idleTimeout)", cfg.IdleTimeout)
		if r.inputClosed && r.results >= r.sent {
			// Ending: Claude Code exits once its input is closed. One that has not, a
			// stop grace after the idle timeout, is stopped like any idle run.
			if idle < cfg.IdleTimeout+cfg.StopGrace {
				return
			}
			reason = fmt.Sprintf("did not exit within %s of its last output, after its input was closed", cfg.IdleTimeout+cfg.StopGrace)
		}
		r.mu.Unlock()
		r.stop(StateTimedOut, reason)
		r.mu.Lock()
	}
}

// MaxLineBytes is the longest output line read as one; a longer one is kept in
// output.log in pieces and shown as one cut output event.
const MaxLineBytes = 16 << 20

// readOutput reads the pty until it ends, one line at a time, and hands each line on. It
// is the run's only reader of the pty.
func (r *Run) readOutput(pty io.Reader) { r.readLines(pty, MaxLineBytes) }

// readLines is readOutput with lines cut in pieces once they hold maxLine bytes.
func (r *Run) readLines(pty io.Reader, maxLine int) {
	br := bufio.NewReaderSize(pty, 64<<10)
	p := newParser()
	var line, red []byte
	long := false // inside a line longer than MaxLineBytes
	for {
		chunk, err := br.ReadSlice('\n')
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
			r.handleLine(p, red)
			line = line[:0]
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
		e := outputEvent(red[:min(len(red), MaxFieldBytes)])
		e.Truncated = true
		e.Subtype = "long-line"
		r.emit(e, false)
	}
	rest := copy(line, line[n:])
	return line[:rest], red
}

// handleLine parses one redacted output line (newline included) into events.
func (r *Run) handleLine(p *parser, line []byte) {
	if n := len(line); n > 0 && line[n-1] == '\n' {
		line = line[:n-1]
	}
	p.parseLine(line, func(e Event) {
		r.mu.Lock()
		defer r.mu.Unlock()
		switch e.Type {
		case EventToolCall:
			r.calls.started(e.ToolUseID)
		case EventToolResult, EventRefusal:
			r.calls.finished(e.ToolUseID)
		case EventInit:
			r.info.SessionID = e.SessionID
		case EventResult:
			r.results++
			r.lastFailed = e.Result.IsError
			r.info.CostUSD = e.Result.CostUSD // total_cost_usd is the session's total so far
			r.info.Turns = e.Result.NumTurns
			if e.SessionID != "" {
				r.info.SessionID = e.SessionID
			}
		}
		r.emitLocked(e, false)
		if e.Type == EventResult && !r.spec.KeepOpen && r.results >= r.sent {
			r.closeInputLocked()
		}
	})
}

// queuedBehindAnotherSegwi says, once, why a queued run does not start although this
// process has room for it. With Manager.mu held.
func (r *Run) queuedBehindAnotherSegwi() {
	if r.waitsElsewhere {
		return
	}
	r.waitsElsewhere = true
	r.emit(Event{Type: EventStatus, Subtype: "queued", Text: "waiting: " + errCheckoutBusy.Error()}, true)
}
