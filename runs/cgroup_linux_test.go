package runs

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/segwi/segwi/internal/testing/await"
	"github.com/segwi/segwi/internal/testing/claudetest"
	"github.com/segwi/segwi/internal/testing/proctest"
	"github.com/segwi/segwi/runs/worktree"
)

// noCgroupEnv, set to 1, makes every run of this test binary fall back to the sweep, as on
// a system where segwi can make no cgroup:
//
//	SEGWI_RUNS_TEST_NO_CGROUP=1 go test ./runs -run Hopper
//
// shows the fork-hoppers escape the sweep, the attack of issue 20.
const noCgroupEnv = "SEGWI_RUNS_TEST_NO_CGROUP"

func init() {
	if os.Getenv(noCgroupEnv) == "1" {
		cgroupHome.once.Do(func() {})
		cgroupHome.err = errors.New("cgroups are off for this test binary (" + noCgroupEnv + "=1)")
	}
}

// needCgroups skips the test where this process can make no cgroup (or fails it under
// SEGWI_TEST_STRICT=1), unless noCgroupEnv turned them off on purpose.
func needCgroups(t *testing.T) {
	t.Helper()
	if _, err := runCgroupHome(); err != nil && os.Getenv(noCgroupEnv) != "1" {
		msg := fmt.Sprintf("segwi can make no cgroup here (%v): as root on Linux with cgroup v2 it can", err)
		if os.Getenv(claudetest.StrictEnv) == "1" {
			t.Fatal(msg)
		}
		t.Skip(msg)
	}
}

// withoutCgroups makes the runs of the test fall back to the sweep, as where no cgroup
// can be made.
func withoutCgroups(t *testing.T) {
	runCgroupHome()
	dir, err := cgroupHome.dir, cgroupHome.err
	cgroupHome.dir, cgroupHome.err = "", errors.New("no cgroup in this test")
	t.Cleanup(func() { cgroupHome.dir, cgroupHome.err = dir, err })
}

// trackings are the two ways a run keeps track of its processes, for the tests that must
// hold either way: each sets the way up and says whether the run has a cgroup.
var trackings = []struct {
	name   string
	set    func(t *testing.T)
	cgroup bool
}{
	{"in the run's cgroup", needCgroups, true},
	{"without a cgroup, by the sweep", withoutCgroups, false},
}

// wantTracking fails the test unless the run's record and its status event say how it
// kept track of its processes, cgroup saying which, and its cgroup is gone.
func wantTracking(t *testing.T, info Info, evs []Event, cgroup bool) {
	t.Helper()
	said, _ := find(evs, func(e Event) bool { return e.Type == EventStatus && e.Subtype == subtypeProcesses })
	switch {
	case cgroup && (info.Cgroup == "" || info.NoCgroup != ""):
		t.Errorf("run.json: cgroup %q, noCgroup %q; want the run's cgroup named", info.Cgroup, info.NoCgroup)
	case cgroup && cgroupLeft(info.Cgroup):
		t.Errorf("the run's cgroup %s is still there after the run ended", info.Cgroup)
	case cgroup && !strings.Contains(said.Text, "kept in cgroup "+info.Cgroup+":"):
		t.Errorf("status event %q; want it to say the processes are kept in cgroup %s", said.Text, info.Cgroup)
	case !cgroup && (info.Cgroup != "" || info.NoCgroup == ""):
		t.Errorf("run.json: cgroup %q, noCgroup %q; want no cgroup, and why", info.Cgroup, info.NoCgroup)
	case !cgroup && !strings.Contains(said.Text, "no cgroup ("+info.NoCgroup+"): at the run's end segwi finds them by reading /proc"):
		t.Errorf("status event %q; want it to say why the run had no cgroup", said.Text)
	}
}

// hopperLeftovers returns the leftover events of evs about the hoppers' processes.
func hopperLeftovers(evs []Event, h *proctest.Hoppers) []Event {
	var out []Event
	for _, e := range evs {
		if e.Type == EventLeftover && e.Process != nil &&
			(strings.HasPrefix(e.Process.Command, h.Path()+" ") || e.Process.Command == fmt.Sprintf("sleep %d", h.Seconds())) {
			out = append(out, e)
		}
	}
	return out
}

// wantHoppersKilled fails the test unless evs record the kill of at least n processes of
// the hoppers (a hopper caught between its fork and its parent's exit is two), each killed,
// and saying where.
func wantHoppersKilled(t *testing.T, evs []Event, h *proctest.Hoppers, n int, where string) {
	t.Helper()
	left := hopperLeftovers(evs, h)
	if len(left) < n {
		t.Errorf("%d leftover events name the fork-hoppers, want at least %d", len(left), n)
	}
	for _, e := range left {
		if !e.Process.Killed || !strings.Contains(e.Text, where) {
			t.Errorf("leftover event %q (killed %v); want each saying it killed the process%s", e.Text, e.Process.Killed, where)
		}
	}
}

