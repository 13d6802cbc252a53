package overhead

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/segwi/segwi/internal/roots/core"
	"github.com/segwi/segwi/internal/testing/claudetest"
	"github.com/segwi/segwi/runs"
	"github.com/segwi/segwi/settings"
)

// hostEnv, set in the environment of this test binary, makes TestLongLivedHost the
// long-lived segwi of TestOwnCostInALongLivedSegwi: its value is the checkouts to run in
// (a path list), the first for the runs one after another, all for the runs at once.
const hostEnv = "SEGWI_BENCH_HOST_CHECKOUTS"

// limitLongLivedCPU bounds segwi's own CPU per run in a segwi that outlives its runs, its
// checkout unchanged since the last run's base (which it then takes again, without git),
// scaled as TestOwnCost's limits are (machineFactor): 16.7 to 17.7 ms measured at a load
// of 1 to 2 where a hello world takes 6.1 to 6.5 ms (a factor of 3.8 to 4.1), 29 to 33 ms
// before the base was kept, with a git process a run. It is issue 22's goal itself.
const limitLongLivedCPU = goalCPU

// limitLongLivedChangedCPU bounds the same where the checkout changed before each run, so
// that git reads its base: 24 ms measured (its process 17 ms) at a load of 3, and 36 ms at
// a load of 15, on a machine where a hello world takes 5 ms (a factor of 3; `segwi run`
// 75 ms there, 34 ms where the factor is 1).
const limitLongLivedChangedCPU = 20 * time.Millisecond

// limitLongLivedExec bounds the time from a run's start in a segwi that outlives its runs
// (Core.Start called) to its Claude Code's exec, scaled as limitLongLivedCPU is: 8.0 to
// 9.5 ms at best measured at a load under 1, where a hello world takes 5.4 to 7.1 ms (a
// factor of 3.4 to 4.4). The base's git, were it back before the exec, would add about 10.
const limitLongLivedExec = 6 * time.Millisecond

// The kinds of the host's marks: its start, then after each run, the first (which warms
// the process up and is not counted), those in the checkout as the last run left it,
// those in the checkout changed just before, and those of the runs at once.
const (
	markStart   = "start"
	markWarm    = "warm"
	markKept    = "unchanged"
	markChanged = "changed"
	markMany    = "many"
)

// hostRun is a mark the host prints between runs: its process's CPU clock, less what the
// host itself spent reading records and printing marks, and its reaped children's CPU,
// both as the runs since the last mark ended; of those runs, how many and their Claude
// Code's own CPU, as segwi recorded it; after a run of its own, the time from the run's
// start (Core.Start called) to its Claude Code's exec (the run's Info.Start).
type hostRun struct {
	Kind     string        `json:"kind"`
	Self     time.Duration `json:"self"`
	Children time.Duration `json:"children"`
	Runs     int           `json:"runs"`
	Claude   time.Duration `json:"claude"`
	Exec     time.Duration `json:"exec,omitempty"`
}

