package record

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// TestUsageOfDayCountsTheDaysRunsAsTheReportDoes: the tray's line of today's spend is the
// day's row of `segwi usage --by day`, whether the index is up to date, stale (a run's
// usage grew after it was indexed: the tray must show the new figure), or damaged.
func TestUsageOfDayCountsTheDaysRunsAsTheReportDoes(t *testing.T) {
	state := t.TempDir()
	day := time.Date(2026, 12, 4, 15, 0, 0, 0, time.Local)
	settled := time.Now().Add(-time.Hour)
	run := func(created time.Time, cost float64, tokens int64) Info {
		id := created.Format("20060102-150405") + "-abcdef"
		info := Info{ID: id, Checkout: "/src/web", Created: created, State: StateSucceeded, CostUSD: cost,
			Usage: &RunUsage{Usage: Usage{InputTokens: tokens, CostUSD: cost}, Turns: 1}}
		indexRun(t, state, info, settled)
		return info
	}
	run(day.AddDate(0, 0, -1), 5, 500)          // yesterday
	run(day.Add(-15*time.Hour), 0.25, 100)      // today's first second
	late := run(day.Add(8*time.Hour), 0.5, 200) // 23:00 today
	run(day.Add(9*time.Hour), 7, 700)           // tomorrow
	old := Info{ID: "20261204-120000-000000", Checkout: "/src/api", Created: day.Add(-3 * time.Hour), State: StateSucceeded, CostUSD: 0.125}
	indexRun(t, state, old, settled) // recorded before usage events: its cost counts, no tokens

	want := func() UsageRow {
		t.Helper()
		sums, _, err := Summaries(state)
		if err != nil {
			t.Fatal(err)
		}
		for _, row := range SumUsage(sums, time.Time{}, UsageByDay, time.Local).Rows {
			if row.Key == "2026-12-04" {
				return row
			}
		}
		t.Fatal("no row for 2026-12-04")
		return UsageRow{}
	}
	check := func(when string, w UsageRow) {
		t.Helper()
		d, err := UsageOfDay(state, day)
		if err != nil {
			t.Fatal(err)
		}
		got := d.Row()
		if diff := cmp.Diff(w, got); diff != "" {
			t.Errorf("%s: UsageOfDay differs from the report's row (-report +got):\n%s", when, diff)
		}
	}
	first := want()
	if first.Runs != 3 || first.CostUSD != 0.875 || first.Tokens() != 300 || first.CostOnly != 1 {
		t.Fatalf("the report's row = %+v, want 3 runs, $0.875, 300 tokens, 1 cost only", first)
	}
	check("up to date", first)

	// The run of 23:00 used more; its record is written after the index (Summaries above).
	late.CostUSD, late.Usage.CostUSD, late.Usage.InputTokens = 1.5, 1.5, 900
	indexRun(t, state, late, settled.Add(time.Minute))
	stale := first
	stale.CostUSD, stale.InputTokens = 1.875, 1000
	check("stale index", stale)

	index := filepath.Join(state, indexFile)
	data, err := os.ReadFile(index)
	if err != nil {
		t.Fatal(err)
	}
	data[len(data)/2] ^= 1
	if err := os.WriteFile(index, data, 0o600); err != nil {
		t.Fatal(err)
	}
	check("damaged index", stale)
	if err := os.Remove(index); err != nil {
		t.Fatal(err)
	}
	check("no index", stale)
	check("the report again", want())
}

// TestADaysRowCountsALiveRunOnceByItsOwnFigures: a run going is counted by what it used
// so far (its Info, in memory), not by its record, which is older, and not twice; a live
// run of another day is not counted.
func TestADaysRowCountsALiveRunOnceByItsOwnFigures(t *testing.T) {
	state := t.TempDir()
	day := time.Date(2026, 12, 4, 15, 0, 0, 0, time.Local)
	settled := time.Now().Add(-time.Hour)
	ended := Info{ID: "20261204-090000-aaaaaa", Checkout: "/src/web", Created: day.Add(-6 * time.Hour), State: StateSucceeded,
		CostUSD: 1, Usage: &RunUsage{Usage: Usage{OutputTokens: 10, CostUSD: 1}, Turns: 1}}
	going := Info{ID: "20261204-100000-bbbbbb", Checkout: "/src/web", Created: day.Add(-5 * time.Hour), State: StateRunning,
		CostUSD: 0.25, Usage: &RunUsage{Usage: Usage{OutputTokens: 5, CostUSD: 0.25}, Turns: 1}}
	indexRun(t, state, ended, settled)
	indexRun(t, state, going, settled)
	d, err := UsageOfDay(state, day)
	if err != nil {
		t.Fatal(err)
	}
	if got := d.Row(); got.Runs != 2 || got.CostUSD != 1.25 || got.OutputTokens != 15 {
		t.Errorf("from the records: %+v, want 2 runs, $1.25, 15 tokens", got)
	}

	// The live run's second turn is in memory, not yet in its record.
	now := going
	now.CostUSD, now.Usage = 0.75, &RunUsage{Usage: Usage{OutputTokens: 25, CostUSD: 0.75}, Turns: 2}
	// A run started today, not in the records read, and one created yesterday, still going.
	started := Info{ID: "20261204-140000-cccccc", Created: day.Add(-time.Hour), State: StateRunning,
		Usage: &RunUsage{Usage: Usage{OutputTokens: 1, CostUSD: 0.5}, Turns: 1}}
	yesterday := Info{ID: "20261203-230000-dddddd", Created: day.Add(-16 * time.Hour), State: StateRunning,
		Usage: &RunUsage{Usage: Usage{OutputTokens: 1, CostUSD: 9}, Turns: 1}}
	got := d.Row(now, started, yesterday)
	if got.Runs != 3 || got.CostUSD != 2.25 || got.OutputTokens != 36 {
		t.Errorf("with the live runs: %+v, want 3 runs (the ended, the going by its memory, the started), $2.25, 36 tokens", got)
	}
}