// The attack of issue 20: six processes that fork, let their parent exit and fork again
// every 300 µs for 8 s, then become a sleep with an empty environment. A sweep of /proc
// races them and loses; the run's cgroup holds every one of them, however the run ends.
func TestForkHoppersEndWithTheirRun(t *testing.T) {
	tests := []struct {
		name   string
		prompt string
		act    func(t *testing.T, r *Run, rec startRecord, recDir string)
		want   State
	}{
		{name: "a run that succeeds while they hop", prompt: "fake:hop=6", want: StateSucceeded,
			act: func(t *testing.T, r *Run, rec startRecord, recDir string) {
				if err := os.WriteFile(filepath.Join(recDir, r.ID()+".hopping"), nil, 0o600); err != nil {
					t.Fatal(err)
				}
			}},
		{name: "a run stopped while they hop", prompt: "fake:hop-hang=6", want: StateStopped,
			act: func(t *testing.T, r *Run, rec startRecord, recDir string) { r.Stop() }},
		{name: "a run whose Claude Code is killed while they hop", prompt: "fake:hop-hang=6", want: StateFailed,
			act: func(t *testing.T, r *Run, rec startRecord, recDir string) { syscall.Kill(rec.PID, syscall.SIGKILL) }},
	}
	for i, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			needCgroups(t)
			h := proctest.NewHoppers(t, 8*time.Second, 7311+i)
			m, recDir := testManager(t, func(c *Config) {
				c.Env = append(c.Env, "FAKECLAUDE_HOPPER="+strings.Join(h.Command(), " "))
			})
			r := start(t, m, Spec{Prompt: tt.prompt})
			rec := waitStart(t, recDir, r.ID())
			h.WaitStarted(t, 6, 10*time.Second)
			tt.act(t, r, rec, recDir)
			info := wait(t, r)

			if !h.Gone(5 * time.Second) {
				t.Errorf("processes of the 6 fork-hoppers are alive after the run ended %s (%s)", info.State, info.Reason)
			}
			if info.State != tt.want {
				t.Errorf("state = %s (%s), want %s", info.State, info.Reason, tt.want)
			}
			evs := events(t, m, r.ID())
			wantHoppersKilled(t, evs, h, 6, "which the run left running:")
			wantTracking(t, info, evs, true)
		})
	}
}

// A segwi killed with kill -9 leaves its run's fork-hoppers hopping; the next segwi that
// marks the run interrupted ends them through the cgroup its record names.
func TestForkHoppersOfAKilledSegwiEndWithTheNextSegwi(t *testing.T) {
	needCgroups(t)
	h := proctest.NewHoppers(t, 8*time.Second, 7321)
	stateDir, recDir := t.TempDir(), t.TempDir()
	killed := startSegwi(t, childSegwi{
		StateDir: stateDir, Checkout: newCheckout(t), Prompt: "fake:hop-hang=6",
		Env: []string{"PATH=" + os.Getenv("PATH"), "HOME=" + t.TempDir(), "FAKECLAUDE_RECORD=" + recDir,
			"FAKECLAUDE_HOPPER=" + strings.Join(h.Command(), " ")},
	})
	waitStart(t, recDir, killed.id)
	h.WaitStarted(t, 6, 10*time.Second)
	killed.cmd.Process.Kill()
	killed.cmd.Wait()
	if h.Gone(0) {
		t.Fatal("the fork-hoppers died with segwi: this test proves nothing")
	}
	before, err := Load(stateDir, killed.id)
	if err != nil {
		t.Fatal(err)
	}
	if before.Cgroup == "" || !cgroupLeft(before.Cgroup) {
		t.Errorf("run.json of the killed segwi's run names cgroup %q (%s), want one still there", before.Cgroup, before.NoCgroup)
	}

	if damaged := MarkInterrupted(stateDir); len(damaged) > 0 {
		t.Errorf("MarkInterrupted: %v", damaged)
	}

	if !h.Gone(5 * time.Second) {
		t.Errorf("processes of the 6 fork-hoppers are alive after the next segwi started")
	}
	info, err := Load(stateDir, killed.id)
	if err != nil {
		t.Fatal(err)
	}
	if info.State != StateInterrupted {
		t.Errorf("state = %s (%s), want interrupted", info.State, info.Reason)
	}
	var evs []Event
	if err := ReadEvents(stateDir, killed.id, func(e Event) error { evs = append(evs, e); return nil }); err != nil {
		t.Fatal(err)
	}
	wantHoppersKilled(t, evs, h, 6, "after the segwi that ran it ended")
	if info.Cgroup != "" && cgroupLeft(info.Cgroup) {
		t.Errorf("cgroup %s is still there", info.Cgroup)
	}
}