// TestOwnCostInALongLivedSegwi measures segwi's own CPU per run where segwi outlives its
// runs, as the tray does: a process that builds segwi's core as the tray does (core.New)
// runs -tries+1 runs one after another, and a run's cost is what the process and the
// processes it reaped (its git calls, Claude Code) took from that run's start to the next
// one's, less Claude Code's own CPU, which segwi recorded on the run's exit event. The
// first run warms the process and is not counted. Those runs leave the checkout as they
// found it (the agent lists its files), so each takes the base the last one read again,
// without git (changes.Bases); then -tries runs whose checkout the host changed just
// before (a file written), whose base git reads. Then, with -many above 1, it runs -many
// at once (each in a checkout of its own), -tries/2 times, and judges their cost per run
// against one run's as TestOwnCost does. Beside TestOwnCost's `segwi run`, this tells what
// a run costs from what starting a segwi for each run costs.
func TestOwnCostInALongLivedSegwi(t *testing.T) {
	b := newBench(t)
	printLoad("before")
	checkouts := []string{b.checkout}
	for len(checkouts) < *manyFlag {
		checkouts = append(checkouts, claudetest.Checkout(t))
	}
	argv := append(strings.Fields(*wrapFlag), os.Args[0], "-test.run", "^TestLongLivedHost$", "-tries", strconv.Itoa(*triesFlag))
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Dir = b.checkout
	cmd.Env = append(b.env.Vars(), hostEnv+"="+strings.Join(checkouts, string(os.PathListSeparator)))
	cmd.Stderr = os.Stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("the long-lived segwi: %v\n%s", err, out)
	}
	var marks []hostRun
	for line := range strings.Lines(string(out)) {
		var h hostRun
		if json.Unmarshal([]byte(line), &h) == nil && h.Kind != "" {
			marks = append(marks, h)
		}
	}
	kinds := map[string]int{}
	for _, m := range marks {
		kinds[m.Kind]++
	}
	batches := 0
	if len(checkouts) > 1 {
		batches = max(1, *triesFlag/2)
	}
	if kinds[markStart] != 1 || kinds[markWarm] != 1 || kinds[markKept] != *triesFlag || kinds[markChanged] != *triesFlag || kinds[markMany] != batches {
		t.Fatalf("the long-lived segwi reported the marks %v, want 1 start, 1 warm, %d unchanged, %d changed, %d many:\n%s", kinds, *triesFlag, *triesFlag, batches, out)
	}
	// oneByOne is what the runs of one kind cost, each alone.
	type oneByOne struct{ own, process, claude, execs []time.Duration }
	alone := map[string]*oneByOne{markKept: {}, markChanged: {}}
	var many growth
	batch := 0
	for i := 1; i < len(marks); i++ {
		o, p := costOf(marks[i-1], marks[i])
		switch to := marks[i]; to.Kind {
		case markKept, markChanged:
			a := alone[to.Kind]
			a.own, a.process, a.claude, a.execs = append(a.own, o), append(a.process, p), append(a.claude, to.Claude), append(a.execs, to.Exec)
		case markMany:
			n := time.Duration(to.Runs)
			o, p, c := o/n, p/n, to.Claude/n
			kept := alone[markKept]
			g := growthOf(median(kept.own), o, median(kept.claude), c)
			fmt.Printf("a long-lived segwi, %d runs at once: segwi's own CPU per run %5.1f ms, of which its process %5.1f ms (Claude Code's %6.1f ms a run)\n              %s\n",
				to.Runs, ms(o), ms(p), ms(c), g)
			if batch == 0 || g.beyond() < many.beyond() {
				many = g
			}
			batch++
		}
	}
	for _, kind := range []string{markKept, markChanged} {
		a := alone[kind]
		fmt.Printf("a long-lived segwi, %d runs one after another, the checkout %-9s: segwi's own CPU per run best %5.1f ms, median %5.1f ms; of which its process best %5.1f ms, median %5.1f ms; Claude Code exec'd after best %5.1f ms, median %5.1f ms of the run's start\n",
			len(a.own), kind, ms(slices.Min(a.own)), ms(median(a.own)), ms(slices.Min(a.process)), ms(median(a.process)), ms(slices.Min(a.execs)), ms(median(a.execs)))
	}
	f := helloFactor(t, b, 2**triesFlag)
	printLoad("after")
	for kind, limit := range map[string]time.Duration{markKept: limitLongLivedCPU, markChanged: limitLongLivedChangedCPU} {
		if best := slices.Min(alone[kind].own); best > f.scale(limit) {
			t.Errorf("a long-lived segwi's own CPU per run, the checkout %s, is %.1f ms at best, over the limit of %v", kind, ms(best), f.scale(limit))
		}
	}
	if execBest := slices.Min(append(alone[markKept].execs, alone[markChanged].execs...)); execBest > f.scale(limitLongLivedExec) {
		t.Errorf("in a long-lived segwi, Claude Code started %.1f ms after the run's start at best, over the limit of %v", ms(execBest), f.scale(limitLongLivedExec))
	}
	if batches > 0 && many.beyond() > limitManyGrowth {
		t.Errorf("in a long-lived segwi with %d runs at once, its own CPU per run grew %.2f times as much as Claude Code's: over the limit of %.2f (%s)",
			len(checkouts), many.beyond(), limitManyGrowth, many)
	}
}

// costOf returns what the runs between two of the host's marks cost segwi: its process
// and the processes it reaped, less Claude Code's own CPU; and its process alone.
func costOf(from, to hostRun) (own, process time.Duration) {
	process = to.Self - from.Self
	return process + to.Children - from.Children - to.Claude, process
}

