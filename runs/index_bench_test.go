package runs_test

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/segwi/segwi/internal/testing/measure"
	"github.com/segwi/segwi/internal/testing/records"
	"github.com/segwi/segwi/runs"
)

// Figures of issue 22 for listing many runs.
const (
	manyRuns = 10_000
	// indexedShare is the most CPU time a list through the index may take of what List
	// takes to read every record, measured beside it: a clear regression beyond it.
	indexedShare = 0.25
	listTries    = 5
	// marks is how many times a measure of MarkInterrupted by the marks of live runs calls
	// it: once costs tens of microseconds, below what the CPU clock tells apart.
	marks = 100
)

// unstamp makes the next MarkInterrupted under state read every record, as the first
// after the system started does: it dates the stamp that says it was done before then.
func unstamp(t *testing.T, state string) {
	t.Helper()
	long := time.Now().Add(-10 * 365 * 24 * time.Hour)
	if err := os.Chtimes(filepath.Join(state, "live", ".checked"), long, long); err != nil && !errors.Is(err, fs.ErrNotExist) {
		t.Fatal(err)
	}
}

// TestListingManyRunsThroughTheIndex measures, over a state folder of 10,000 runs, what it
// costs to list them through the runs index (Summaries, and MarkInterrupted reading every
// record, as the tray does at start) beside List, which reads and decodes every record, as
// everything did before the index. It prints the figures, and fails when a warm list
// through the index takes more than a quarter of List's CPU time. It also measures what
// every other segwi's start spends on the runs left live (MarkInterrupted by their marks),
// and fails when that grows with the runs recorded: over three times what it costs with
// 10 runs recorded.
func TestListingManyRunsThroughTheIndex(t *testing.T) {
	if testing.Short() {
		t.Skip("writes 10,000 run records")
	}
	state := t.TempDir()
	records.WriteMany(t, state, manyRuns)

	list := measure.Best(t, listTries, "List (every record read)", func() {
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
	sums := measure.Best(t, listTries, "Summaries from the index", func() {
		if sums, _, err := runs.Summaries(state); err != nil || len(sums) != manyRuns {
			t.Fatalf("Summaries = %d runs, %v; want %d", len(sums), err, manyRuns)
		}
	})
	mark := measure.Best(t, listTries, "MarkInterrupted reading every record from the index (the tray's start)", func() {
		unstamp(t, state)
		if damaged := runs.MarkInterrupted(state); len(damaged) != 0 {
			t.Fatalf("MarkInterrupted found damaged records: %v", damaged)
		}
	})
	byMarks := func(state string, n int) measure.Figure {
		return measure.Best(t, listTries, fmt.Sprintf("%d MarkInterrupted by the marks, %d runs recorded (each segwi run's start)", marks, n), func() {
			for range marks {
				if damaged := runs.MarkInterrupted(state); len(damaged) != 0 {
					t.Fatalf("MarkInterrupted found damaged records: %v", damaged)
				}
			}
		})
	}
	many := byMarks(state, manyRuns)
	few := t.TempDir()
	records.WriteMany(t, few, 10)
	runs.MarkInterrupted(few) // reads every record, once since the system started
	base := byMarks(few, 10)
	t.Logf("each segwi run's start, for the runs left live: %.0f µs of CPU with %d runs recorded, %.0f µs with 10",
		float64(many.CPU.Microseconds())/marks, manyRuns, float64(base.CPU.Microseconds())/marks)
	if many.CPU > 3*base.CPU+time.Millisecond {
		t.Errorf("MarkInterrupted by the marks took %d µs of CPU with %d runs recorded, over three times its %d µs with 10",
			many.CPU.Microseconds()/marks, manyRuns, base.CPU.Microseconds()/marks)
	}
	for what, fig := range map[string]measure.Figure{"Summaries": sums, "MarkInterrupted": mark} {
		if float64(fig.CPU) > indexedShare*float64(list.CPU) {
			t.Errorf("%s of %d runs took %d ms of CPU, more than %.0f%% of List's %d ms",
				what, manyRuns, fig.CPU.Milliseconds(), 100*indexedShare, list.CPU.Milliseconds())
		}
	}
}
