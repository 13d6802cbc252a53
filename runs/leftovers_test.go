//go:build linux

package runs

import (
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/segwi/segwi/internal/testing/await"
	"github.com/segwi/segwi/internal/testing/proctest"
	"github.com/segwi/segwi/runs/record"
)

// sleeperMarker is on the command line of the process fakeclaude leaves behind in run id.
func sleeperMarker(id string) string { return "fakeclaude-sleeper-" + id }

// leftoverEvent returns the leftover event of evs about pid.
func leftoverEvent(evs []Event, pid int) (Event, bool) {
	return find(evs, func(e Event) bool {
		return e.Type == EventLeftover && e.Process != nil && e.Process.PID == pid
	})
}

func TestProcessesARunLeftAreGoneWhenItEnds(t *testing.T) {
	tests := []struct {
		name   string
		prompt string
		change func(*Config)
		act    func(t *testing.T, r *Run, rec startRecord)
		want   State
	}{
		{name: "a detached process that kept SEGWI_RUN_ID, in a run that succeeds", prompt: "fake:detach=env", want: StateSucceeded},
		{name: "a detached process with an empty environment, in a run that succeeds", prompt: "fake:detach=scrubbed", want: StateSucceeded},
		{name: "claude killed while a detached process runs", prompt: "fake:detach-hang=env", want: StateFailed,
			act: func(t *testing.T, r *Run, rec startRecord) { syscall.Kill(rec.PID, syscall.SIGKILL) }},
		{name: "a run stopped while a detached process runs", prompt: "fake:detach-hang=env", want: StateStopped,
			act: func(t *testing.T, r *Run, rec startRecord) { r.Stop() }},
		{name: "a run that ran out of time while a detached process with no environment runs", prompt: "fake:detach-hang=scrubbed", want: StateTimedOut,
			// Long enough for fakeclaude to start its detached process and say so first,
			// also on a loaded machine (500 ms was not, once, in the full test command).
			change: func(c *Config) { c.MaxDuration = 3 * time.Second }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m, recDir := testManager(t, tt.change)
			r := start(t, m, Spec{Prompt: tt.prompt})
			rec := waitStart(t, recDir, r.ID())
			marker := sleeperMarker(r.ID())
			proctest.KillAtEnd(t, rec.Detached, marker)
			if tt.act != nil {
				await.For(t, 10*time.Second, "the run to be running", func() bool { return r.State() == StateRunning })
				tt.act(t, r, rec)
			}
			info := wait(t, r)

			if proctest.Alive(rec.Detached, marker) {
				t.Errorf("process %d that the run left is alive after the run ended %s", rec.Detached, info.State)
			}
			if info.State != tt.want {
				t.Errorf("state = %s (%s), want %s", info.State, info.Reason, tt.want)
			}
			if !strings.Contains(info.Reason, "killed 1 process the run left") {
				t.Errorf("reason = %q, want it to say a process the run left was killed", info.Reason)
			}
			e, ok := leftoverEvent(events(t, m, r.ID()), rec.Detached)
			if !ok || !e.Process.Killed || !strings.Contains(e.Process.Command, "sleeper "+marker) {
				t.Errorf("leftover event = %+v (found %v), want one saying process %d (fakeclaude sleeper %s) was killed", e.Process, ok, rec.Detached, marker)
			}
		})
	}
}

// A run that waits for the checkout starts only once the processes of the run before it
// are gone: they could still write to it.
func TestACheckoutIsFreedOnlyOnceTheProcessesItsRunLeftAreGone(t *testing.T) {
	m, recDir := testManager(t, nil)
	checkout := newCheckout(t)
	first := start(t, m, Spec{Checkout: checkout, Prompt: "fake:detach-hang=env"})
	rec := waitStart(t, recDir, first.ID())
	proctest.KillAtEnd(t, rec.Detached, sleeperMarker(first.ID()))
	second := start(t, m, Spec{Checkout: checkout, Prompt: "fake:alive=" + strconv.Itoa(rec.Detached)})
	if got := second.State(); got != StateQueued {
		t.Fatalf("the second run is %s, want it queued behind the first", got)
	}
	first.Stop()
	wait(t, first)
	if info := wait(t, second); info.State != StateSucceeded {
		t.Fatalf("second run: %s (%s), want succeeded", info.State, info.Reason)
	}
	if after := waitStart(t, recDir, second.ID()); after.Alive == nil || *after.Alive {
		t.Errorf("the second run started while process %d of the first was alive (alive = %v)", rec.Detached, after.Alive)
	}
}