// TestLongLivedHost is the long-lived segwi of TestOwnCostInALongLivedSegwi, run in a
// process of its own (so that the fake model server's CPU is not counted): it builds the
// core from the settings the benchmark wrote, runs 2*-tries+1 runs one after another in
// the first checkout it was given (the last -tries with a file there written before each),
// printing a mark (hostRun) before the first and after each, then, given more than one
// checkout, -tries/2 times a run in each at once, printing a mark after each time.
func TestLongLivedHost(t *testing.T) {
	checkouts := filepath.SplitList(os.Getenv(hostEnv))
	if len(checkouts) == 0 {
		t.Skip("run by TestOwnCostInALongLivedSegwi")
	}
	path, err := settings.Path()
	if err != nil {
		t.Fatal(err)
	}
	c, err := core.New(core.Config{ConfigPath: path, Decider: denyAll{}, KeepBases: true})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	w := bufio.NewWriter(os.Stdout)
	// The marks leave out the host's own CPU spent between the end of runs and the next
	// start: reading the runs' records (claudeCPU) and printing the marks are the
	// benchmark's work, not segwi's.
	var harness time.Duration
	// mark prints h, measured at ended (or now, at the start), less the host's own work.
	mark := func(h hostRun) {
		measured := h.Self
		h.Self -= harness
		line, _ := json.Marshal(h)
		fmt.Fprintf(w, "%s\n", line)
		w.Flush()
		harness += processCPU(t) - measured
	}
	// ended waits for rs to succeed and returns their mark: the CPU taken as they ended,
	// then their Claude Codes' as recorded.
	ended := func(kind string, rs ...*runs.Run) hostRun {
		infos := make([]runs.Info, len(rs))
		for i, r := range rs {
			infos[i] = succeeded(t, r)
		}
		h := hostRun{Kind: kind, Runs: len(rs), Self: processCPU(t), Children: childrenCPU(t)}
		for _, info := range infos {
			h.Claude += claudeCPU(t, c, info)
		}
		return h
	}
	ctx := context.Background()
	start := func(checkout string) *runs.Run {
		r, err := c.Start(ctx, runs.Spec{Kind: runs.KindBuild, Checkout: checkout, Prompt: prompt})
		if err != nil {
			t.Fatal(err)
		}
		return r
	}
	mark(hostRun{Kind: markStart, Self: processCPU(t), Children: childrenCPU(t)})
	kinds := []string{markWarm}
	for range *triesFlag {
		kinds = append(kinds, markKept)
	}
	for range *triesFlag {
		kinds = append(kinds, markChanged)
	}
	for i, kind := range kinds {
		if kind == markChanged {
			// A file of the person's, written again: git reads the next base.
			note := fmt.Sprintf("written before run %d\n", i)
			if err := os.WriteFile(filepath.Join(checkouts[0], "notes.txt"), []byte(note), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		asked := time.Now()
		r := start(checkouts[0])
		h := ended(kind, r)
		h.Exec = r.Info().Start.Sub(asked)
		mark(h)
	}
	if len(checkouts) < 2 {
		return
	}
	for range max(1, *triesFlag/2) {
		var rs []*runs.Run
		for _, dir := range checkouts {
			rs = append(rs, start(dir))
		}
		mark(ended(markMany, rs...))
	}
}

// succeeded waits for r to end, and fails the test unless it succeeded.
func succeeded(t *testing.T, r *runs.Run) runs.Info {
	info, err := r.Wait(context.Background())
	if err != nil || info.State != runs.StateSucceeded {
		t.Fatalf("run %s: %s (%s), %v", info.ID, info.State, info.Reason, err)
	}
	return info
}

// claudeCPU returns the run's Claude Code's CPU, as segwi recorded it on its exit event.
func claudeCPU(t *testing.T, c *core.Core, info runs.Info) time.Duration {
	var claude time.Duration
	err := runs.ReadEvents(c.StateDir(), info.ID, func(e runs.Event) error {
		if e.Exit != nil {
			claude = time.Duration(e.Exit.CPUSeconds * float64(time.Second))
		}
		return nil
	})
	if err != nil || claude <= 0 {
		// Without it, Claude Code's CPU would count as segwi's.
		t.Fatalf("run %s recorded no CPU time for Claude Code on its exit event (%v)", info.ID, err)
	}
	return claude
}

// processCPU returns this process's CPU time, all its threads, to the nanosecond.
func processCPU(t *testing.T) time.Duration {
	var ts unix.Timespec
	if err := unix.ClockGettime(unix.CLOCK_PROCESS_CPUTIME_ID, &ts); err != nil {
		t.Fatal(err)
	}
	return time.Duration(ts.Nano())
}

// childrenCPU returns the CPU time of the children this process has reaped (and of
// theirs, which they reaped).
func childrenCPU(t *testing.T) time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_CHILDREN, &ru); err != nil {
		t.Fatal(err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
