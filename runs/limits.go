package runs

import (
	"fmt"
	"time"
)

// watch enforces the run's time limits and the second step of a stop, until done is
// closed.
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
		r.check(cfg, time.Now())
	}
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
		if r.input.state == inputIdle {
			// The turn is over and nobody followed up: end the run as CloseInput would.
			r.emitLocked(Event{Type: EventStatus, Subtype: "idle", Text: fmt.Sprintf("no follow-up for %s (runs.idleTimeout): closing the input", cfg.IdleTimeout)}, false)
			r.moveInputLocked(idleOver)
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
