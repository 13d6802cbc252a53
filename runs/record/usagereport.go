package record

import (
	"cmp"
	"fmt"
	"slices"
	"time"
)

// UsageBy says how a usage report groups the runs.
type UsageBy string

// The groupings of a usage report.
const (
	UsageByDay        UsageBy = "day"        // the local day the run was created
	UsageByRepository UsageBy = "repository" // the checkout the run was started in (Summary.Repository)
	UsageByRuntime    UsageBy = "runtime"    // the agent that ran it (Info.Runtime)
)

// UsageGroupings are the groupings of a usage report, as `segwi usage --by` names them.
var UsageGroupings = []UsageBy{UsageByDay, UsageByRepository, UsageByRuntime}

// ParseUsageBy returns the grouping s names, or an error naming the ones there are.
func ParseUsageBy(s string) (UsageBy, error) {
	if by := UsageBy(s); slices.Contains(UsageGroupings, by) {
		return by, nil
	}
	return "", fmt.Errorf("no grouping %q: day, repository or runtime", s)
}

// UsageRow is what a group of runs used.
type UsageRow struct {
	// Key names the group: a day (2026-12-04, local time), a repository (the checkout a run
	// was started in: a worktree's run counts with its repository) or a runtime.
	Key  string `json:"key"`
	Runs int    `json:"runs"`
	Usage
	// CostOnly counts the runs of the group recorded without their usage (by a segwi older
	// than usage events): their cost is in the row, their tokens are not.
	CostOnly int `json:"costOnly,omitempty"`
}

// add adds run s to the row.
func (r *UsageRow) add(s Summary) {
	r.Runs++
	u, ok := s.Used()
	r.Usage.Add(u)
	if !ok {
		r.CostOnly++
	}
}

// UsageReport is what the runs created since a time used, in groups.
type UsageReport struct {
	Since time.Time  `json:"since"`
	By    UsageBy    `json:"by"`
	Rows  []UsageRow `json:"rows"`
	Total UsageRow   `json:"total"`
}

// SumUsage sums what the runs of sums created at or after since used, grouped by by
// (days in loc): days oldest first, other groups the costliest first. A group with no run
// has no row.
func SumUsage(sums []Summary, since time.Time, by UsageBy, loc *time.Location) UsageReport {
	rep := UsageReport{Since: since, By: by, Total: UsageRow{Key: "total"}}
	index := map[string]int{}
	for _, s := range sums {
		if s.Created.Before(since) {
			continue
		}
		key := s.UsageKey(by, loc)
		i, ok := index[key]
		if !ok {
			i = len(rep.Rows)
			index[key] = i
			rep.Rows = append(rep.Rows, UsageRow{Key: key})
		}
		rep.Rows[i].add(s)
		rep.Total.add(s)
	}
	slices.SortFunc(rep.Rows, func(a, b UsageRow) int {
		if by == UsageByDay {
			return cmp.Compare(a.Key, b.Key)
		}
		return cmp.Or(cmp.Compare(b.CostUSD, a.CostUSD), cmp.Compare(b.Tokens(), a.Tokens()), cmp.Compare(a.Key, b.Key))
	})
	return rep
}

// UsageKey is the group of s in a report by by: its local day in loc (2026-12-04), its
// repository, or its runtime.
func (s Summary) UsageKey(by UsageBy, loc *time.Location) string {
	switch by {
	case UsageByRepository:
		return cmp.Or(s.Repository, s.Checkout) // a run recorded before Repository: its checkout
	case UsageByRuntime:
		return s.RuntimeName()
	}
	return s.Created.In(loc).Format(time.DateOnly)
}

// Used is what the run used, and whether its record says so in full: a run recorded by a
// segwi older than usage events has its cost (Claude Code's total) and no tokens.
func (s Summary) Used() (Usage, bool) {
	if s.Usage != nil {
		return *s.Usage, true
	}
	return Usage{CostUSD: s.CostUSD}, s.CostUSD == 0
}

// RuntimeName is the runtime that ran the run: Claude Code's ("claude") for a run
// recorded before segwi named it.
func (s Summary) RuntimeName() string { return cmp.Or(s.Runtime, "claude") }
