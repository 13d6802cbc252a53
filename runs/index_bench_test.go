package runs_test

import (
	"os"
	"path/filepath"
	"runtime"
	"syscall"
	"testing"
	"time"

	"github.com/segwi/segwi/internal/testing/records"
	"github.com/segwi/segwi/runs"
)

// Figures of issue 22 for listing many runs.
const (
	manyRuns = 10_000
	// indexedShare is the most a list through the index may take of the time List takes
	// to read every record, measured beside it: a clear regression beyond it.
	indexedShare = 0.25
	listTries    = 5 // tries of each, the best counting: a loaded machine only slows a try down
)

// TestListingManyRunsThroughTheIndex measures, over a state folder of 10,000 runs, what it
// costs to list them through the runs index (Summaries, and MarkInterrupted, which the
// tray runs at start) beside List, which reads and decodes every record, as everything did
// before the index. It prints the figures, and fails when a warm list through the index
// takes more than a quarter of List's CPU time.
func TestListingManyRunsThroughTheIndex(t *testing.T) {
	if testing.Short() {
		t.Skip("writes 10,000 run records")
	}
	state := t.TempDir()
	records.WriteMany(t, state, manyRuns)

	// best runs f listTries times and returns the least wall and CPU time (of every thread:
	// the index stats records on several) a try took.
	best := func(what string, f func()) (wall, cpu time.Duration) {
		wall, cpu = time.Hour, time.Hour
		var alloc float64
		for range listTries {
			var before, after runtime.MemStats
			runtime.ReadMemStats(&before)
			startCPU, start := cpuTime(t), time.Now()
			f()
			wall, cpu = min(wall, time.Since(start)), min(cpu, cpuTime(t)-startCPU)
			runtime.ReadMemStats(&after)
			alloc = float64(after.TotalAlloc-before.TotalAlloc) / (1 << 20)
		}
		t.Logf("%s: %d ms, %d ms of CPU (best of %d), %.1f MB allocated", what, wall.Milliseconds(), cpu.Milliseconds(), listTries, alloc)
		return wall, cpu
	}
	_, list := best("List (every record read)", func() {
		if infos, _, err := runs.List(state); err != nil || len(infos) != manyRuns {
			t.Fatalf("List = %d runs, %v; want %d", len(infos), err, manyRuns)
		}
	})
	start := time.Now()
	if sums, _, err := runs.Summaries(state); err != nil || len(sums) != manyRuns {
		t.Fatalf("Summaries = %d runs, %v; want %d", len(sums), err, manyRuns)
	}
	t.Logf("Summaries with no index yet (it builds one): %d ms", time.Since(start).Milliseconds())
	st, err := os.Stat(filepath.Join(state, "runs.index"))
	if err != nil {
		t.Fatalf("no index written: %v", err)
	}
	t.Logf("the index of %d runs: %.1f MB", manyRuns, float64(st.Size())/(1<<20))
	_, sums := best("Summaries from the index", func() {
		if sums, _, err := runs.Summaries(state); err != nil || len(sums) != manyRuns {
			t.Fatalf("Summaries = %d runs, %v; want %d", len(sums), err, manyRuns)
		}
	})
	_, mark := best("MarkInterrupted from the index (the tray's start)", func() {
		if damaged := runs.MarkInterrupted(state); len(damaged) != 0 {
			t.Fatalf("MarkInterrupted found damaged records: %v", damaged)
		}
	})
	// CPU time compares more steadily than wall time on a machine busy with other work.
	for what, d := range map[string]time.Duration{"Summaries": sums, "MarkInterrupted": mark} {
		if float64(d) > indexedShare*float64(list) {
			t.Errorf("%s of %d runs took %d ms of CPU, more than %.0f%% of List's %d ms", what, manyRuns, d.Milliseconds(), 100*indexedShare, list.Milliseconds())
		}
	}
}

// cpuTime is the CPU time this process has used so far, in user and system mode.
func cpuTime(t *testing.T) time.Duration {
	t.Helper()
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		t.Fatalf("getrusage: %v", err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
