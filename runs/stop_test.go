package runs

import (
	"errors"
	"slices"
	"syscall"
	"testing"
	"time"

	"github.com/segwi/segwi/internal/testing/await"
)

func TestStopReachesAGroupThatIgnoresSIGTERM(t *testing.T) {
	tests := []struct {
		name       string
		secondStop bool
	}{
		{"the kill comes after the grace period", false},
		{"a second stop kills at once", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m, recDir := testManager(t, func(c *Config) {
				c.StopGrace = 400 * time.Millisecond
				if tt.secondStop {
					c.StopGrace = time.Hour
				}
			})
			r := start(t, m, Spec{Prompt: "fake:ignore-term"})
			rec := waitStart(t, recDir, r.ID())
			await.For(t, 10*time.Second, "the run to be running", func() bool { return r.State() == StateRunning })
			began := time.Now()
			r.Stop()
			if tt.secondStop {
				await.For(t, 10*time.Second, "the run to be stopping", func() bool { return r.State() == StateStopping })
				r.Stop()
			}
			info := wait(t, r)
			if info.State != StateStopped {
				t.Errorf("state = %s (%s), want stopped", info.State, info.Reason)
			}
			if !tt.secondStop && time.Since(began) < 400*time.Millisecond {
				t.Errorf("ended %s after the stop, before the grace period", time.Since(began))
			}
			if rec.Grandchild == 0 {
				t.Fatalf("fakeclaude started no grandchild")
			}
			if groupAlive(rec.PGID) {
				t.Errorf("a process of group %d is alive after the run ended", rec.PGID)
			}
			// A killed process lingers as a zombie until its new parent reaps it.
			await.For(t, 10*time.Second, "kill(-pgid, 0) to return ESRCH", func() bool {
				return errors.Is(syscall.Kill(-rec.PGID, 0), syscall.ESRCH)
			})
			evs := events(t, m, r.ID())
			if _, ok := find(evs, func(e Event) bool { return e.Type == EventStatus && e.Subtype == "kill" }); !ok {
				t.Errorf("no kill status among %v", types(evs))
			}
			if got := states(evs); !slices.Equal(got[len(got)-2:], []State{StateStopping, StateStopped}) {
				t.Errorf("states = %v, want them to end stopping, stopped", got)
			}
		})
	}
}