// A segwi killed while this one runs (the tray, and a segwi run that was killed) leaves
// the fork-hoppers of its run; the next run this segwi starts ends them before Claude
// Code starts, through the cgroup the dead run's record names: the killed segwi may have
// run in the same checkout.
func TestForkHoppersOfASegwiKilledMeanwhileEndBeforeTheNextRunStarts(t *testing.T) {
	needCgroups(t)
	h := proctest.NewHoppers(t, 8*time.Second, 7322)
	m, recDir := testManager(t, nil) // started before the other segwi was killed
	killed := startSegwi(t, childSegwi{
		StateDir: m.config().StateDir, Checkout: newCheckout(t), Prompt: "fake:hop-hang=6",
		Env: []string{"PATH=" + os.Getenv("PATH"), "HOME=" + t.TempDir(), "FAKECLAUDE_RECORD=" + t.TempDir(),
			"FAKECLAUDE_HOPPER=" + strings.Join(h.Command(), " ")},
	})
	h.WaitStarted(t, 6, 10*time.Second)
	killed.cmd.Process.Kill()
	killed.cmd.Wait()
	if h.Gone(0) {
		t.Fatal("the fork-hoppers died with segwi: this test proves nothing")
	}

	r := start(t, m, Spec{Prompt: "fake:success"})
	waitStart(t, recDir, r.ID())

	if !h.Gone(0) {
		t.Errorf("processes of the 6 fork-hoppers of run %s, whose segwi was killed, were alive when run %s started Claude Code", killed.id, r.ID())
	}
	var evs []Event
	if err := ReadEvents(m.config().StateDir, killed.id, func(e Event) error { evs = append(evs, e); return nil }); err != nil {
		t.Fatal(err)
	}
	wantHoppersKilled(t, evs, h, 6, "after the segwi that ran it ended")
	wait(t, r)
}

// Where no cgroup can be made, the sweep still ends what a run left, and the record says
// which way it went; with a cgroup, the same.
func TestProcessesARunLeftAreGoneEitherWay(t *testing.T) {
	for _, way := range trackings {
		t.Run(way.name, func(t *testing.T) {
			way.set(t)
			m, recDir := testManager(t, nil)
			r := start(t, m, Spec{Prompt: "fake:detach=scrubbed"})
			rec := waitStart(t, recDir, r.ID())
			marker := sleeperMarker(r.ID())
			proctest.KillAtEnd(t, rec.Detached, marker)
			info := wait(t, r)
			if proctest.Alive(rec.Detached, marker) {
				t.Errorf("process %d that the run left is alive after the run ended %s", rec.Detached, info.State)
			}
			evs := events(t, m, r.ID())
			if e, ok := leftoverEvent(evs, rec.Detached); !ok || !e.Process.Killed {
				t.Errorf("leftover event %+v (found %v), want one saying process %d was killed", e.Process, ok, rec.Detached)
			}
			wantTracking(t, info, evs, way.cgroup)
		})
	}
}

