package cli

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"github.com/segwi/segwi/internal/lib/gitcmd"
	"github.com/segwi/segwi/runs"
	"github.com/segwi/segwi/settings"
)

func newRunsCmd(env *Env) *cobra.Command {
	list := func(*cobra.Command, []string) error { return runsList(env) }
	cmd := &cobra.Command{
		Use:   "runs [list | show ID | events ID | diff ID]",
		Short: "List the recorded runs, or show one run's record, events or changes",
		Long: "List the recorded runs (newest first), or show one run's record (show), events (events)\n" +
			"or the changes it made in its checkout (diff).\n" +
			"A run id may be shortened to any unique part of its start or of its end: run ids start with\n" +
			"the date, so the random end (e5dc0e in 20250102-150405-e5dc0e) is the quickest to type.\n" +
			"A damaged record (a run.json or events.jsonl that cannot be read) is named on stderr with\n" +
			"what to do; the other runs are still listed.\n" +
			"Exit status: 0, or 1 when a record is damaged or the run is not found.",
		Args: noCommand,
		RunE: list,
	}
	cmd.AddCommand(&cobra.Command{
		Use:   "list",
		Short: "List the recorded runs, newest first",
		Args:  args(cobra.NoArgs),
		RunE:  list,
	})
	var showJSON bool
	show := &cobra.Command{
		Use:   "show ID",
		Short: "Show a run's record: kind, checkout, prompt, state, times, exit code, cost",
		Args:  args(cobra.ExactArgs(1)),
		RunE:  func(_ *cobra.Command, a []string) error { return runsShow(env, a[0], showJSON) },
	}
	show.Flags().BoolVar(&showJSON, "json", false, "print run.json's fields as JSON")
	cmd.AddCommand(show)
	var eventsJSON bool
	events := &cobra.Command{
		Use:   "events ID",
		Short: "Print a run's recorded events, oldest first",
		Args:  args(cobra.ExactArgs(1)),
		RunE:  func(_ *cobra.Command, a []string) error { return runsEvents(env, a[0], eventsJSON) },
	}
	events.Flags().BoolVar(&eventsJSON, "json", false, "print each event as a JSON line instead of a readable line")
	cmd.AddCommand(events)
	cmd.AddCommand(newRunsDiffCmd())
	return cmd
}

func stateDir() (string, error) {
	dir, err := settings.StateDir()
	if err != nil {
		return "", fmt.Errorf("finding the state folder: %w", err)
	}
	return dir, nil
}

// runsList prints a table of the recorded runs, newest first. Damaged records are named
// on stderr, with what to do, and make the exit status 1.
func runsList(env *Env) error {
	dir, err := stateDir()
	if err != nil {
		return err
	}
	unmarked := runs.MarkInterrupted(dir)
	sums, unread, err := runs.Summaries(dir)
	if err != nil {
		return err
	}
	if len(sums) == 0 && len(unread) == 0 && len(unmarked) == 0 {
		fmt.Fprintf(env.Stdout, "no runs recorded in %s yet; start one with segwi run\n", runs.RunsDir(dir))
		return nil
	}
	slices.Reverse(sums)
	out := bufio.NewWriter(env.Stdout)
	tw := tabwriter.NewWriter(out, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "ID\tKIND\tSTATE\tSTARTED\tCHECKOUT\tCOST")
	for _, s := range sums {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t$%.4f\n", s.ID, s.Kind, s.StateText(), s.Created.Local().Format("2006-01-02 15:04:05"), s.Checkout, s.CostUSD)
	}
	tw.Flush()
	out.Flush()
	if n := warnDamaged(env, unmarked, unread); n > 0 {
		return fmt.Errorf("%d run records are damaged (named above); the other runs are listed", n)
	}
	return nil
}

// warnDamaged names each damaged record of the lists on stderr, once, with what to do, and
// returns how many it named.
func warnDamaged(env *Env, lists ...[]runs.Damaged) int {
	seen := map[string]bool{}
	for _, list := range lists {
		for _, d := range list {
			if !seen[d.File] {
				seen[d.File] = true
				fmt.Fprintf(env.Stderr, "warning: %v\n", d)
			}
		}
	}
	return len(seen)
}

