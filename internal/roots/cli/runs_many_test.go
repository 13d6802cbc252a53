package cli

import (
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/segwi/segwi/internal/testing/measure"
	"github.com/segwi/segwi/internal/testing/records"
	"github.com/segwi/segwi/runs"
)

// Figures of issue 22 for segwi runs over many runs.
const (
	manyRuns = 10_000
	// listShare is the most CPU time segwi runs may take of what List takes to read every
	// record (as segwi runs did, twice, before the index), measured beside it: a clear
	// regression beyond it.
	listShare = 0.5
	listTries = 5
)

// TestRunsListsManyRunsQuickly times segwi runs over a state folder of 10,000 runs, beside
// runs.List reading every record, prints the figures, and fails when segwi runs takes more
// than half of List's CPU time. It lists every run, newest first.
func TestRunsListsManyRunsQuickly(t *testing.T) {
	if testing.Short() {
		t.Skip("writes 10,000 run records")
	}
	home := isolate(t)
	state := filepath.Join(home, "state", "segwi")
	many := records.WriteMany(t, state, manyRuns)

	list := measure.Best(t, listTries, "runs.List (every record read)", func() {
		if infos, _, err := runs.List(state); err != nil || len(infos) != manyRuns {
			t.Fatalf("List = %d runs, %v", len(infos), err)
		}
	})
	start := time.Now()
	first := segwi(t, "", "runs")
	t.Logf("segwi runs with no index yet (it builds one): %d ms", time.Since(start).Milliseconds())
	var r result
	runsList := measure.Best(t, listTries, "segwi runs", func() { r = segwi(t, "", "runs") })

	lines := strings.Split(strings.TrimSuffix(r.stdout, "\n"), "\n")
	if r.code != 0 || len(lines) != manyRuns+1 || r.stdout != first.stdout {
		t.Fatalf("segwi runs: exit %d, %d lines (want %d, as the first time), stderr %q", r.code, len(lines), manyRuns+1, r.stderr)
	}
	if newest, oldest := many.IDs[manyRuns-1], many.IDs[0]; !strings.HasPrefix(lines[1], newest+" ") || !strings.HasPrefix(lines[manyRuns], oldest+" ") {
		t.Errorf("segwi runs lists %q first and %q last, want %s then down to %s", lines[1], lines[manyRuns], newest, oldest)
	}
	if float64(runsList.CPU) > listShare*float64(list.CPU) {
		t.Errorf("segwi runs over %d runs took %d ms of CPU, more than %.0f%% of List's %d ms",
			manyRuns, runsList.CPU.Milliseconds(), 100*listShare, list.CPU.Milliseconds())
	}
}