// A run whose cgroup segwi could not remove (a process stuck in the kernel) leaves it for
// the next segwi, as one killed while ending the run would: the next segwi to start ends
// what is in it, and so does a push before it reads the checkout.
func TestACgroupLeftByAnEndedRunIsEndedByTheNextSegwi(t *testing.T) {
	for i, tc := range []struct {
		name  string
		next  func(t *testing.T, stateDir, id string)
		where string
	}{
		{"at the next segwi's start", func(t *testing.T, stateDir, id string) {
			if damaged := MarkInterrupted(stateDir); len(damaged) > 0 {
				t.Errorf("MarkInterrupted: %v", damaged)
			}
		}, "after it ended"},
		{"before a push", func(t *testing.T, stateDir, id string) {
			if _, err := KillLeftovers(stateDir, id); err != nil {
				t.Errorf("KillLeftovers: %v", err)
			}
		}, "before a push"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			needCgroups(t)
			stateDir := t.TempDir()
			id := fmt.Sprintf("20250101-000000-c9r0u%d", i)
			dir := filepath.Join(RunsDir(stateDir), id)
			if err := os.MkdirAll(dir, 0o700); err != nil {
				t.Fatal(err)
			}
			cg, err := newRunCgroup(id)
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { cg.remove(); cg.closeFD() })
			if err := writeInfo(dir, Info{ID: id, Kind: KindBuild, Checkout: t.TempDir(), State: StateSucceeded, Created: time.Now(), Cgroup: cg.dir}); err != nil {
				t.Fatal(err)
			}
			seconds := 7331 + i
			pid := startIn(t, cg, seconds)

			tc.next(t, stateDir, id)

			if proctest.Alive(pid, fmt.Sprintf("sleep %d", seconds)) {
				t.Errorf("process %d in the ended run's cgroup is alive", pid)
			}
			if cgroupLeft(cg.dir) {
				t.Errorf("cgroup %s is still there", cg.dir)
			}
			var evs []Event
			ReadEvents(stateDir, id, func(e Event) error { evs = append(evs, e); return nil })
			if e, ok := leftoverEvent(evs, pid); !ok || !e.Process.Killed || !strings.Contains(e.Text, tc.where) {
				t.Errorf("leftover event %+v (found %v), want one saying process %d was killed %s", e, ok, pid, tc.where)
			}
		})
	}
}

// run.json is a file the run's own processes can write: a record naming another cgroup,
// or a folder made to look like one, must not make the next segwi kill what is in it.
func TestARecordCannotPointSegwiAtAnotherCgroup(t *testing.T) {
	needCgroups(t)
	home, _ := runCgroupHome()
	victim := &cgroup{dir: filepath.Join(home, "segwi-test-victim-"+filepath.Base(t.TempDir()))}
	if err := os.Mkdir(victim.dir, 0o755); err != nil {
		t.Fatal(err)
	}
	fd, err := syscall.Open(victim.dir, syscall.O_RDONLY|syscall.O_DIRECTORY|syscall.O_CLOEXEC, 0)
	if err != nil {
		t.Fatal(err)
	}
	victim.fd = fd
	t.Cleanup(func() {
		victim.write("cgroup.kill")
		victim.waitEvents(5*time.Second, "populated 0")
		victim.remove()
		victim.closeFD()
	})
	pid := startIn(t, victim, 7335)

	stateDir := t.TempDir()
	lookalike := filepath.Join(t.TempDir(), cgroupPrefix+"20250101-000000-f4ke00")
	if err := os.Mkdir(lookalike, 0o700); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(lookalike, "cgroup.procs"), fmt.Appendf(nil, "%d\n", pid), 0o600)
	os.WriteFile(filepath.Join(lookalike, "cgroup.kill"), nil, 0o600)
	os.WriteFile(filepath.Join(lookalike, "cgroup.events"), []byte("populated 1\nfrozen 0\n"), 0o600)
	for _, tc := range []struct{ id, cgroup, say string }{
		{"20250101-000000-0th3r0", victim.dir, "not a cgroup segwi makes for that run"},
		{"20250101-000000-f4ke00", lookalike, "not in a cgroup v2 hierarchy"},
	} {
		dir := filepath.Join(RunsDir(stateDir), tc.id)
		os.MkdirAll(dir, 0o700)
		if err := writeInfo(dir, Info{ID: tc.id, Kind: KindBuild, Checkout: t.TempDir(), State: StateRunning, Created: time.Now(), Cgroup: tc.cgroup}); err != nil {
			t.Fatal(err)
		}
		if err := markLive(stateDir, tc.id); err != nil { // as the run's segwi, killed, left it
			t.Fatal(err)
		}
		damaged := MarkInterrupted(stateDir)
		if !proctest.Alive(pid, "sleep 7335") {
			t.Fatalf("a record naming %s made segwi kill process %d of another cgroup", tc.cgroup, pid)
		}
		if len(damaged) != 1 || !strings.Contains(damaged[0].Error(), tc.say) {
			t.Errorf("MarkInterrupted with a record naming %s: %v; want it to say %q", tc.cgroup, damaged, tc.say)
		}
		os.RemoveAll(dir)
	}
}

