package e2e

import (
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/segwi/segwi/internal/testing/fakeapi"
	"github.com/segwi/segwi/runs"
)

// Claude Code runs each Bash tool in a session of its own, out of reach of the stop's
// group kill and of claude's death. These tests check that none of a run's processes
// outlives it, however the run ends, and that the record says what was killed.

// A `kill -9` of segwi leaves the tool's shell and its sleep running; the next segwi
// command ends them (here `segwi runs`; the tray app and `segwi run` do it at their start).
func TestProcessesOfASegwiKilledHardAreEndedByTheNextSegwi(t *testing.T) {
	sleep := fakeapi.ToolUse("Bash", fakeapi.Input{"command": "echo started && sleep 311 && echo finished", "description": "Wait"})
	s := newScenario(t, fakeapi.Turns(fakeapi.Say(sleep), fakeapi.Say(fakeapi.Text("Done waiting."))))
	s.writeConfig(config{})

	p := s.start("run", "Wait five minutes")
	id := p.runID()
	killRunAtEnd(t, id)
	p.waitWhileRunning(t, 30*time.Second, "the run's sleep 311 to start", func() bool {
		return len(runProcesses(id, "sleep\x00311\x00")) > 0
	})
	p.cmd.Process.Signal(syscall.SIGKILL)
	<-p.done
	// As the issue found: claude died with segwi, the tool's processes did not.
	if left := runProcesses(id, ""); len(left) == 0 {
		t.Fatalf("nothing of run %s outlived segwi's kill -9: this test proves nothing", id)
	} else {
		t.Logf("left running by the killed segwi: %v", left)
	}

	wantExit(t, s.start("runs"), 0) // fails the test if a process of the scenario is left

	if left := runProcesses(id, ""); len(left) > 0 {
		t.Errorf("processes of run %s are alive after the next segwi started: %v", id, left)
	}
	rec := s.loadRecord(id)
	if rec.info.State != runs.StateInterrupted {
		t.Errorf("run.json: state %s (%s), want interrupted", rec.info.State, rec.info.Reason)
	}
	wantKilled(t, rec, "sleep 311", "after the segwi that ran it ended")
}

// A `kill -9` of claude alone ends the run as failed; what its tools left is killed
// before the run ends, and the run says so.
func TestWhatClaudeKilledHardLeftIsKilledWithTheRun(t *testing.T) {
	sleep := fakeapi.ToolUse("Bash", fakeapi.Input{"command": "echo started && sleep 312 && echo finished", "description": "Wait"})
	s := newScenario(t, fakeapi.Turns(fakeapi.Say(sleep), fakeapi.Say(fakeapi.Text("Done waiting."))))
	s.writeConfig(config{})

	p := s.start("run", "Wait five minutes")
	id := p.runID()
	killRunAtEnd(t, id)
	p.waitWhileRunning(t, 30*time.Second, "the run's sleep 312 to start", func() bool {
		return len(runProcesses(id, "sleep\x00312\x00")) > 0
	})
	claude := s.loadRecord(id).info.PID
	if claude == 0 {
		t.Fatal("run.json names no claude process")
	}
	if err := syscall.Kill(claude, syscall.SIGKILL); err != nil {
		t.Fatalf("killing claude (pid %d): %v", claude, err)
	}
	wantExit(t, p, 1) // fails the test if a process of the scenario is left

	rec := s.loadRecord(id)
	if rec.info.State != runs.StateFailed || !strings.Contains(rec.info.Reason, "the run left running") {
		t.Errorf("run.json: state %s (%s), want failed, saying what the run left was killed", rec.info.State, rec.info.Reason)
	}
	wantKilled(t, rec, "sleep 312", "which the run left running:")
}

// A process the agent detaches on purpose, in a run that succeeds, ends with the run.
func TestADetachedProcessEndsWithItsRun(t *testing.T) {
	detach := fakeapi.ToolUse("Bash", fakeapi.Input{"command": "setsid -f sleep 613", "description": "Start a background sleep"})
	s := newScenario(t, fakeapi.Turns(fakeapi.Say(detach), fakeapi.Say(fakeapi.Text("Started it."))))
	s.writeConfig(config{})

	p := s.start("run", "Start a background sleep")
	id := p.runID()
	killRunAtEnd(t, id)
	wantExit(t, p, 0) // fails the test if a process of the scenario is left

	rec := s.loadRecord(id)
	if rec.info.State != runs.StateSucceeded || !strings.Contains(rec.info.Reason, "killed 1 process the run left running") {
		t.Errorf("run.json: state %s (%s), want succeeded, saying it killed the process the run left", rec.info.State, rec.info.Reason)
	}
	wantKilled(t, rec, "sleep 613", "which the run left running:")
}

// wantKilled fails the test unless the run records, in words holding say, the kill of a
// process whose command line is command.
func wantKilled(t *testing.T, rec record, command, say string) {
	t.Helper()
	killed := rec.find(runs.EventLeftover, func(e runs.Event) bool {
		return e.Process != nil && e.Process.Killed && e.Process.Command == command && e.Process.PID > 0 && strings.Contains(e.Text, say)
	})
	if len(killed) != 1 {
		var got []string
		for _, e := range rec.find(runs.EventLeftover, nil) {
			got = append(got, e.Text)
		}
		t.Errorf("run %s records the kill of %q (saying %q) %d times, want once; leftover events: %q", rec.info.ID, command, say, len(killed), got)
	}
}

// killRunAtEnd kills, at the end of the test, every process still carrying run id's
// SEGWI_RUN_ID, so that a failing test leaves nothing running.
func killRunAtEnd(t *testing.T, id string) {
	t.Cleanup(func() {
		for _, p := range runProcesses(id, "") {
			pid, _, _ := strings.Cut(p, ":")
			if n, err := strconv.Atoi(pid); err == nil {
				syscall.Kill(n, syscall.SIGKILL)
			}
		}
	})
}
