package overhead

import (
	"cmp"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/segwi/segwi/internal/testing/claudetest"
)

var (
	triesFlag = flag.Int("tries", 5, "TestOwnCost: tries of each measure; the best one counts")
	manyFlag  = flag.Int("many", 20, "TestOwnCost: runs at once for the concurrent measure")
)

// The regression limits of TestOwnCost, each on the best of its tries: far enough above
// what segwi measures today (see the README's performance section) that only a clear
// regression crosses them on a loaded machine, and compared with a baseline measured in
// the same test where one exists. They were set on a machine where a Go hello world takes
// refHelloCPU; on one where it takes longer (a guest where a page fault costs several
// times more), each time is scaled by as much (machineFactor).
const (
	// refHelloCPU is a Go hello world's CPU, start to exit, where the limits were set: 1.6
	// ms of wall time was measured there, and its CPU taken as the same (on the second
	// machine the two agree within a tenth: 5.8 ms of CPU against 5.4 of wall at best).
	refHelloCPU = 1600 * time.Microsecond
	// limitOwnCPU bounds segwi's own CPU for one run (its process and its git calls): 34
	// to 39 ms measured at a load of 16 to 25 (40 to 41 before its base read the index
	// itself and its git's version from a trace; 42 to 52 ms at a load of 12 to 22 before
	// the approval tool's schema was built once, the ports checked without the poller and
	// clean files left unsynced).
	limitOwnCPU = 60 * time.Millisecond
	// limitProcessCPU bounds the part of it that is segwi's process alone: 28 to 39 ms
	// measured at a load of 3 to 16.
	limitProcessCPU = 55 * time.Millisecond
	// limitManyGrowth bounds how much segwi's own CPU per run grows with -many runs at
	// once over one run's, beyond what the same runs do to Claude Code's own CPU (growth):
	// 20 runs on two cores slow every process there, and segwi's cost is flat when it
	// grows no more than Claude Code's. Measured: 0.77 to 1.02 (segwi's cost 1.07 to
	// 1.35 times one run's, Claude Code's 1.27 to 1.51 times, at a load of 25 to 43), in a
	// long-lived segwi 0.58 to 0.79; the /proc scans issue 22 found, which grew with the
	// square of the runs, took segwi's cost alone from 120 to 210 ms a run (1.75 times).
	limitManyGrowth = 1.5
	// limitExec bounds the time from `segwi run`'s exec to Claude Code's: 27 to 34 ms
	// measured at a load of 5 to 16, 54 to 105 ms at 15 to 19 in tries beside a build.
	limitExec = 120 * time.Millisecond
	// limitVersion bounds `segwi version`'s wall time beyond a hello world's.
	limitVersion = 25 * time.Millisecond
)

