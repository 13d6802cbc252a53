package runs

import (
	"context"
	"errors"
	"os"
	"time"

	"github.com/segwi/segwi/runs/ports"
)

// owner is the state of a run that only its owner goroutine (own), and what it calls,
// reads and writes. The owner holds the run's mu while it changes what the journal
// shows with it (a state, an event), so the methods named ...Locked expect mu held.
type owner struct {
	launched     bool          // the Manager gave it a slot: it is starting or started
	checkoutLock *os.File      // the checkout's lock across segwi processes, from the launch to the end
	token        string        // the approvals bearer token, redacted everywhere until the end
	proc         *process      // the agent's process, once started
	session      Session       // the runtime's session with the agent, once started
	kills        *killWitness  // what tells who killed the agent, should a signal end it
	connected    bool          // the agent reached the approvals server (Connected)
	in           *writer       // writes to the agent's input, in the order the owner decides
	readerDone   chan struct{} // closed once the reader has read the output to its end
	stopped      stopRequest   // the first stop, asked before the process exited
	input        input         // where the conversation stands: what may be sent, when the input closes
	heldBack     []string      // the follow-ups the input holds (input.held), oldest first
	reached      string        // the budget the last turn reached, for a person; "" when it did not
	pending      int           // approval requests waiting for a person
	lastFailed   bool          // the last turn's result was an error
	over         bool          // the run has ended: own returns
	ports        *ports.Held   // the run's TCP ports, let go when it ends
}

// errRunEnded is the cause of a run's context once the run has ended.
var errRunEnded = errors.New("the run has ended")

// own is the run's owner goroutine, from Start to the run's end. It carries out what is
// asked of the run (do), starts it once the Manager gives it a slot, applies its limits
// when one is due (check, deadlineLocked: a real timer, no tick), and stops it when its
// context ends. Nothing it does waits for long: starting the agent (start), writing to it
// (writer), reading it (readOutput), waiting for its exit and sweeping what it left
// (clear) run on goroutines of their own, which report back through do.
func (r *Run) own() {
	timer := time.NewTimer(time.Hour)
	defer timer.Stop()
	ctxDone := r.ctx.Done()
	for !r.over {
		cfg := r.m.config()
		r.mu.Lock()
		due := r.deadlineLocked(cfg)
		r.mu.Unlock()
		if due.IsZero() {
			timer.Stop()
		} else {
			timer.Reset(time.Until(due))
		}
		select {
		case f := <-r.cmds:
			f()
		case lock := <-r.launchc:
			r.launch(lock)
		case <-timer.C:
			r.check(cfg, time.Now())
		case <-r.wake: // the limits changed: the deadline is taken again
		case <-ctxDone:
			ctxDone = nil
			r.stopFor(StateStopped, stopReason(context.Cause(r.ctx)))
		}
	}
	r.m.ended(r)
	close(r.done)
}

// do runs f on the run's owner and returns once f has run; once the run has ended it
// returns false without running it. The owner itself never calls it.
func (r *Run) do(f func()) bool {
	ran := make(chan struct{})
	select {
	case r.cmds <- func() { f(); close(ran) }:
	case <-r.done:
		return false
	}
	<-ran
	return true
}

// wakeOwner tells the run's owner that its limits changed, so that it takes its next
// deadline again. It never waits.
func (r *Run) wakeOwner() {
	select {
	case r.wake <- struct{}{}:
	default: // it is told already
	}
}

// stopReason is why a run whose context ended stops, for a person: the context's cause
// ("interrupt signal received"), unless it is only that the context was cancelled.
func stopReason(cause error) string {
	switch {
	case cause == nil, errors.Is(cause, context.Canceled):
		return "its context was cancelled"
	case errors.Is(cause, context.DeadlineExceeded):
		return "its context's deadline passed"
	}
	return cause.Error()
}

