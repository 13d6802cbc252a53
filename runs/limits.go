package runs

import (
	"fmt"
	"time"
)

// A run's limits are real timers: its owner sleeps until deadlineLocked, then check
// applies what is due. Nothing ticks while a run waits, for a person or for its agent.

// deadlineLocked returns when check next has something to do under cfg, or zero when
// nothing is due: the end of the stop grace of a stopping run; for a running one, the
// earlier of its maximum duration and its idle timeout, which a pending approval holds
// off and which a finished run whose input is closed gets a stop grace more of. Output
// since the deadline was taken moves the idle timeout on; check then finds nothing to do,
// and the next deadline is taken from the last output. r.mu is held.
func (r *Run) deadlineLocked(cfg Config) time.Time {
	if r.proc == nil {
		return time.Time{}
	}
	switch r.phase {
	case phaseRunning:
	case phaseStopping:
		return r.stopped.at.Add(cfg.StopGrace)
	default:
		return time.Time{}
	}
	due := r.info.Start.Add(cfg.MaxDuration)
	if r.pending > 0 {
		return due // waiting for a person is not being idle
	}
	idle := time.Unix(0, r.lastActivity.Load()).Add(cfg.IdleTimeout)
	if r.input.state == inputClosed && r.input.finished() {
		idle = idle.Add(cfg.StopGrace) // ending: see check
	}
	if idle.Before(due) {
		return idle
	}
	return due
}

// Ends returns when the run's maximum duration ends it (runs.maxDuration, as the
// settings say now, from its process's start), or the zero time before it has started.
// The approvals server bounds a request's deadline by it, so that no countdown outlasts
// the run; check stops the run then. It is known as soon as the process has started,
// before the owner hears of the start (Info.Start), so that a request the agent asks
// meanwhile has its deadline from the first.
func (r *Run) Ends() time.Time {
	maxDuration := r.m.config().MaxDuration
	r.mu.Lock()
	defer r.mu.Unlock()
	start := r.info.Start
	if start.IsZero() {
		start = r.agentStarted
	}
	if start.IsZero() {
		return time.Time{}
	}
	return start.Add(maxDuration)
}

// check applies the limits of cfg at now: the stop grace of a run being stopped, the
// maximum duration and the idle timeout of a running one. A run whose time is up is
// stopped as Stop would, ending timed-out.
func (r *Run) check(cfg Config, now time.Time) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.proc == nil {
		return
	}
	switch r.phase {
	case phaseRunning:
	case phaseStopping:
		if now.Sub(r.stopped.at) >= cfg.StopGrace {
			r.stepLocked(onGrace, "", fmt.Sprintf("still running %s after SIGTERM (runs.stopGrace): killing its process group", cfg.StopGrace))
		}
		return
	default:
		return // killing: nothing more to send; exited or ended: nothing left to watch
	}
	// maxDuration is wall clock: a request waiting for a person does not extend it.
	if now.Sub(r.info.Start) >= cfg.MaxDuration {
		r.stepLocked(onStop, StateTimedOut, fmt.Sprintf("ran longer than %s (runs.maxDuration)", cfg.MaxDuration))
		return
	}
	if r.pending > 0 {
		r.touch() // waiting for a person is not being idle
		return
	}
	idle := now.Sub(time.Unix(0, r.lastActivity.Load()))
	if idle >= cfg.IdleTimeout {
		if r.input.state == inputIdle || r.input.state == inputOver {
			// The turn is over and nobody followed up (or raised the budget): end the run as
			// CloseInput would.
			what := "no follow-up"
			if r.input.state == inputOver {
				what = "the budget was not raised"
			}
			r.emitLocked(Event{Type: EventStatus, Subtype: "idle", Text: fmt.Sprintf("%s for %s (runs.idleTimeout): closing the input", what, cfg.IdleTimeout)}, toFile)
			r.moveInputLocked(idleOver, "")
			return
		}
		reason := fmt.Sprintf("no output for %s (runs.idleTimeout)", cfg.IdleTimeout)
		if r.input.state == inputClosed && r.input.finished() {
			// Ending: Claude Code exits once its input is closed. One that has not, a
			// stop grace after the idle timeout, is stopped like any idle run.
			if idle < cfg.IdleTimeout+cfg.StopGrace {
				return
			}
			reason = fmt.Sprintf("did not exit within %s of its last output, after its input was closed", cfg.IdleTimeout+cfg.StopGrace)
		}
		r.stepLocked(onStop, StateTimedOut, reason)
	}
}