// TestOwnCost measures segwi's own share of a run directly, from the kernel's count of
// segwi's CPU (see segwiIn), with one run and with -many runs at once (each in a checkout
// of its own), the time from `segwi run`'s exec to Claude Code's, and `segwi version`'s
// wall time against a hello world's: what starting segwi costs. Each figure is the best of
// -tries tries, which a machine busy with other work disturbs least. It fails on a clear
// regression (the limits above).
func TestOwnCost(t *testing.T) {
	if *triesFlag < 1 || *manyFlag < 1 {
		t.Fatalf("-tries %d -many %d: want at least one of each", *triesFlag, *manyFlag)
	}
	b := newBench(t)
	printLoad("before")
	b.segwiIn(b.checkout) // warm the caches: not counted

	var one []timing
	for range *triesFlag {
		one = append(one, b.segwiIn(b.checkout))
	}
	oneCPU := best(one, func(t timing) time.Duration { return t.segwiCPU })
	oneProcess := best(one, func(t timing) time.Duration { return t.processCPU })
	exec := best(one, func(t timing) time.Duration { return t.running })
	fmt.Printf("one run:      segwi's own CPU best %5.1f ms, median %5.1f ms (Claude Code's median %6.1f ms); Claude Code exec'd after best %5.1f ms, median %5.1f ms; %s\n",
		ms(oneCPU), ms(medianOf(one, func(t timing) time.Duration { return t.segwiCPU })),
		ms(medianOf(one, func(t timing) time.Duration { return t.claudeCPU })),
		ms(exec), ms(medianOf(one, func(t timing) time.Duration { return t.running })), processesKept(one))
	fmt.Printf("              of which segwi's process best %5.1f ms, median %5.1f ms; the processes it waited for besides Claude Code (git) median %4.1f ms\n",
		ms(oneProcess), ms(medianOf(one, func(t timing) time.Duration { return t.processCPU })),
		ms(medianOf(one, func(t timing) time.Duration { return t.segwiCPU - t.processCPU })))

	checkouts := []string{b.checkout}
	for len(checkouts) < *manyFlag {
		checkouts = append(checkouts, claudetest.Checkout(t))
	}
	oneSegwi := medianOf(one, func(t timing) time.Duration { return t.segwiCPU })
	oneClaude := medianOf(one, func(t timing) time.Duration { return t.claudeCPU })
	var many growth
	for try := range max(1, *triesFlag/2) {
		ts := make([]timing, len(checkouts))
		var wg sync.WaitGroup
		for i, dir := range checkouts {
			wg.Go(func() { ts[i] = b.segwiIn(dir) })
		}
		wg.Wait()
		if t.Failed() {
			t.FailNow()
		}
		g := growthOf(oneSegwi, medianOf(ts, func(t timing) time.Duration { return t.segwiCPU }),
			oneClaude, medianOf(ts, func(t timing) time.Duration { return t.claudeCPU }))
		fmt.Printf("%2d runs at once (try %d): segwi's own CPU per run mean %5.1f ms, median %5.1f ms (its process mean %5.1f ms; Claude Code's median %6.1f ms); Claude Code exec'd after median %5.1f ms\n",
			len(ts), try+1, ms(meanOf(ts, func(t timing) time.Duration { return t.segwiCPU })),
			ms(medianOf(ts, func(t timing) time.Duration { return t.segwiCPU })),
			ms(meanOf(ts, func(t timing) time.Duration { return t.processCPU })),
			ms(medianOf(ts, func(t timing) time.Duration { return t.claudeCPU })),
			ms(medianOf(ts, func(t timing) time.Duration { return t.running })))
		fmt.Printf("              %s\n", g)
		if try == 0 || g.beyond() < many.beyond() {
			many = g
		}
	}

	hello := helloWorld(t)
	var segwiWall, segwiStart, helloWall, helloCPU []time.Duration
	for range 2 * *triesFlag {
		wall, cpu := runOf(t, b, b.segwi, "version")
		segwiWall, segwiStart = append(segwiWall, wall), append(segwiStart, cpu)
		wall, cpu = runOf(t, b, hello)
		helloWall, helloCPU = append(helloWall, wall), append(helloCPU, cpu)
	}
	version, baseline := slices.Min(segwiWall), slices.Min(helloWall)
	fmt.Printf("segwi version: best %5.1f ms wall, median %5.1f ms; a hello world: best %4.1f ms, median %4.1f ms\n",
		ms(version), ms(median(segwiWall)), ms(baseline), ms(median(helloWall)))
	f := machineFactor(slices.Min(helloCPU))
	fmt.Println(goalSplit(one, slices.Min(segwiStart), f))
	printLoad("after")

	if oneCPU > f.scale(limitOwnCPU) {
		t.Errorf("segwi's own CPU for one run is %.1f ms at best, over the limit of %v", ms(oneCPU), f.scale(limitOwnCPU))
	}
	if oneProcess > f.scale(limitProcessCPU) {
		t.Errorf("segwi's process alone took %.1f ms of CPU for one run at best, over the limit of %v", ms(oneProcess), f.scale(limitProcessCPU))
	}
	if many.beyond() > limitManyGrowth {
		t.Errorf("with %d runs at once, segwi's own CPU per run grew %.2f times as much as Claude Code's: over the limit of %.2f (%s)",
			len(checkouts), many.beyond(), limitManyGrowth, many)
	}
	if exec > f.scale(limitExec) {
		t.Errorf("Claude Code started %.1f ms after `segwi run` at best, over the limit of %v", ms(exec), f.scale(limitExec))
	}
	if version-baseline > f.scale(limitVersion) {
		t.Errorf("segwi version took %.1f ms at best, %.1f ms more than a hello world: over the limit of %v",
			ms(version), ms(version-baseline), f.scale(limitVersion))
	}
}

// goalCPU is issue 22's goal for segwi's own CPU a run, scaled as the limits are; the
// benchmark prints where `segwi run` stands against it (goalSplit) and fails only on the
// regression limits above. A segwi that outlives its runs, as the tray does, is held to
// it (limitLongLivedCPU).
const goalCPU = 10 * time.Millisecond