// TestStopPhaseMoves lists where every trigger takes every phase, and what the move does:
// the whole of the two-step stop. A pair missing from the table fails the test, so a new
// phase or trigger cannot go unlisted.
func TestStopPhaseMoves(t *testing.T) {
	type move struct {
		from phase
		on   trigger
	}
	tests := []struct {
		name string
		move
		to   phase
		does effect
	}{
		{"a first stop sends SIGTERM", move{phaseRunning, onStop}, phaseStopping, doStop},
		{"a running run has no grace to wait out", move{phaseRunning, onGrace}, phaseRunning, doNothing},
		{"a process starting without a stop is left alone", move{phaseRunning, onStarted}, phaseRunning, doNothing},
		{"a run that exits by itself is exited", move{phaseRunning, onExited}, phaseExited, doNothing},
		{"a run that ends before it started is ended", move{phaseRunning, onEnded}, phaseEnded, doNothing},
		{"a run that ends before it started holds its last events back", move{phaseRunning, onEnding}, phaseEnding, doNothing},

		{"a second stop kills", move{phaseStopping, onStop}, phaseKilling, doKill},
		{"the grace passed kills", move{phaseStopping, onGrace}, phaseKilling, doKill},
		{"a process that starts after a stop gets SIGTERM", move{phaseStopping, onStarted}, phaseStopping, doTerm},
		{"a stopped run that exits is exited", move{phaseStopping, onExited}, phaseExited, doNothing},
		{"a run stopped while it started ends", move{phaseStopping, onEnded}, phaseEnded, doNothing},
		{"a run stopped while it started begins its end", move{phaseStopping, onEnding}, phaseEnding, doNothing},

		{"a third stop adds nothing", move{phaseKilling, onStop}, phaseKilling, doNothing},
		{"the grace after a kill adds nothing", move{phaseKilling, onGrace}, phaseKilling, doNothing},
		{"a process that starts after a second stop gets SIGKILL", move{phaseKilling, onStarted}, phaseKilling, doKill},
		{"a killed run that exits is exited", move{phaseKilling, onExited}, phaseExited, doNothing},
		{"a run killed while it started ends", move{phaseKilling, onEnded}, phaseEnded, doNothing},
		{"a run killed while it started begins its end", move{phaseKilling, onEnding}, phaseEnding, doNothing},

		{"a stop after the exit changes nothing", move{phaseExited, onStop}, phaseExited, doNothing},
		{"the grace after the exit changes nothing", move{phaseExited, onGrace}, phaseExited, doNothing},
		{"a start after the exit cannot happen and does nothing", move{phaseExited, onStarted}, phaseExited, doNothing},
		{"a second exit does nothing", move{phaseExited, onExited}, phaseExited, doNothing},
		{"an exited run ends", move{phaseExited, onEnded}, phaseEnded, doNothing},
		{"an exited run begins its end", move{phaseExited, onEnding}, phaseEnding, doNothing},

		{"a stop while the run ends changes nothing", move{phaseEnding, onStop}, phaseEnding, doNothing},
		{"the grace while the run ends changes nothing", move{phaseEnding, onGrace}, phaseEnding, doNothing},
		{"a start while the run ends cannot happen and does nothing", move{phaseEnding, onStarted}, phaseEnding, doNothing},
		{"an exit while the run ends does nothing", move{phaseEnding, onExited}, phaseEnding, doNothing},
		{"a second beginning of the end does nothing", move{phaseEnding, onEnding}, phaseEnding, doNothing},
		{"an ending run ends", move{phaseEnding, onEnded}, phaseEnded, doNothing},

		{"a stop after the end changes nothing", move{phaseEnded, onStop}, phaseEnded, doNothing},
		{"the grace after the end changes nothing", move{phaseEnded, onGrace}, phaseEnded, doNothing},
		{"a start after the end does nothing", move{phaseEnded, onStarted}, phaseEnded, doNothing},
		{"an exit after the end does nothing", move{phaseEnded, onExited}, phaseEnded, doNothing},
		{"the end does not begin again", move{phaseEnded, onEnding}, phaseEnded, doNothing},
		{"a second end does nothing", move{phaseEnded, onEnded}, phaseEnded, doNothing},
	}
	listed := map[move]bool{}
	for _, tt := range tests {
		listed[tt.move] = true
		t.Run(tt.name, func(t *testing.T) {
			to, does := tt.from.next(tt.on)
			if to != tt.to || does != tt.does {
				t.Errorf("%s on %s: got %s doing %s, want %s doing %s", tt.from, tt.on, to, does, tt.to, tt.does)
			}
		})
	}
	for p := phaseRunning; p <= phaseEnded; p++ {
		for on := onStop; on <= onEnded; on++ {
			if !listed[move{p, on}] {
				t.Errorf("the table does not say what %s does to a run %s", on, p)
			}
		}
	}
}

// signals is a fake process group's kill: it records the signals the run sends to group
// pgid, and fails the test on a signal to anything else.
type signals struct {
	t    *testing.T
	pgid int
	sent []syscall.Signal
}

func (s *signals) kill(pid int, sig syscall.Signal) error {
	if pid != -s.pgid {
		s.t.Errorf("signal %v sent to %d, want the group %d", sig, pid, -s.pgid)
	}
	s.sent = append(s.sent, sig)
	return nil
}

// phaseRun returns a bare run in phase from, its process started (with a fake group that
// records signals) or not yet, and the signals sent to it.
func phaseRun(t *testing.T, from phase, started bool) (*Run, *signals) {
	t.Helper()
	r := bareRun(t, t.TempDir())
	t.Cleanup(func() { r.rec.close() })
	sig := &signals{t: t, pgid: 4242}
	r.info.State = StateStarting
	if started {
		r.proc = &process{pgid: sig.pgid, kill: sig.kill}
		r.info.State = StateRunning
	}
	r.phase = from
	if from == phaseStopping || from == phaseKilling {
		r.stopped = stopRequest{as: StateStopped, reason: "stopped by a person", at: time.Now()}
		r.info.State = StateStopping
	}
	return r, sig
}

