package runs

import (
	"context"
	"fmt"
	"os"
	"sync"
	"sync/atomic"
	"time"

	"github.com/segwi/segwi/approvals"
	"github.com/segwi/segwi/internal/lib/redact"
	"github.com/segwi/segwi/runs/worktree"
)

// Run is one run: an agent's process (Claude Code's, or another Runtime's), its events
// and its record. Its methods are safe for concurrent use. *Run implements approvals.Run.
//
// One goroutine owns a run's state (own): its phase, its input, its process, its pending
// approvals and its timers. Every method that changes them asks the owner (do), which
// carries the change out at once and never waits on the agent, the disk for long, or
// another run; the work that does wait (starting the agent, writing to its input,
// reading its output, waiting for it to exit, sweeping what it left) runs on goroutines
// of its own that report to the owner. What others read of a run (its Info, its events)
// is its journal, under mu.
type Run struct {
	m        *Manager
	id       string
	dir      string
	spec     Spec
	prompt   string  // the first message, with the kind's prefix
	agent    string  // the agent's program, as a person calls it (Runtime.Name)
	runtime  Runtime // the runtime its agent runs on (Spec.Runtime)
	shut     bool    // the session's CloseInput has returned (inputShut); under mu
	checkout string  // the checkout, absolute with symlinks resolved: the lock key
	rec      *recorder
	lock     *os.File
	lines    *redact.Lines // output.log's line redactor; the reader goroutine's
	done     chan struct{} // closed once the run has ended and left the Manager
	ctx      context.Context
	cancel   context.CancelCauseFunc // ends ctx once the run has ended
	// secretsRead is when Start asked Config.Secrets for the run; its start asks again
	// when it came over secretsFresh later (startSteps). Set before the owner starts.
	secretsRead time.Time

	// plan is the worktree to make for the run before its agent starts, with its setup;
	// nil for a run in its checkout or in a worktree it continues (see where.go). Set
	// before the owner starts, read by the start.
	plan  *worktree.Plan
	setup worktree.Setup
	// setupCgroup is the run's cgroup, made for its setup's command (containSetup); its
	// agent starts in it. Nil until then, and once taken.
	setupCgroup *cgroup

	// The owner's channels: what others ask of it, the slot the Manager gives a queued run,
	// and a nudge that its limits changed. Only own receives from them.
	cmds    chan func()
	launchc chan *os.File // the checkout's lock across segwi processes (nil for none), once the run may start
	wake    chan struct{}

	// Shared beyond the owner, each safe on its own: see the lock order on Manager.
	lastActivity   atomic.Int64 // unix nanoseconds of the last output, input or approval activity
	calls          toolCalls    // the tool calls the agent is making, from its output
	waitsElsewhere atomic.Bool  // said it waits for another segwi's run in its checkout

	// The owner's: only own and what it calls read or write these.
	owner

	// The journal: what others read of the run. mu guards it; the owner writes phase
	// with mu held, so that emit and Subscribe see where the run is.
	mu          sync.Mutex
	info        Info
	phase       phase // running, stopping, killing, exited, ending, ended: see phase
	seq         int64
	subs        subscribers
	backlog     []Event
	backlogSize int
	held        []Event // the last events, recorded while ending, for the subscribers once ended
	budget      Budget  // what the run may use before it waits for the person (budget.go)
	// agentCost is the cost bound its agent keeps to itself (Launch.MaxCostUSD), set
	// before the owner starts; 0 for none.
	agentCost float64
	// agentStarted is when its agent's process started, set by the start as soon as it
	// has: Info.Start waits for the owner to hear of the start, after the base is read,
	// and the agent may ask for an approval before (Ends).
	agentStarted time.Time
	// cancelPrepare ends the making and setup of the run's worktree, for a stop (prepare).
	cancelPrepare context.CancelFunc
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
// written (within seconds if the agent does not read: Session.Send), with ErrNotRunning before the run
// has started or once it stops, and ErrInputClosed once its input is closed.
func (r *Run) Send(text string) error {
	var written <-chan error
	var err error
	if !r.do(func() {
		r.mu.Lock()
		defer r.mu.Unlock()
		written, err = r.sendLocked(text)
	}) {
		return fmt.Errorf("sending to run %s: %w (it has ended; start a new run)", r.id, ErrInputClosed)
	}
	if err != nil {
		return err
	}
	return <-written
}

// CloseInput closes the run's input: the agent finishes the current turn and exits,
// which ends the run. On a run not started yet (queued), the agent still gets its prompt
// and its input closes after that first turn. Calling it again does nothing.
func (r *Run) CloseInput() {
	r.do(func() {
		r.mu.Lock()
		defer r.mu.Unlock()
		r.moveInputLocked(closeAsked, "")
	})
}

// sendLocked is Send on the run's owner: it decides whether text may go, and queues it.
// r.mu is held.
func (r *Run) sendLocked(text string) (written <-chan error, err error) {
	if r.input.state != inputClosed && r.phase != phaseRunning {
		return nil, fmt.Errorf("sending to run %s (%s): %w", r.id, r.info.State, ErrNotRunning)
	}
	return r.moveInputLocked(sendFollowUp, text)
}

// moveInputLocked moves the run's input on e (see input.next) and carries out the move,
// on the run's owner: text goes to the agent's input (written tells how its write went),
// the input closes, or a message is refused with an error that says why. The run's state
// follows: a turn going is running, a kept-open run whose turn is over waits for the
// person's reply. r.mu is held.
func (r *Run) moveInputLocked(e inputEvent, text string) (written <-chan error, err error) {
	in, act := r.input.next(e)
	r.input = in
	switch act {
	case inputRefuseClosed:
		return nil, fmt.Errorf("sending to run %s: %w (it ends after its current turn; start a new run)", r.id, ErrInputClosed)
	case inputRefuseUnstarted:
		return nil, fmt.Errorf("sending to run %s (%s): %w", r.id, r.info.State, ErrNotRunning)
	}
	r.settleLocked()
	switch act {
	case inputWrite:
		r.emitLocked(Event{Type: EventPrompt, Text: r.m.red.String(text)}, toFile)
		if e == sendPrompt { // nobody waits on the task's write: what goes wrong is recorded
			r.in.later(text)
			return nil, nil
		}
		return r.in.message(text), nil
	case inputHold, inputWriteHeld:
		return r.holdLocked(act, text), nil
	case inputShut:
		r.dropHeldLocked()
		r.in.close()
	}
	r.endLingeringLocked()
	return nil, nil
}

// inputShut notes, on the owner, that the session's CloseInput has returned, which may
// end a Lingering session's agent.
func (r *Run) inputShut() {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.shut = true
	r.endLingeringLocked()
}

// endLingeringLocked ends the agent of a Lingering session once its input is closed, its
// session has done closing it (CloseInput returned: an ACP agent has closed its session,
// and written what a continued run loads) and its last turn is over, with the two-step
// stop: it does not exit on its own. The run then ends as its results say
// (outcomeLocked). r.mu is held.
func (r *Run) endLingeringLocked() {
	l, ok := r.session.(Lingering)
	if !ok || !l.Lingers() || !r.shut || r.phase != phaseRunning || r.input.state != inputClosed || !r.input.finished() {
		return
	}
	r.stepLocked(onStop, "", fmt.Sprintf("its last turn is over and its input closed: ending %s, which does not exit on its own", r.agent))
}

// RecordApproval appends an approval request, or its answer, to the run's record. The
// approvals server calls it. The request's input is recorded redacted, with the SHA-256
// of its exact bytes beside it.
func (r *Run) RecordApproval(rec approvals.Record) {
	red := r.m.red
	req := rec.Request
	ev := Event{
		Type:      EventApprovalRequest,
		ToolName:  req.ToolName,
		ToolUseID: req.ToolUseID,
		Input:     red.Bytes(req.Input),
		Approval: &ApprovalInfo{RequestID: req.ID, Deadline: req.Deadline, RunEnds: req.RunEnds, Note: red.String(req.Note),
			InputSHA256: req.InputSHA256()},
	}
	if a := rec.Answer; a != nil {
		ev.Type = EventApprovalAnswer
		ev.Input = nil
		ev.Approval = &ApprovalInfo{
			RequestID: req.ID, Allow: a.Allow, Interrupt: a.Interrupt, By: string(a.By), Who: red.String(a.Who),
			Rule: red.String(a.Rule), Message: red.String(a.Message), WaitedMS: a.Waited.Milliseconds(),
		}
	}
	r.touch()
	r.emit(ev, toDisk)
}

// Connected tells the run that its agent reached the approvals server, so what held the
// run's token for it can go (Claude Code's mcp.json: it read it before connecting and
// does not read it again, not even to reconnect, and the token must not stay where the
// agent or another local program can read it). The approvals server calls it; it is done
// when Connected returns.
func (r *Run) Connected() {
	r.do(func() {
		r.connected = true
		r.sessionConnected()
	})
}

// sessionConnected tells the session that its agent connected, once there are both, on
// the run's owner, and records what could not be done then.
func (r *Run) sessionConnected() {
	if r.session == nil || !r.connected {
		return
	}
	if err := r.session.Connected(); err != nil {
		r.emit(Event{Type: EventStatus, Subtype: "approvals-config", Text: err.Error()}, toFile)
	}
}

// SetPending tells the run how many of its approval requests wait for a person: the run
// is waiting for an approval while there is one. The approvals server calls it; the state
// has changed when it returns.
func (r *Run) SetPending(n int) {
	r.do(func() {
		r.mu.Lock()
		defer r.mu.Unlock()
		r.pending = n
		r.touch() // the idle timeout counts from now once nobody is asked
		r.settleLocked()
	})
}

// Ending reports whether the run is on its way to its end: a stop was asked (by the
// person, a limit or segwi quitting) or its process exited. The approvals server asks it
// when Claude Code hangs up on a request, to tell a stop from Claude Code's own timeout.
func (r *Run) Ending() bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.phase != phaseRunning
}