// goalSplit says where the best of the one-run tries stands against goalCPU, and splits
// it: a process's start (start: `segwi version`'s CPU at best, the Go runtime and the
// package inits), the git calls it waited for, and the rest, the run's own work in a fresh
// process.
func goalSplit(one []timing, start time.Duration, f factor) string {
	t := slices.MinFunc(one, func(a, b timing) int { return cmp.Compare(a.segwiCPU, b.segwiCPU) })
	verdict := "met"
	if t.segwiCPU > f.scale(goalCPU) {
		verdict = "not met"
	}
	return fmt.Sprintf("issue 22's goal of %.0f ms of segwi's own CPU a run (%.1f ms scaled): %s by `segwi run`, %.1f ms at best: a process's start (segwi version's CPU) %.1f ms, its git calls %.1f ms, the run's own work in a fresh process %.1f ms",
		ms(goalCPU), ms(f.scale(goalCPU)), verdict, ms(t.segwiCPU), ms(start), ms(t.segwiCPU-t.processCPU), ms(t.processCPU-start))
}

// growth is how a run's cost grows with the runs beside it, median against median: segwi's
// own CPU per run with many at once over one run's, and Claude Code's own CPU the same
// way in the same tries, the baseline of what sharing the machine does to any process.
type growth struct{ segwi, claude float64 }

func growthOf(oneSegwi, manySegwi, oneClaude, manyClaude time.Duration) growth {
	return growth{float64(manySegwi) / float64(oneSegwi), float64(manyClaude) / float64(oneClaude)}
}

// beyond is how much more segwi's cost grew than Claude Code's did.
func (g growth) beyond() float64 { return g.segwi / max(1, g.claude) }

func (g growth) String() string {
	return fmt.Sprintf("per run, segwi's own CPU %.2f times one run's, Claude Code's %.2f times: %.2f times as much growth",
		g.segwi, g.claude, g.beyond())
}

// processesKept says how the runs kept track of their processes: in a cgroup of their own,
// or by sweeps of /proc (no cgroup could be made).
func processesKept(ts []timing) string {
	in := 0
	for _, t := range ts {
		if t.cgroup {
			in++
		}
	}
	switch in {
	case len(ts):
		return "each run in a cgroup of its own"
	case 0:
		return "no cgroup: runs swept /proc"
	}
	return fmt.Sprintf("%d of %d runs in a cgroup of their own", in, len(ts))
}

// helloWorld builds a Go program that prints a line and exits: the baseline of a process
// start.
func helloWorld(t *testing.T) string {
	dir := t.TempDir()
	src := "package main\n\nimport \"fmt\"\n\nfunc main() { fmt.Println(\"hello\") }\n"
	if err := os.WriteFile(filepath.Join(dir, "main.go"), []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "go.mod"), []byte("module hello\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("go", "build", "-o", "hello", ".")
	cmd.Dir, cmd.Env = dir, append(os.Environ(), "CGO_ENABLED=0")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("building a hello world: %v\n%s", err, out)
	}
	return filepath.Join(dir, "hello")
}

// runOf runs a program to its exit in the benchmark's environment and returns its wall
// time and its CPU time.
func runOf(t *testing.T, b *bench, path string, args ...string) (wall, cpu time.Duration) {
	cmd := exec.Command(path, args...)
	cmd.Env = b.env.Vars()
	start := time.Now()
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("%s %v: %v\n%s", path, args, err, out)
	}
	return time.Since(start), cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime()
}

// factor is how much slower this machine starts a process than the one the limits were
// set on, never below 1.
type factor float64

// machineFactor returns the factor of a machine where a Go hello world took hello of CPU
// at best, and says so.
func machineFactor(hello time.Duration) factor {
	f := factor(max(1, float64(hello)/float64(refHelloCPU)))
	fmt.Printf("a hello world's CPU: best %4.1f ms, against %3.1f ms where the limits were set: they are scaled by %.2f\n",
		ms(hello), ms(refHelloCPU), float64(f))
	return f
}

// scale returns limit scaled by f.
func (f factor) scale(limit time.Duration) time.Duration {
	return time.Duration(float64(limit) * float64(f)).Round(time.Millisecond)
}

// helloFactor builds a hello world and returns the machine's factor by the best of tries
// runs of it.
func helloFactor(t *testing.T, b *bench, tries int) factor {
	hello := helloWorld(t)
	var cpu []time.Duration
	for range tries {
		_, c := runOf(t, b, hello)
		cpu = append(cpu, c)
	}
	return machineFactor(slices.Min(cpu))
}

// best, medianOf and meanOf take a figure of each timing.
func best(ts []timing, f func(timing) time.Duration) time.Duration {
	return slices.Min(figures(ts, f))
}

func medianOf(ts []timing, f func(timing) time.Duration) time.Duration { return median(figures(ts, f)) }

func meanOf(ts []timing, f func(timing) time.Duration) time.Duration { return mean(figures(ts, f)) }

func figures(ts []timing, f func(timing) time.Duration) []time.Duration {
	ds := make([]time.Duration, len(ts))
	for i, t := range ts {
		ds[i] = f(t)
	}
	return ds
}
