package cli

import (
	"encoding/json"
	"math"
	"path/filepath"
	goruntime "runtime"
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

// usageGoal is the goal for segwi usage over 10,000 runs.
const usageGoal = time.Second

// TestUsageOfManyRunsIsQuick times segwi usage over a state folder of 10,000 runs (the
// index written), by day and by repository, prints the figures, and fails when it takes
// more than half of what runs.List takes to read every record, or when it counts wrong.
func TestUsageOfManyRunsIsQuick(t *testing.T) {
	if testing.Short() {
		t.Skip("writes 10,000 run records")
	}
	home := isolate(t)
	state := filepath.Join(home, "state", "segwi")
	records.WriteMany(t, state, manyRuns)
	infos, _, err := runs.List(state)
	if err != nil {
		t.Fatal(err)
	}
	var want runs.Usage
	for _, in := range infos {
		if in.Usage != nil {
			want.Add(in.Usage.Usage)
		} else {
			want.CostUSD += in.CostUSD
		}
	}
	list := measure.Best(t, listTries, "runs.List (every record read)", func() {
		if infos, _, err := runs.List(state); err != nil || len(infos) != manyRuns {
			t.Fatalf("List = %d runs, %v", len(infos), err)
		}
	})
	start := time.Now()
	segwi(t, "", "usage", "--since", "2024-12-01")
	t.Logf("segwi usage with no index yet (it builds one): %d ms", time.Since(start).Milliseconds())
	for _, by := range []string{"day", "repository"} {
		var r result
		fig := measure.Best(t, listTries, "segwi usage --by "+by+" over a year of runs", func() {
			r = segwi(t, "", "usage", "--since", "2024-12-01", "--by", by, "--json")
		})
		var rep runs.UsageReport
		if err := json.Unmarshal([]byte(r.stdout), &rep); err != nil || r.code != 0 {
			t.Fatalf("segwi usage: exit %d, %v, stderr %q", r.code, err, r.stderr)
		}
		if rep.Total.Runs != manyRuns || rep.Total.Tokens() != want.Tokens() || math.Abs(rep.Total.CostUSD-want.CostUSD) > 1e-6 {
			t.Errorf("segwi usage --by %s counted %d runs, %d tokens, $%.4f; want %d, %d, $%.4f",
				by, rep.Total.Runs, rep.Total.Tokens(), rep.Total.CostUSD, manyRuns, want.Tokens(), want.CostUSD)
		}
		if fig.Wall > usageGoal {
			t.Logf("segwi usage --by %s took %d ms, over the goal of %s", by, fig.Wall.Milliseconds(), usageGoal)
		}
		if float64(fig.CPU) > listShare*float64(list.CPU) {
			t.Errorf("segwi usage --by %s over %d runs took %d ms of CPU, more than %.0f%% of List's %d ms",
				by, manyRuns, fig.CPU.Milliseconds(), 100*listShare, list.CPU.Milliseconds())
		}
	}
}

// TestTheDaysUsageOfManyRunsIsSmall measures what the tray's tooltip reads for today's spend
// (runs.UsageOfDay) among 10,000 runs, the index written, on a day of the year they span:
// what it allocates beside what reading every summary from the index does (the tray held
// those before, 34 MB of RSS), prints both, and fails when it counts otherwise than the
// day's row of segwi usage --by day or allocates more than a tenth of the index read.
func TestTheDaysUsageOfManyRunsIsSmall(t *testing.T) {
	if testing.Short() {
		t.Skip("writes 10,000 run records")
	}
	home := isolate(t)
	state := filepath.Join(home, "state", "segwi")
	records.WriteMany(t, state, manyRuns)
	sums, _, err := runs.Summaries(state) // writes the index
	if err != nil {
		t.Fatal(err)
	}
	day := sums[len(sums)/2].Created.In(time.Local)
	var want runs.UsageRow
	for _, row := range runs.SumUsage(sums, time.Time{}, runs.UsageByDay, time.Local).Rows {
		if row.Key == day.Format(time.DateOnly) {
			want = row
		}
	}
	allocated := func(f func()) (uint64, time.Duration) {
		var before, after goruntime.MemStats
		goruntime.GC()
		goruntime.ReadMemStats(&before)
		start := time.Now()
		f()
		took := time.Since(start)
		goruntime.ReadMemStats(&after)
		return after.TotalAlloc - before.TotalAlloc, took
	}
	var got runs.UsageRow
	dayBytes, dayTook := allocated(func() {
		d, err := runs.UsageOfDay(state, day)
		if err != nil {
			t.Fatal(err)
		}
		got = d.Row()
	})
	allBytes, allTook := allocated(func() {
		if _, _, err := runs.Summaries(state); err != nil {
			t.Fatal(err)
		}
	})
	t.Logf("%d runs: one day's usage (%d runs) read in %d ms, %.1f MB allocated; every summary from the index %d ms, %.1f MB",
		manyRuns, got.Runs, dayTook.Milliseconds(), float64(dayBytes)/1e6, allTook.Milliseconds(), float64(allBytes)/1e6)
	cost := got.CostUSD // summed in another order: equal to a rounding
	got.CostUSD = want.CostUSD
	if got != want || got.Runs == 0 || math.Abs(cost-want.CostUSD) > 1e-6 {
		t.Errorf("the day's usage = %+v, want the report's row %+v", got, want)
	}
	if dayBytes > allBytes/10 {
		t.Errorf("the day's usage allocated %d bytes, more than a tenth of reading every summary (%d)", dayBytes, allBytes)
	}
}