// stopFor is a stop asked of the run, carried out by its owner: a run still in the queue
// leaves it and ends; any other takes the stop phase's move (stepLocked).
func (r *Run) stopFor(as State, reason string) {
	if !r.launched && r.m.dequeue(r) {
		r.finish(as, reason+" before it started", nil)
		return
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	r.stepLocked(onStop, as, reason)
}

// launch starts a run the Manager took off the queue, holding checkoutLock (nil for an
// ask run): it says starting, and the start's steps run on a goroutine of their own
// (start), which reports to started.
//
// run.json says starting at the start's first write, which comes before its agent's
// process starts (noteCgroup), a few milliseconds on: a write of its own here cost about
// 0.2 ms, one of a run's five. Only a start with a slow step before that write records
// starting at once: a worktree to make, or the keyring to read again.
func (r *Run) launch(checkoutLock *os.File) {
	r.launched, r.checkoutLock = true, checkoutLock
	slow := r.plan != nil || r.secretsStale()
	r.mu.Lock()
	r.moveStateLocked(StateStarting, "", "", slow)
	r.mu.Unlock()
	go r.start()
}

// started takes what the start did: the run ends when it failed or was stopped before
// its process started; otherwise its process is followed to its end (readOutput,
// waitExit), a stop asked meanwhile reaches it now, and the prompt goes to its input.
func (r *Run) started(st startResult) {
	r.token, r.ports = st.token, st.ports
	r.mu.Lock()
	r.info.Argv, r.info.Model = st.argv, st.model
	r.mu.Unlock()
	switch {
	case st.failure != "":
		r.finish(StateFailed, st.failure, nil)
		return
	case st.proc == nil: // stopped before it started
		r.finish(r.stopped.as, r.stopped.reason+" before it started", nil)
		return
	}
	r.proc, r.session, r.kills = st.proc, st.session, st.kills
	r.sessionConnected() // when the agent was quicker to connect than its start to report
	r.in = newWriter(r, st.session)
	r.touch()
	r.mu.Lock()
	// When the process started, not when its start was reported (which waits for the
	// base): runs.maxDuration counts from here.
	r.info.PID, r.info.Start = st.proc.pgid, st.proc.started
	r.stepLocked(onStarted, "", "")         // a stop asked meanwhile reaches it now
	r.moveInputLocked(sendPrompt, r.prompt) // running, or waiting for an approval; a stopped run says stopping
	r.mu.Unlock()
	r.readerDone = make(chan struct{})
	go func() {
		defer close(r.readerDone)
		r.readOutput(st.session)
	}()
	go r.waitExit(st.proc)
	if f, ok := st.session.(Failing); ok {
		go r.watchFailure(f)
	}
}

// watchFailure waits, on a goroutine of its own, for a Failing session to say it cannot
// go on, and then stops the run as failed, for the session's reason, unless a stop was
// asked already or the agent exited (cleared takes the reason then).
func (r *Run) watchFailure(f Failing) {
	select {
	case <-f.Failed():
	case <-r.ctx.Done():
		return
	}
	r.do(func() {
		r.mu.Lock()
		defer r.mu.Unlock()
		if r.phase == phaseRunning {
			r.stepLocked(onStop, StateFailed, f.Failure().Error())
		}
	})
}

// sessionFailure is why the run's session could not go on (Failing), "" when it could.
func (r *Run) sessionFailure() string {
	f, ok := r.session.(Failing)
	if !ok {
		return ""
	}
	select {
	case <-f.Failed():
		return f.Failure().Error()
	default:
		return ""
	}
}

// waitExit waits for the agent's process to exit, on a goroutine of its own, and tells
// the owner (exited).
func (r *Run) waitExit(p *process) {
	err := p.wait()
	r.do(func() { r.exited(p, err) })
}

// exited takes the exit of the run's process: a stop from now on is too late to change
// how the run ended, and nothing more goes to its input. What the run left is swept on a
// goroutine of its own (clear), which reports to cleared.
func (r *Run) exited(p *process, waitErr error) {
	r.mu.Lock()
	r.stepLocked(onExited, "", "")
	r.moveInputLocked(closeAsked, "")
	r.mu.Unlock()
	go r.clear(p, r.session, waitErr, r.token, r.kills)
}

// cleared ends a run whose process exited and whose leftovers are swept: its outcome,
// from how the process exited and what its turns said, and the events of the end.
func (r *Run) cleared(c clearance) {
	r.mu.Lock()
	state, reason := r.outcomeLocked(c.exit, c.killer)
	if failure := r.sessionFailure(); failure != "" && r.stopped.as == "" {
		// The agent exited before its session could go on: that is the news, the exit
		// only its detail.
		if c.exit.Code == 0 {
			reason = ""
		}
		state, reason = StateFailed, joinReasons(failure, reason)
	}
	r.mu.Unlock()
	if c.said != "" {
		reason = joinReasons(reason, c.said)
	}
	r.finish(state, reason, c.events)
}
