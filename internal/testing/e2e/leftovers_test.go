package e2e

import (
	"fmt"
	"os"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/segwi/segwi/internal/testing/fakeapi"
	"github.com/segwi/segwi/internal/testing/proctest"
	"github.com/segwi/segwi/runs"
)

// Claude Code runs each Bash tool in a session of its own, out of reach of the stop's
// group kill and of claude's death. These tests check that none of a run's processes
// outlives it, however the run ends, and that the record says what was killed.

// A `kill -9` of segwi leaves the tool's shell and its sleep running; the next segwi
// command ends them (here `segwi runs`; the tray app and `segwi run` do it at their start).
func TestProcessesOfASegwiKilledHardAreEndedByTheNextSegwi(t *testing.T) {
	twoAtATime(t)
	sleep := fakeapi.ToolUse("Bash", fakeapi.Input{"command": "echo started && sleep 311 && echo finished", "description": "Wait"})
	s := newScenario(t, fakeapi.Turns(fakeapi.Say(sleep), fakeapi.Say(fakeapi.Text("Done waiting."))))
	s.writeConfig(config{})

	p := s.start("run", "Wait five minutes")
	id := p.runID()
	killRunAtEnd(t, id)
	p.waitWhileRunning(t, claudeActs, "the run's sleep 311 to start", func() bool {
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
	twoAtATime(t)
	sleep := fakeapi.ToolUse("Bash", fakeapi.Input{"command": "echo started && sleep 312 && echo finished", "description": "Wait"})
	s := newScenario(t, fakeapi.Turns(fakeapi.Say(sleep), fakeapi.Say(fakeapi.Text("Done waiting."))))
	s.writeConfig(config{})

	p := s.start("run", "Wait five minutes")
	id := p.runID()
	killRunAtEnd(t, id)
	p.waitWhileRunning(t, claudeActs, "the run's sleep 312 to start", func() bool {
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
	twoAtATime(t)
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

// The attack of issue 20, end to end: the agent starts six fork-hoppers with setsid -f,
// each forking every 300 µs (its parent exiting at once) for 8 s and then becoming a
// sleep with an empty environment, and the run succeeds while they hop. A sweep of /proc
// lost that race; the run's cgroup ends every one of them, and the run records each.
func TestForkHoppersEndWithTheirRun(t *testing.T) {
	twoAtATime(t)
	h := proctest.NewHoppers(t, 8*time.Second, 7351)
	s := newScenario(t, hopperScript(h, fakeapi.Say(fakeapi.Text("Started them."))))
	s.writeConfig(config{})

	p := s.start("run", "Start six background jobs")
	id := p.runID()
	killRunAtEnd(t, id)
	wantExit(t, p, 0)

	if !h.Started(6) {
		t.Fatal("the six fork-hoppers did not all start: this test proves nothing")
	}
	if !h.Gone(5 * time.Second) {
		t.Errorf("processes of the six fork-hoppers are alive after segwi exited")
	}
	rec := s.loadRecord(id)
	if rec.info.State != runs.StateSucceeded || !strings.Contains(rec.info.Reason, "the run left running") {
		t.Errorf("run.json: state %s (%s), want succeeded, saying what the run left was killed", rec.info.State, rec.info.Reason)
	}
	wantHoppersKilled(t, rec, h, "which the run left running:")
}

// The same attack with segwi killed -9 while the hoppers hop: the next segwi command ends
// them through the cgroup the run's record names.
func TestForkHoppersOfASegwiKilledHardEndWithTheNextSegwi(t *testing.T) {
	twoAtATime(t)
	h := proctest.NewHoppers(t, 8*time.Second, 7352)
	s := newScenario(t, hopperScript(h, fakeapi.Hang()))
	s.writeConfig(config{})

	p := s.start("run", "Start six background jobs")
	id := p.runID()
	killRunAtEnd(t, id)
	p.waitWhileRunning(t, claudeActs, "the six fork-hoppers to start", func() bool { return h.Started(6) })
	p.cmd.Process.Signal(syscall.SIGKILL)
	<-p.done
	if h.Gone(0) {
		t.Fatal("the fork-hoppers died with segwi: this test proves nothing")
	}

	wantExit(t, s.start("runs"), 0)

	if !h.Gone(5 * time.Second) {
		t.Errorf("processes of the six fork-hoppers are alive after the next segwi started")
	}
	rec := s.loadRecord(id)
	if rec.info.State != runs.StateInterrupted {
		t.Errorf("run.json: state %s (%s), want interrupted", rec.info.State, rec.info.Reason)
	}
	wantHoppersKilled(t, rec, h, "after the segwi that ran it ended")
}

// hopperScript is the fake model of the fork-hopper tests: a Bash call that starts six
// fork-hoppers with setsid -f, then, once all six hop, then.
func hopperScript(h *proctest.Hoppers, then fakeapi.Reply) fakeapi.Script {
	start := fakeapi.ToolUse("Bash", fakeapi.Input{
		"command":     "for i in 1 2 3 4 5 6; do setsid -f " + strings.Join(h.Command(), " ") + "; done",
		"description": "Start six background jobs",
	})
	return func(req *fakeapi.Request) fakeapi.Reply {
		switch req.Turn() {
		case 0:
			return fakeapi.Say(start)
		case 1:
			// The run goes on only once all six hop: their race with its end is the attack.
			for deadline := time.Now().Add(30 * time.Second); !h.Started(6) && time.Now().Before(deadline); {
				time.Sleep(5 * time.Millisecond)
			}
			return then
		}
		return fakeapi.Unexpected("the fork-hopper script has 2 replies, got a request for turn %d", req.Turn())
	}
}

// wantHoppersKilled fails the test unless the run records, in words holding say, the kill
// of at least six processes of the fork-hoppers h, and says its processes were kept in a
// cgroup, now gone.
func wantHoppersKilled(t *testing.T, rec record, h *proctest.Hoppers, say string) {
	t.Helper()
	killed := rec.find(runs.EventLeftover, func(e runs.Event) bool {
		return e.Process != nil && e.Process.Killed && strings.Contains(e.Text, say) &&
			(strings.HasPrefix(e.Process.Command, h.Path()+" ") || e.Process.Command == fmt.Sprintf("sleep %d", h.Seconds()))
	})
	if len(killed) < 6 {
		var got []string
		for _, e := range rec.find(runs.EventLeftover, nil) {
			got = append(got, e.Text)
		}
		t.Errorf("run %s records the kill of %d processes of the fork-hoppers (saying %q), want at least 6; leftover events: %q", rec.info.ID, len(killed), say, got)
	}
	said := rec.find(runs.EventStatus, func(e runs.Event) bool { return strings.Contains(e.Text, "kept in cgroup "+rec.info.Cgroup+":") })
	if rec.info.Cgroup == "" || len(said) != 1 {
		t.Errorf("run.json names cgroup %q (no cgroup: %q), %d status events say the processes are kept there; want it named, and said once", rec.info.Cgroup, rec.info.NoCgroup, len(said))
	}
	if _, err := os.Stat(rec.info.Cgroup); rec.info.Cgroup != "" && err == nil {
		t.Errorf("the run's cgroup %s is still there", rec.info.Cgroup)
	}
}