// segwi killed hard leaves the run's detached processes running; the next segwi to start
// ends those of runs no segwi owns, and says so on the run.
func TestTheNextSegwiSweepsWhatAKilledSegwiLeft(t *testing.T) {
	stateDir := t.TempDir()
	run := func(id string, state State) string {
		dir := filepath.Join(RunsDir(stateDir), id)
		if err := os.MkdirAll(dir, 0o700); err != nil {
			t.Fatal(err)
		}
		if err := writeInfo(dir, Info{ID: id, Kind: KindBuild, Checkout: t.TempDir(), State: state, Created: time.Now()}); err != nil {
			t.Fatal(err)
		}
		return dir
	}
	env := func(id string) []string { return append(os.Environ(), "SEGWI_RUN_ID="+id) }

	dead := "20250101-000000-dead00"
	run(dead, StateRunning)
	deadPID := proctest.Detach(t, env(dead), 7301)
	finished := "20250101-000000-f1n15d"
	run(finished, StateSucceeded)
	finishedPID := proctest.Detach(t, env(finished), 7302)
	owned := "20250101-000000-0wned0"
	lock, err := lockRun(run(owned, StateRunning)) // a live segwi owns this one
	if err != nil {
		t.Fatal(err)
	}
	defer lock.Close()
	ownedPID := proctest.Detach(t, env(owned), 7303)
	elsewhere := "20250101-000000-e15e00" // a run of another state folder
	elsewherePID := proctest.Detach(t, env(elsewhere), 7304)

	if _, err := NewManager(Config{StateDir: stateDir, Runtime: ClaudeRuntime(fakeClaude)}); err != nil {
		t.Fatalf("NewManager: %v", err)
	}

	for _, tc := range []struct {
		id    string
		pid   int
		sleep string
		swept bool
	}{{dead, deadPID, "sleep 7301", true}, {finished, finishedPID, "sleep 7302", true},
		{owned, ownedPID, "sleep 7303", false}, {elsewhere, elsewherePID, "sleep 7304", false}} {
		if alive := proctest.Alive(tc.pid, tc.sleep); alive == tc.swept {
			t.Errorf("process %d of run %s: alive %v after NewManager, want %v", tc.pid, tc.id, alive, !tc.swept)
		}
		if !tc.swept || tc.id == elsewhere {
			continue
		}
		var evs []Event
		if err := ReadEvents(stateDir, tc.id, func(e Event) error { evs = append(evs, e); return nil }); err != nil {
			t.Fatal(err)
		}
		e, ok := leftoverEvent(evs, tc.pid)
		if !ok || !e.Process.Killed || e.Process.Command != tc.sleep {
			t.Errorf("run %s: leftover event %+v (found %v), want one saying process %d was killed", tc.id, e.Process, ok, tc.pid)
		}
	}
	var evs []Event
	ReadEvents(stateDir, dead, func(e Event) error { evs = append(evs, e); return nil })
	if e, _ := leftoverEvent(evs, deadPID); !strings.Contains(e.Text, "after the segwi that ran it ended") {
		t.Errorf("run %s: leftover event %q, want it to say its segwi ended", dead, e.Text)
	}
	if info, _ := Load(stateDir, dead); info.State != StateInterrupted {
		t.Errorf("run %s is %s, want interrupted", dead, info.State)
	}
}

// Before a push reads the token, no process of the run may be left to rewrite the
// checkout's git configuration while git reads it.
func TestKillLeftoversEndsWhatTheRunStillHasRunning(t *testing.T) {
	m, recDir := testManager(t, nil)
	stateDir := m.config().StateDir
	ended := start(t, m, Spec{Prompt: "fake:success"})
	wait(t, ended)
	// A process with the run's id that no end of run saw: started after, as one that
	// slipped through would be.
	pid := proctest.Detach(t, append(os.Environ(), "SEGWI_RUN_ID="+ended.ID()), 7305)

	found, err := KillLeftovers(stateDir, ended.ID()[:len(ended.ID())-2])
	if err != nil {
		t.Fatalf("KillLeftovers: %v", err)
	}
	if len(found) != 1 || found[0].PID != pid || !found[0].Killed {
		t.Errorf("KillLeftovers found %+v, want process %d killed", found, pid)
	}
	if proctest.Alive(pid, "sleep 7305") {
		t.Errorf("process %d is alive after KillLeftovers", pid)
	}
	e, ok := leftoverEvent(events(t, m, ended.ID()), pid)
	if !ok || !strings.Contains(e.Text, "before a push") || e.Process.Command != "sleep 7305" {
		t.Errorf("leftover event = %+v (found %v), want one saying process %d was killed before a push", e, ok, pid)
	}

	going := start(t, m, Spec{Prompt: "fake:detach-hang=env"})
	rec := waitStart(t, recDir, going.ID())
	proctest.KillAtEnd(t, rec.Detached, sleeperMarker(going.ID()))
	if _, err := KillLeftovers(stateDir, going.ID()); !errors.Is(err, ErrRunLive) {
		t.Errorf("KillLeftovers of a run going: got %v, want ErrRunLive", err)
	}
	if !proctest.Alive(rec.Detached, sleeperMarker(going.ID())) {
		t.Errorf("KillLeftovers killed process %d of a run still going", rec.Detached)
	}
}

