package runs

import (
	"syscall"
	"time"
)

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
