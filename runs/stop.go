package runs

import (
	"syscall"
	"time"
)

// Stop stops the run in two steps. The first call sends SIGTERM to the run's process
// group (Claude Code aborts the turn and exits); if the group is still there after
// Config.StopGrace, or on a second call, it gets SIGKILL. A queued run just leaves the
// queue. A Stop once the process has exited changes nothing: the run ends as it ended.
// Stop returns at once; Done tells when the run has ended.
func (r *Run) Stop() { r.stop(StateStopped, "stopped by a person") }

// stop is Stop for a run that is to end in state as (stopped, timed-out), for reason.
func (r *Run) stop(as State, reason string) { r.do(func() { r.stopFor(as, reason) }) }

// phase is where a run is on its way to its end. The run's State says more to a person
// (queued, starting, running, waiting); the phase is what decides what a stop, the stop
// grace, the process's start and its exit do:
//
//	running --stop--> stopping --stop, grace--> killing
//	   |                 |                         |
//	   +-----------------+---------exit------------+--> exited --ending--> ending --end--> ended
//
// and the end (finish) comes from any phase: a queued run that is stopped, a run that
// could not start. While ending, the run's last events and its final state are recorded
// but held back from its subscribers; once ended, no event is taken, and the held ones
// are told once the record is closed and the folder's lock let go: a subscriber that acts
// on the end finds the run no longer live. Whether the run's input is closed is not a phase: closing it is how a
// run ends normally (its last result, CloseInput, the idle timeout), it happens while the
// run is running, and a stop may come before it or after it (see input).
type phase uint8

// The phases, in the only order a run goes through them.
const (
	phaseRunning  phase = iota // no stop asked: queued, starting, running or waiting
	phaseStopping              // a stop was asked: SIGTERM sent to the group, or sent once it starts
	phaseKilling               // SIGKILL sent to the group, or sent once it starts
	phaseExited                // the process exited: the run ends as it ended, whatever a stop says now
	phaseEnding                // the run is ending: its last events recorded, held back from subscribers
	phaseEnded                 // the run has ended: its final state recorded, no event after it
)

func (p phase) String() string {
	switch p {
	case phaseRunning:
		return "running"
	case phaseStopping:
		return "stopping"
	case phaseKilling:
		return "killing"
	case phaseExited:
		return "exited"
	case phaseEnding:
		return "ending"
	case phaseEnded:
		return "ended"
	}
	return "phase(?)"
}

// trigger is what happens to a run that may move its phase.
type trigger uint8

// The triggers.
const (
	onStop    trigger = iota // Stop, StopAll or a limit asks the run to stop
	onGrace                  // the stop grace has passed since the first stop
	onStarted                // the process has started
	onExited                 // the process has exited
	onEnding                 // the run's end begins (finish): its last events are held back
	onEnded                  // the run has ended: its final state is recorded
)

func (t trigger) String() string {
	switch t {
	case onStop:
		return "stop"
	case onGrace:
		return "grace"
	case onStarted:
		return "started"
	case onExited:
		return "exited"
	case onEnding:
		return "ending"
	case onEnded:
		return "ended"
	}
	return "trigger(?)"
}

// effect is what a move does besides changing the phase.
type effect uint8

// The effects.
const (
	doNothing effect = iota
	doStop           // record the stop (its end state, reason, time), state stopping, SIGTERM the group
	doTerm           // SIGTERM the group: it started after a stop was asked
	doKill           // SIGKILL the group, saying why on a kill status event
)

func (e effect) String() string {
	switch e {
	case doNothing:
		return "nothing"
	case doStop:
		return "stop"
	case doTerm:
		return "SIGTERM"
	case doKill:
		return "SIGKILL"
	}
	return "effect(?)"
}

// next returns the phase p moves to on t, and what the move does. It is the whole of the
// stop's logic; Run.stepLocked carries out the effect.
func (p phase) next(t trigger) (phase, effect) {
	switch {
	case t == onEnded:
		return phaseEnded, doNothing
	case t == onEnding && p < phaseEnding:
		return phaseEnding, doNothing
	case p >= phaseExited:
		return p, doNothing // too late: a stop does not change how the run ended
	case t == onExited:
		return phaseExited, doNothing
	}
	switch {
	case p == phaseRunning && t == onStop:
		return phaseStopping, doStop
	case p == phaseStopping && (t == onStop || t == onGrace):
		return phaseKilling, doKill
	case p == phaseStopping && t == onStarted:
		return phaseStopping, doTerm
	case p == phaseKilling && t == onStarted:
		return phaseKilling, doKill
	}
	return p, doNothing
}

// stopRequest is the first stop asked of a run: the state it is to end in and why.
type stopRequest struct {
	as     State     // stopped, timed-out; "" when no stop was asked before the process exited
	reason string    // for a person: "stopped by a person", "ran longer than 2h0m0s (runs.maxDuration)"
	at     time.Time // when it was asked: the stop grace counts from here
	// ended says the stop is segwi's end of an agent that does not exit when its input
	// closes (a Lingering session's), once its last turn is over: the run ends as its
	// results say, as though the agent had exited on its own.
	ended bool
}

// stepLocked moves the run's phase on t and carries out the move's effect. as and why
// are a stop's end state and reason (onStop), or why the grace kills (onGrace); the other
// triggers take none. The signals reach the process group once there is one: a stop
// asked while the run starts is sent when it has started (onStarted). r.mu is held.
func (r *Run) stepLocked(t trigger, as State, why string) {
	to, eff := r.phase.next(t)
	r.phase = to
	switch eff {
	case doStop:
		r.stopped = stopRequest{as: as, reason: why, at: time.Now(), ended: as == ""}
		r.setStateLocked(StateStopping, why)
		if c, ok := r.session.(Canceler); ok && as != "" {
			c.Cancel() // the agent hears of the stop in its own protocol before the signal
		}
		r.signalLocked(syscall.SIGTERM)
	case doTerm:
		r.signalLocked(syscall.SIGTERM)
	case doKill:
		if r.proc == nil {
			return // onStarted sends it
		}
		if t != onGrace {
			why = "stopped a second time: killing its process group"
		}
		r.emitLocked(Event{Type: EventStatus, Subtype: "kill", Text: why}, toFile)
		r.signalLocked(syscall.SIGKILL)
	}
}

// signalLocked sends sig to the run's process group, if it has started; before that, it
// ends the making and setup of the run's worktree (prepare). r.mu is held.
func (r *Run) signalLocked(sig syscall.Signal) {
	if r.proc != nil {
		r.proc.signal(sig)
	} else if r.cancelPrepare != nil {
		r.cancelPrepare()
	}
}