func (r *Run) touch() { r.lastActivity.Store(time.Now().UnixNano()) }

// setState moves the run to state s, records it (synced) and publishes it.
func (r *Run) setState(s State, reason string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.setStateLocked(s, reason)
}

// setStateLocked is setState with r.mu held.
func (r *Run) setStateLocked(s State, reason string) { r.changeStateLocked(s, "", reason) }

// changeStateLocked is setStateLocked for a state that may be waiting, and for what.
// A move to the same state and wait reason records nothing. The record and its event are
// synced for the first state and the final one (see replaceInfo); the recorder syncs the
// events within syncEvery anyway. r.mu is held.
func (r *Run) changeStateLocked(s State, w WaitReason, reason string) {
	r.moveStateLocked(s, w, reason, true)
}

// moveStateLocked is changeStateLocked where record says whether run.json is written
// now; when not, it says the state at its next write. The first state and the final one
// are always written. r.mu is held.
func (r *Run) moveStateLocked(s State, w WaitReason, reason string, record bool) {
	from := r.info.State
	if from == s && r.info.Waiting == w {
		return
	}
	r.info.State, r.info.Waiting, r.info.Reason = s, w, reason
	durable := from == "" || s.Final()
	if record || durable {
		if err := replaceInfo(r.dir, r.info, durable); err != nil {
			r.rec.failed(err)
		}
	}
	reach := toFile
	if durable {
		reach = toDisk
	}
	r.emitLocked(Event{Type: EventState, State: &StateChange{From: from, To: s, Reason: reason, Waiting: w}}, reach)
}

// queuedBehindAnotherSegwi says, once, why a queued run does not start although this
// process has room for it.
func (r *Run) queuedBehindAnotherSegwi() {
	if r.waitsElsewhere.CompareAndSwap(false, true) {
		r.emit(Event{Type: EventStatus, Subtype: "queued", Text: "waiting: " + errCheckoutBusy.Error()}, toDisk)
	}
}