// segwi adopts what leaves its runs; what ends must not stay a zombie.
func TestOrphansOfARunThatEndAreReaped(t *testing.T) {
	m, recDir := testManager(t, nil)
	r := start(t, m, Spec{Prompt: "fake:detach=brief"})
	rec := waitStart(t, recDir, r.ID())
	wait(t, r)
	await.For(t, 10*time.Second, "no zombie child of this process", func() bool {
		st, err := os.ReadFile("/proc/" + strconv.Itoa(rec.Detached) + "/stat")
		return err != nil || !strings.Contains(string(st), ") Z "+strconv.Itoa(os.Getpid())+" ")
	})
}

// What segwi itself starts outside its runs, and leaves (an editor or browser opened from
// the tray that detaches), is segwi's orphan too, but no run's: a run's end leaves it alone.
func TestAProcessSegwiStartedOutsideItsRunsOutlivesARun(t *testing.T) {
	m, recDir := testManager(t, nil)
	r := start(t, m, Spec{Prompt: "fake:detach-hang=scrubbed"})
	rec := waitStart(t, recDir, r.ID())
	proctest.KillAtEnd(t, rec.Detached, sleeperMarker(r.ID()))
	pid := proctest.Detach(t, nil, 7306) // segwi's own environment
	r.Stop()
	wait(t, r)
	if !proctest.Alive(pid, "sleep 7306") {
		t.Errorf("process %d, started by segwi outside its runs, was killed at the run's end", pid)
	}
	if proctest.Alive(rec.Detached, sleeperMarker(r.ID())) {
		t.Errorf("process %d, which left the run with an empty environment, is alive", rec.Detached)
	}
}

// A run that starts after a segwi was killed with runs going finds none of their
// processes left: the killed segwi's checkout lock died with it.
func TestARunStartsOnlyOnceWhatAKilledSegwiLeftIsGone(t *testing.T) {
	m, recDir := testManager(t, nil)
	stateDir := m.config().StateDir
	dead := "20250101-000000-dead01"
	dir := filepath.Join(RunsDir(stateDir), dead)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	// What its segwi left when it was killed: the run's record, its mark, and the stamp
	// that says a run went without a cgroup (as one does where it cannot have one).
	if err := writeInfo(dir, Info{ID: dead, Kind: KindBuild, Checkout: t.TempDir(), State: StateRunning, Created: time.Now()}); err != nil {
		t.Fatal(err)
	}
	if err := errors.Join(markLive(stateDir, dead), stamp(stateDir, noCgroupStamp)); err != nil {
		t.Fatal(err)
	}
	pid := proctest.Detach(t, append(os.Environ(), "SEGWI_RUN_ID="+dead), 7307)

	r := start(t, m, Spec{Prompt: "fake:alive=" + strconv.Itoa(pid)})
	if info := wait(t, r); info.State != StateSucceeded {
		t.Fatalf("state = %s (%s), want succeeded", info.State, info.Reason)
	}
	if rec := waitStart(t, recDir, r.ID()); rec.Alive == nil || *rec.Alive {
		t.Errorf("the run started while process %d of run %s, whose segwi was killed, was alive", pid, dead)
	}
}

// BenchmarkScanProcs measures one read of the process table, as a run's end makes it.
func BenchmarkScanProcs(b *testing.B) {
	n := 0
	for b.Loop() {
		procs, err := scanProcs()
		if err != nil {
			b.Fatal(err)
		}
		n = len(procs)
	}
	b.ReportMetric(float64(n), "procs")
}

// A sweep of /proc for what dead runs left is made only where a run could have left
// processes outside a cgroup: one recorded since the system started that names none.
func TestOnlyARunWithoutACgroupSinceBootCallsForASweep(t *testing.T) {
	boot := bootTime()
	if boot.IsZero() {
		t.Fatal("bootTime: the zero time on Linux")
	}
	entry := func(at time.Time, summary string) indexEntry {
		return indexEntry{Key: record.RecordKey{MTime: at.UnixNano()}, Summary: []byte(summary)}
	}
	inCgroup := `{"id":"a","cgroup":"/sys/fs/cgroup/segwi-run-a"}`
	without := `{"id":"b"}`
	for _, tc := range []struct {
		name    string
		entries []indexEntry
		want    bool
	}{
		{"no run", nil, false},
		{"runs in cgroups", []indexEntry{entry(time.Now(), inCgroup), entry(time.Now(), inCgroup)}, false},
		{"a run without one since the start", []indexEntry{entry(time.Now(), inCgroup), entry(time.Now(), without)}, true},
		{"a run without one before the start", []indexEntry{entry(boot.Add(-time.Minute), without), entry(time.Now(), inCgroup)}, false},
	} {
		if got := procSweepNeeded(tc.entries); got != tc.want {
			t.Errorf("%s: procSweepNeeded = %v, want %v", tc.name, got, tc.want)
		}
	}
}
