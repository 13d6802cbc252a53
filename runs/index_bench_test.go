package runs_test

import (
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
	mark := measure.Best(t, listTries, "MarkInterrupted from the index (the tray's start)", func() {
		if damaged := runs.MarkInterrupted(state); len(damaged) != 0 {
			t.Fatalf("MarkInterrupted found damaged records: %v", damaged)
		}
	})
	for what, fig := range map[string]measure.Figure{"Summaries": sums, "MarkInterrupted": mark} {
		if float64(fig.CPU) > indexedShare*float64(list.CPU) {
			t.Errorf("%s of %d runs took %d ms of CPU, more than %.0f%% of List's %d ms",
				what, manyRuns, fig.CPU.Milliseconds(), 100*indexedShare, list.CPU.Milliseconds())
		}
	}
}
