package cli

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/segwi/segwi/control"
	"github.com/segwi/segwi/internal/lib/gitcmd"
	"github.com/segwi/segwi/internal/roots/core"
	"github.com/segwi/segwi/runs"
	"github.com/segwi/segwi/runs/changes"
)

// newRunsDiffCmd is `segwi runs diff ID [--stat]`.
func newRunsDiffCmd() *cobra.Command {
	var stat bool
	cmd := &cobra.Command{
		Use:   "diff ID [--stat]",
		Short: "Print what a run changed in its checkout since it started, as a diff",
		Long: "Print the changes of a run from its base (the branch and commit its checkout was on when\n" +
			"it started): the commits made since, and what is uncommitted now, new untracked files\n" +
			"included, as one unified diff computed by git, whole. Binary files are named, not printed.\n" +
			"A run that continues another (segwi run --continue), or is continued, shows the changes of\n" +
			"its whole conversation, from the first run's base.\n" +
			"With --stat, list the changed files instead, with their lines added and deleted, and\n" +
			"mark the files that were already changed before the run started.\n" +
			"Exit status: 0, or 1 when the run has no recorded base or its checkout cannot be read.",
		Args: args(cobra.ExactArgs(1)),
		RunE: func(cmd *cobra.Command, a []string) error {
			return runsDiff(cmd.Context(), cmd.OutOrStdout(), a[0], stat)
		},
	}
	cmd.Flags().BoolVar(&stat, "stat", false, "list the changed files instead of printing the diff")
	return cmd
}

// runsDiff prints the changes of the run id: the whole diff on out as git writes it, or
// with stat the list of changed files.
func runsDiff(ctx context.Context, out io.Writer, id string, stat bool) error {
	dir, err := stateDir()
	if err != nil {
		return err
	}
	shipper := core.Shipper{StateDir: dir}
	if !stat {
		w := bufio.NewWriterSize(out, 64<<10)
		err := shipper.Diff(ctx, id, w)
		if ferr := w.Flush(); err == nil {
			err = ferr
		}
		return err
	}
	snap, conv, err := shipper.Changes(ctx, id)
	if err != nil {
		return err
	}
	defer snap.Close()
	writeStat(out, conv, snap)
	return nil
}

// writeStat lists the files of snap, the changes of the conversation conv, one a line:
// status, path, lines added and deleted (or "binary"), and whether it was already changed
// before the run (before its first run, in a conversation of several); then the commits made since the base and the totals.
func writeStat(w io.Writer, conv runs.Conversation, snap *changes.Snapshot) {
	files, added, deleted := snap.Stat()
	fmt.Fprintf(w, "%s: changes since %s\n", conv.Name(), runs.BaseText(&snap.Base))
	if files == 0 {
		fmt.Fprintln(w, "no changes")
		return
	}
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	for _, f := range snap.Files {
		note := ""
		if f.DirtyAtBase {
			note = "already " + control.ChangedBefore(len(conv.Runs))
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", f.Status, f.Name(), f.Lines(), note)
	}
	tw.Flush()
	for _, c := range snap.Commits {
		fmt.Fprintf(w, "commit %s %s\n", gitcmd.Short(c.Hash), c.Subject)
	}
	if snap.MoreCommits {
		fmt.Fprintf(w, "and more commits (only the last %d are listed)\n", changes.MaxCommits)
	}
	noun := "files"
	if files == 1 {
		noun = "file"
	}
	fmt.Fprintf(w, "%d %s changed, +%d -%d\n", files, noun, added, deleted)
}