// startIn starts `sleep SECONDS` inside cgroup cg and returns its pid once it runs.
func startIn(t *testing.T, cg *cgroup, seconds int) int {
	t.Helper()
	cmd := exec.Command("sleep", fmt.Sprint(seconds))
	cmd.SysProcAttr = &syscall.SysProcAttr{}
	cg.attach(cmd.SysProcAttr)
	if err := cmd.Start(); err != nil {
		t.Fatalf("starting sleep %d in cgroup %s: %v", seconds, cg.dir, err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	await.For(t, 10*time.Second, fmt.Sprintf("sleep %d to run", seconds), func() bool {
		return proctest.Alive(cmd.Process.Pid, fmt.Sprintf("sleep %d", seconds))
	})
	return cmd.Process.Pid
}

// A process of the run may make cgroups inside the run's and move into them: the run's
// end reaches it there, names it, and removes them all.
func TestTheEndOfARunReachesIntoTheCgroupsItsProcessesMade(t *testing.T) {
	needCgroups(t)
	cg, err := newRunCgroup("20250101-000000-1nn3r0")
	if err != nil {
		t.Fatal(err)
	}
	pid := startIn(t, cg, 7333)
	inner := filepath.Join(cg.dir, "inner", "deeper")
	if err := os.MkdirAll(inner, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(inner, "cgroup.procs"), fmt.Appendf(nil, "%d", pid), 0); err != nil {
		t.Fatal(err)
	}

	found, err := cg.end()

	if err != nil {
		t.Errorf("end: %v", err)
	}
	if len(found) != 1 || found[0].PID != pid || !found[0].Killed || found[0].Command != "sleep 7333" {
		t.Errorf("end found %+v, want process %d (sleep 7333) killed", found, pid)
	}
	if proctest.Alive(pid, "sleep 7333") {
		t.Errorf("process %d is alive", pid)
	}
	if cgroupLeft(cg.dir) {
		t.Errorf("cgroup %s is still there", cg.dir)
	}
}

// BenchmarkEndOfARunInItsCgroup measures what a run's end costs segwi with a cgroup when
// the run left nothing: make the cgroup (as at the run's start), then freeze it, read its
// list, kill, wait and remove it. Compare BenchmarkScanProcs, the least the sweep costs.
func BenchmarkEndOfARunInItsCgroup(b *testing.B) {
	if _, err := runCgroupHome(); err != nil {
		b.Skip(err)
	}
	for i := 0; b.Loop(); i++ {
		cg, err := newRunCgroup(fmt.Sprintf("bench-%d", i))
		if err != nil {
			b.Fatal(err)
		}
		if found, err := cg.end(); err != nil || len(found) > 0 {
			b.Fatalf("end: %v, %v", found, err)
		}
	}
}

// A setup command that leaves a process behind, even one that left its process group
// (setsid) and the run's environment (env -i), which no sweep finds, leaves nothing once
// the run ended, whether its agent ran or the setup failed: the setup runs in the run's
// cgroup, which ends with the run, as the agent's processes do.
func TestWhatASetupLeftEndsWithTheRun(t *testing.T) {
	needCgroups(t)
	for _, c := range []struct {
		name, prompt, then string
		want               State
	}{
		{"a run that succeeds", "fake:success", "", StateSucceeded},
		{"a run whose agent fails", "fake:fail", "", StateFailed},
		{"a setup that fails", "fake:success", "; exit 3", StateFailed},
	} {
		t.Run(c.name, func(t *testing.T) {
			checkout := repoCheckout(t)
			marker := fmt.Sprintf("%d.%d", 1000+rand.IntN(8000), rand.IntN(1000)) // sleep's argument, unique to the test
			pidFile := filepath.Join(t.TempDir(), "pid")
			m, _ := testManager(t, func(cfg *Config) {
				cfg.WorktreeRoot = filepath.Join(t.TempDir(), "worktrees")
				cfg.Repositories = []Repository{{Path: checkout, Name: "web", Setup: worktree.Setup{
					// The command waits until sleep runs, out of its group, before it ends.
					Run: "setsid env -i sleep " + marker + " </dev/null >/dev/null 2>&1 & echo $! >" + pidFile +
						"; until grep -q " + marker + " /proc/$!/cmdline 2>/dev/null; do sleep 0.01; done" + c.then}}}
			})
			r := start(t, m, Spec{Kind: KindBuild, Checkout: checkout, Where: WhereWorktree, Prompt: c.prompt})
			info := wait(t, r)
			b, err := os.ReadFile(pidFile)
			pid, _ := strconv.Atoi(strings.TrimSpace(string(b)))
			if err != nil || pid == 0 {
				t.Fatalf("the setup wrote no pid: %q, %v (run %s: %s)", b, err, info.State, info.Reason)
			}
			proctest.KillAtEnd(t, pid, "sleep "+marker)
			if info.State != c.want {
				t.Errorf("run: %s (%s), want %s", info.State, info.Reason, c.want)
			}
			if proctest.Alive(pid, "sleep "+marker) {
				t.Errorf("the process %d the setup left (sleep %s) is alive after the run ended", pid, marker)
			}
		})
	}
}
