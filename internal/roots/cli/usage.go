package cli

import (
	"bufio"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"github.com/segwi/segwi/runs"
)

// usageOptions are segwi usage's flags.
type usageOptions struct {
	since string
	by    string
	json  bool
}

func newUsageCmd(env *Env) *cobra.Command {
	var o usageOptions
	cmd := &cobra.Command{
		Use:   "usage [--since 30d] [--by day|repository|runtime] [--json]",
		Short: "Print what the recorded runs used: cost and tokens, by day, repository or runtime",
		Long: "Print what the runs created since a time used, as their agent reported it: the cost in US\n" +
			"dollars (Claude Code's estimate at list prices, not a bill) and the tokens (in, out, cache\n" +
			"read, cache write), grouped by the local day the run was created, by repository (the\n" +
			"checkout it was started in: a run in a worktree counts with its repository) or by runtime.\n" +
			"A run recorded before segwi kept usage counts with its cost alone.\n" +
			"--since takes days (30d), weeks (2w), a duration (36h) or a date (2026-11-01, local time).\n" +
			"Exit status: 0, or 1 when a record is damaged (named on stderr; the others are counted).",
		Args: args(cobra.NoArgs),
		RunE: func(*cobra.Command, []string) error { return usageReport(env, o) },
	}
	f := cmd.Flags()
	f.StringVar(&o.since, "since", "30d", "count the runs created since `WHEN`: 30d, 2w, 36h or 2026-11-01")
	f.StringVar(&o.by, "by", string(runs.UsageByDay), "group by day, repository or runtime")
	f.BoolVar(&o.json, "json", false, "print the report as JSON")
	return cmd
}

// usageReport prints what the runs created since o.since used, grouped by o.by.
func usageReport(env *Env, o usageOptions) error {
	now := time.Now()
	since, err := parseSince(o.since, now)
	if err != nil {
		return &usageError{err}
	}
	by, err := runs.ParseUsageBy(o.by)
	if err != nil {
		return &usageError{fmt.Errorf("--by: %w", err)}
	}
	dir, err := stateDir()
	if err != nil {
		return err
	}
	sums, unread, err := runs.Summaries(dir)
	if err != nil {
		return err
	}
	rep := runs.SumUsage(sums, since, by, time.Local)
	out := bufio.NewWriter(env.Stdout)
	if o.json {
		b, err := json.MarshalIndent(rep, "", "  ")
		if err != nil {
			return fmt.Errorf("writing the report: %w", err)
		}
		out.Write(append(b, '\n'))
	} else {
		writeUsage(out, rep, now)
	}
	out.Flush()
	if n := warnDamaged(env, nil, unread); n > 0 {
		return fmt.Errorf("%d run records are damaged (named above); the other runs are counted", n)
	}
	return nil
}

// writeUsage writes rep as a table, with a line saying what it counts.
func writeUsage(out *bufio.Writer, rep runs.UsageReport, now time.Time) {
	fmt.Fprintf(out, "runs created since %s (%s), by %s\n", rep.Since.Local().Format("2006-01-02 15:04"), ago(now.Sub(rep.Since)), rep.By)
	if rep.Total.Runs == 0 {
		fmt.Fprintln(out, "no runs")
		return
	}
	tw := tabwriter.NewWriter(out, 0, 4, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintf(tw, "%s\tRUNS\tCOST\tTOKENS\tIN\tOUT\tCACHE READ\tCACHE WRITE\t\n", strings.ToUpper(string(rep.By)))
	row := func(r runs.UsageRow) {
		fmt.Fprintf(tw, "%s\t%d\t$%.4f\t%s\t%s\t%s\t%s\t%s\t\n", r.Key, r.Runs, r.CostUSD, runs.Thousands(r.Tokens()),
			runs.Thousands(r.InputTokens), runs.Thousands(r.OutputTokens), runs.Thousands(r.CacheReadTokens), runs.Thousands(r.CacheWriteTokens))
	}
	for _, r := range rep.Rows {
		row(r)
	}
	row(rep.Total)
	tw.Flush()
	if n := rep.Total.CostOnly; n > 0 {
		fmt.Fprintf(out, "%d of these runs were recorded before segwi kept usage: their cost is counted, their tokens are not\n", n)
	}
}

// ago says a duration in days, or hours under two days: "30 days", "36 hours".
func ago(d time.Duration) string {
	if d < 48*time.Hour {
		return fmt.Sprintf("%d hours", int(d.Round(time.Hour).Hours()))
	}
	return fmt.Sprintf("%d days", int((d+12*time.Hour).Hours()/24))
}

// parseSince returns the time s names, before now: a number of days (30d) or weeks (2w), a
// duration (36h, 90m), or a date (2026-11-01), in local time.
func parseSince(s string, now time.Time) (time.Time, error) {
	s = strings.TrimSpace(s)
	if t, err := time.ParseInLocation(time.DateOnly, s, time.Local); err == nil {
		return t, nil
	}
	for unit, day := range map[string]int{"d": 1, "w": 7} {
		if n, ok := strings.CutSuffix(s, unit); ok {
			if k, err := strconv.Atoi(n); err == nil && k >= 0 {
				return now.AddDate(0, 0, -k*day), nil
			}
		}
	}
	if d, err := time.ParseDuration(s); err == nil && d >= 0 {
		return now.Add(-d), nil
	}
	return time.Time{}, fmt.Errorf("--since %q: give days (30d), weeks (2w), a duration (36h) or a date (2026-11-01)", s)
}