// runsShow prints a run's record.
func runsShow(env *Env, id string, asJSON bool) error {
	dir, err := stateDir()
	if err != nil {
		return err
	}
	in, err := runs.Load(dir, id)
	if err != nil {
		return err
	}
	if asJSON {
		b, err := in.AppendJSON(nil)
		if err != nil {
			return fmt.Errorf("printing run %s: %w", in.ID, err)
		}
		_, err = fmt.Fprintf(env.Stdout, "%s\n", b)
		return err
	}
	writeInfo(env.Stdout, in, runs.ConversationOf(dir, in))
	return nil
}

// writeInfo prints the fields of a run's record, one a line, and the runs of its
// conversation conv when it has more than one.
func writeInfo(w io.Writer, in runs.Info, conv runs.Conversation) {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	line := func(k, v string) {
		if v != "" {
			fmt.Fprintf(tw, "%s\t%s\n", k, v)
		}
	}
	when := func(t time.Time) string {
		if t.IsZero() {
			return ""
		}
		return t.Local().Format("2006-01-02 15:04:05 MST")
	}
	line("run", in.ID)
	line("kind", string(in.Kind))
	state := string(in.State)
	if in.Reason != "" {
		state += ": " + in.Reason
	}
	line("state", state)
	line("checkout", in.Checkout)
	if w := in.Worktree; w != nil {
		now := "still there"
		if _, err := os.Lstat(w.Path); err != nil {
			now = "removed"
		}
		line("worktree", fmt.Sprintf("%s on %s, from %s of %s (%s)", w.Path, w.Branch, gitcmd.Short(w.Commit), w.Repository, now))
	}
	if p := in.Ports; p != nil {
		line("ports", p.String()+" (SEGWI_PORT, SEGWI_PORT_COUNT)")
	}
	if in.Base != nil {
		line("base", runs.BaseText(in.Base))
	}
	line("model", in.Model)
	line("runtime", in.Runtime)
	line("created", when(in.Created))
	line("started", when(in.Start))
	if !in.End.IsZero() {
		end := when(in.End)
		if !in.Start.IsZero() {
			end += fmt.Sprintf(" (ran %s)", in.End.Sub(in.Start).Round(time.Millisecond))
		}
		line("ended", end)
	}
	if in.ExitCode != nil {
		line("exit code", fmt.Sprint(*in.ExitCode))
	}
	line("cost", fmt.Sprintf("$%.4f", in.CostUSD))
	if in.Turns > 0 {
		line("turns", fmt.Sprint(in.Turns))
	}
	if in.Usage != nil {
		line("usage", in.Usage.String())
	}
	if in.Budget != nil {
		line("budget", runs.BudgetText(in))
	}
	line("session", in.SessionID)
	if in.PID != 0 && !in.State.Final() {
		line("process", fmt.Sprintf("%d (its process group)", in.PID))
	}
	switch {
	case in.Cgroup != "":
		line("processes", "kept in cgroup "+in.Cgroup)
	case in.NoCgroup != "":
		line("processes", "swept at the end, no cgroup: "+in.NoCgroup)
	}
	line("pushed", in.Pushed)
	line("pull request", in.PullRequest)
	line("continues", in.ContinuedFrom)
	line("continued by", strings.Join(in.ContinuedBy, ", "))
	if len(conv.Runs) > 1 {
		line("conversation", fmt.Sprintf("%s, in order; segwi commit and segwi push act on them all", strings.Join(conv.IDs(), ", ")))
	}
	line("folder", in.Dir)
	line("command", strings.Join(in.Argv, " "))
	tw.Flush()
	if in.Prompt != "" {
		fmt.Fprintf(w, "prompt:\n  %s\n", strings.ReplaceAll(strings.TrimRight(in.Prompt, "\n"), "\n", "\n  "))
	}
}

// runsEvents prints a run's recorded events.
func runsEvents(env *Env, id string, asJSON bool) error {
	dir, err := stateDir()
	if err != nil {
		return err
	}
	out := bufio.NewWriterSize(env.Stdout, 64<<10)
	p := &printer{out: out, json: asJSON}
	err = runs.ReadEvents(dir, id, func(e runs.Event) error {
		p.print(e)
		return nil
	})
	out.Flush() //nolint:errcheck // as segwi run: a closed stdout ends nothing worse
	return err
}