// TestStopPhaseEffects runs each move that does something on a run, and checks what a
// person and the process see: the signal the group gets, the state recorded, the kill
// status that says why.
func TestStopPhaseEffects(t *testing.T) {
	const grace = "still running 10s after SIGTERM (runs.stopGrace): killing its process group"
	tests := []struct {
		name     string
		from     phase
		started  bool
		on       trigger
		why      string
		to       phase
		signals  []syscall.Signal
		state    State  // the run's state afterwards
		kill     string // the kill status event's text; "" for none
		stopping bool   // the stop is recorded: the run will end stopped
	}{
		{"a first stop says stopping and sends SIGTERM", phaseRunning, true, onStop, "stopped by a person",
			phaseStopping, []syscall.Signal{syscall.SIGTERM}, StateStopping, "", true},
		{"a stop while the run starts says stopping and signals nothing yet", phaseRunning, false, onStop, "stopped by a person",
			phaseStopping, nil, StateStopping, "", true},
		{"a process that starts after a stop gets SIGTERM", phaseStopping, true, onStarted, "",
			phaseStopping, []syscall.Signal{syscall.SIGTERM}, StateStopping, "", true},
		{"a second stop sends SIGKILL and says so", phaseStopping, true, onStop, "stopped by a person",
			phaseKilling, []syscall.Signal{syscall.SIGKILL}, StateStopping, "stopped a second time: killing its process group", true},
		{"the grace passed sends SIGKILL and says why", phaseStopping, true, onGrace, grace,
			phaseKilling, []syscall.Signal{syscall.SIGKILL}, StateStopping, grace, true},
		{"a second stop while the run starts waits for its process", phaseStopping, false, onStop, "stopped by a person",
			phaseKilling, nil, StateStopping, "", true},
		{"a process that starts after a second stop gets SIGKILL", phaseKilling, true, onStarted, "",
			phaseKilling, []syscall.Signal{syscall.SIGKILL}, StateStopping, "stopped a second time: killing its process group", true},
		{"a third stop sends nothing more", phaseKilling, true, onStop, "stopped by a person",
			phaseKilling, nil, StateStopping, "", true},
		{"a stop after the exit sends nothing and records nothing", phaseExited, true, onStop, "stopped by a person",
			phaseExited, nil, StateRunning, "", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r, sig := phaseRun(t, tt.from, tt.started)
			before := r.State()
			r.mu.Lock()
			r.stepLocked(tt.on, StateStopped, tt.why)
			r.mu.Unlock()
			if r.phase != tt.to {
				t.Errorf("phase = %s, want %s", r.phase, tt.to)
			}
			if !slices.Equal(sig.sent, tt.signals) {
				t.Errorf("signals sent = %v, want %v", sig.sent, tt.signals)
			}
			if got := r.State(); got != tt.state {
				t.Errorf("state = %s, want %s", got, tt.state)
			}
			if disk, err := readInfo(r.dir); tt.state != before && (err != nil || disk.State != tt.state) {
				t.Errorf("run.json = %+v, %v; want state %s recorded", disk, err, tt.state)
			}
			kill, _ := find(r.backlog, func(e Event) bool { return e.Type == EventStatus && e.Subtype == "kill" })
			if kill.Text != tt.kill {
				t.Errorf("kill status = %q, want %q", kill.Text, tt.kill)
			}
			if got := r.stopped.as == StateStopped; got != tt.stopping {
				t.Errorf("stop recorded = %v (%+v), want %v", got, r.stopped, tt.stopping)
			}
		})
	}
}

// A run whose process exited with a success ends succeeded, even when a Stop comes
// between the exit and the end (the person pressed Stop as it finished).
func TestAStopAfterTheProcessExitedKeepsItsSuccess(t *testing.T) {
	r, sig := phaseRun(t, phaseRunning, true)
	r.input = inputAfter(false, sendPrompt, gotResult)
	r.mu.Lock()
	r.stepLocked(onExited, "", "")
	r.mu.Unlock()
	r.stopFor(StateStopped, "stopped by a person") // Stop, as the run's owner carries it out
	r.mu.Lock()
	state, reason := r.outcomeLocked(ExitInfo{Code: 0}, "")
	r.mu.Unlock()
	if state != StateSucceeded {
		t.Errorf("outcome = %s (%s), want succeeded", state, reason)
	}
	if len(sig.sent) > 0 {
		t.Errorf("the Stop sent %v to a group whose leader exited", sig.sent)
	}
}
