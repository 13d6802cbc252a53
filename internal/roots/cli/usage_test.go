package cli

import (
	"encoding/json"
	"fmt"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/segwi/segwi/internal/testing/records"
	"github.com/segwi/segwi/runs"
)

// usageState writes a state folder of runs over the last days: two repositories, two
// runtimes, one run too old to count and one recorded before segwi kept usage.
func usageState(t *testing.T, now time.Time) (web, api string) {
	t.Helper()
	home := isolate(t)
	stateDir := home + "/state/segwi"
	web, api = "/src/web", "/src/api"
	day := func(back int) time.Time {
		y, m, d := now.AddDate(0, 0, -back).Date()
		return time.Date(y, m, d, 10, 0, 0, 0, time.Local)
	}
	n := 0
	write := func(created time.Time, checkout, runtime string, u *runs.Usage, cost float64) {
		n++
		info := runs.Info{ID: fmt.Sprintf("%s-%06x", created.Format("20060102-150405"), n), Kind: runs.KindBuild, Checkout: checkout,
			Runtime: runtime, State: runs.StateSucceeded, Created: created, CostUSD: cost}
		if u != nil {
			info.Usage = &runs.RunUsage{Usage: *u, Turns: 1}
			info.CostUSD = u.CostUSD
		}
		records.WriteRun(t, stateDir, info)
	}
	write(day(40), web, "", &runs.Usage{InputTokens: 999, CostUSD: 9}, 0) // before --since 30d
	write(day(2), web, "", &runs.Usage{InputTokens: 100, OutputTokens: 10, CacheReadTokens: 1000, CacheWriteTokens: 50, CostUSD: 1.25}, 0)
	write(day(2), api, "claude", &runs.Usage{InputTokens: 200, OutputTokens: 20, CostUSD: 0.5}, 0)
	write(day(1), api, "gemini", &runs.Usage{InputTokens: 3000, OutputTokens: 300, CostUSD: 2}, 0)
	write(day(1), web, "", nil, 0.75) // recorded before usage: its cost only
	return web, api
}

func TestUsageReportsWhatTheRunsUsed(t *testing.T) {
	now := time.Now()
	web, api := usageState(t, now)
	dayKey := func(back int) string { return now.AddDate(0, 0, -back).Format(time.DateOnly) }

	t.Run("by day, the default, since 30 days", func(t *testing.T) {
		r := segwi(t, "", "usage")
		if r.code != 0 {
			t.Fatalf("exit %d, stderr %s", r.code, r.stderr)
		}
		lines := strings.Split(strings.TrimRight(r.stdout, "\n"), "\n")
		want := [][]string{
			{"DAY", "RUNS", "COST", "TOKENS", "IN", "OUT", "CACHE", "READ", "CACHE", "WRITE"},
			{dayKey(2), "2", "$1.7500", "1,380", "300", "30", "1,000", "50"},
			{dayKey(1), "2", "$2.7500", "3,300", "3,000", "300", "0", "0"},
			{"total", "4", "$4.5000", "4,680", "3,300", "330", "1,000", "50"},
		}
		if len(lines) != 6 || !strings.HasPrefix(lines[0], "runs created since ") || !strings.Contains(lines[0], "(30 days), by day") {
			t.Fatalf("stdout:\n%s", r.stdout)
		}
		for i, w := range want {
			if got := strings.Fields(lines[i+1]); strings.Join(got, " ") != strings.Join(w, " ") {
				t.Errorf("line %d: got %q, want %q", i+2, got, w)
			}
		}
		if lines[5] != "1 of these runs were recorded before segwi kept usage: their cost is counted, their tokens are not" {
			t.Errorf("last line %q", lines[5])
		}
	})
	t.Run("by repository, the costliest first", func(t *testing.T) {
		r := segwi(t, "", "usage", "--by", "repository")
		lines := strings.Split(strings.TrimRight(r.stdout, "\n"), "\n")
		if r.code != 0 || len(lines) < 4 {
			t.Fatalf("exit %d, stdout:\n%s", r.code, r.stdout)
		}
		for i, w := range [][]string{{api, "2", "$2.5000"}, {web, "2", "$2.0000"}, {"total", "4", "$4.5000"}} {
			if got := strings.Fields(lines[i+2]); strings.Join(got[:3], " ") != strings.Join(w, " ") {
				t.Errorf("line %d: got %q, want it to start %q", i+3, got, w)
			}
		}
	})
	t.Run("by runtime, as JSON, since a date", func(t *testing.T) {
		r := segwi(t, "", "usage", "--by", "runtime", "--json", "--since", dayKey(3))
		var rep runs.UsageReport
		if err := json.Unmarshal([]byte(r.stdout), &rep); err != nil || r.code != 0 {
			t.Fatalf("exit %d, %v, stdout:\n%s", r.code, err, r.stdout)
		}
		got := map[string]runs.UsageRow{}
		for _, row := range rep.Rows {
			got[row.Key] = row
		}
		if len(rep.Rows) != 2 || rep.Rows[0].Key != "claude" || got["claude"].Runs != 3 || got["claude"].CostOnly != 1 ||
			math.Abs(got["claude"].CostUSD-2.5) > 1e-9 || got["gemini"].InputTokens != 3000 || rep.Total.Runs != 4 || rep.By != runs.UsageByRuntime {
			t.Errorf("report %+v", rep)
		}
	})
	t.Run("a shorter time counts fewer runs", func(t *testing.T) {
		r := segwi(t, "", "usage", "--since", "1d", "--json")
		var rep runs.UsageReport
		json.Unmarshal([]byte(r.stdout), &rep)
		if rep.Total.Runs > 2 {
			t.Errorf("--since 1d counted %d runs, want at most the 2 of yesterday", rep.Total.Runs)
		}
	})
	t.Run("a wrong flag says what it takes", func(t *testing.T) {
		for _, args := range [][]string{{"usage", "--since", "soon"}, {"usage", "--by", "week"}} {
			r := segwi(t, "", args...)
			if r.code != 2 || !strings.Contains(r.stderr, "day") {
				t.Errorf("%v: exit %d, stderr %q; want 2 and what it takes", args, r.code, r.stderr)
			}
		}
	})
}
