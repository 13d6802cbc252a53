package cli

import (
	"context"
	"errors"
	"fmt"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/segwi/segwi/internal/lib/gitcmd"
	"github.com/segwi/segwi/internal/roots/core"
	"github.com/segwi/segwi/runs"
	"github.com/segwi/segwi/runs/worktree"
)

func newWorktreesCmd(env *Env) *cobra.Command {
	list := func(cmd *cobra.Command, _ []string) error { return worktreesList(cmd.Context(), env) }
	cmd := &cobra.Command{
		Use:   "worktrees [list | remove ID | prune]",
		Short: "List or remove the git worktrees segwi made for runs (segwi run --worktree)",
		Long: "List the git worktrees segwi made for runs that worked in a worktree of their own (segwi run\n" +
			"--worktree, segwi.repositories[].worktree), with their branch, the runs that worked there,\n" +
			"and the disk each holds; remove one (remove ID, by the id of a run that worked in it); or\n" +
			"forget those whose folders were removed by hand (prune, as git worktree prune).\n" +
			"remove refuses a worktree a run works in now, and one whose removal would lose work: files\n" +
			"changed and not committed, or, with --delete-branch, commits its branch holds that were never\n" +
			"pushed. It says what would be lost; --force removes it anyway.\n" +
			"Exit status: 0, or 1 when something was refused or failed.",
		Args: noCommand,
		RunE: list,
	}
	cmd.AddCommand(&cobra.Command{
		Use:   "list",
		Short: "List the worktrees segwi made for runs",
		Args:  args(cobra.NoArgs),
		RunE:  list,
	})
	var o worktree.RemoveOptions
	remove := &cobra.Command{
		Use:   "remove ID",
		Short: "Remove the worktree run ID worked in (its branch stays unless --delete-branch)",
		Args:  args(cobra.ExactArgs(1)),
		RunE:  func(cmd *cobra.Command, a []string) error { return worktreesRemove(cmd.Context(), env, a[0], o) },
	}
	remove.Flags().BoolVar(&o.DeleteBranch, "delete-branch", false, "delete its branch too, when it was never pushed")
	remove.Flags().BoolVar(&o.Force, "force", false, "remove it even when that loses uncommitted changes or unpushed commits")
	cmd.AddCommand(remove)
	cmd.AddCommand(&cobra.Command{
		Use:   "prune",
		Short: "Forget the worktrees whose folders were removed by hand",
		Args:  args(cobra.NoArgs),
		RunE:  func(cmd *cobra.Command, _ []string) error { return worktreesPrune(cmd.Context(), env) },
	})
	return cmd
}

// worktreesList prints a table of the worktrees segwi made, oldest first.
func worktreesList(ctx context.Context, env *Env) error {
	dir, err := stateDir()
	if err != nil {
		return err
	}
	entries, err := runs.Worktrees(ctx, dir, true)
	if err != nil {
		return err
	}
	if len(entries) == 0 {
		fmt.Fprintln(env.Stdout, "no run has worked in a worktree of its own yet; segwi run --worktree starts one")
		return nil
	}
	w := tabwriter.NewWriter(env.Stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(w, "RUN\tBRANCH\tREPOSITORY\tWORKTREE\tDISK\tNOW")
	for _, e := range entries {
		now := "kept"
		switch {
		case e.Live != "":
			now = "run " + e.Live + " works in it"
		case !e.Exists:
			now = "removed"
		}
		disk := "-"
		if e.Exists {
			disk = worktree.Size(e.Disk)
		}
		fmt.Fprintf(w, "%s\t%s\t%s\t%s\t%s\t%s\n", e.Run.ID, e.Worktree.Branch, e.Worktree.Repository, e.Worktree.Path, disk, now)
	}
	return w.Flush()
}

// worktreesRemove removes the worktree run id worked in, as o says.
func worktreesRemove(ctx context.Context, env *Env, id string, o worktree.RemoveOptions) error {
	dir, err := stateDir()
	if err != nil {
		return err
	}
	in, err := runs.Load(dir, id)
	if err != nil {
		return err
	}
	if in.Worktree != nil {
		// The remote whose branches say what was pushed is the run's repository's, as a
		// tray's removal finds it: a settings file that does not load is an error, not origin.
		_, st, err := env.LoadSettings()
		if err != nil {
			return err
		}
		o.Remote = runs.RemoteOf(core.RunRepositories(st.Settings.Repositories), in.Worktree.Repository)
	}
	root, err := worktree.Root(nil)
	if err != nil {
		return err
	}
	done, err := runs.RemoveWorktree(ctx, gitcmd.New("", "", nil), dir, root, in.ID, o)
	var refused *worktree.RefusedError
	if errors.As(err, &refused) {
		return fmt.Errorf("%w\n(segwi worktrees remove --force %s removes it anyway)", err, in.ID)
	}
	if err != nil {
		return err
	}
	fmt.Fprintln(env.Stdout, done.Words(in.Worktree.Path, in.Worktree.Branch, o.DeleteBranch))
	if !done.BranchDeleted && !o.DeleteBranch {
		fmt.Fprintln(env.Stdout, "(--delete-branch deletes it when it was never pushed)")
	}
	return nil
}

// worktreesPrune forgets the worktrees whose folders were removed by hand.
func worktreesPrune(ctx context.Context, env *Env) error {
	dir, err := stateDir()
	if err != nil {
		return err
	}
	forgot, err := runs.Prune(ctx, dir)
	for _, p := range forgot {
		fmt.Fprintf(env.Stdout, "forgot %s, removed by hand\n", p)
	}
	if len(forgot) == 0 && err == nil {
		fmt.Fprintln(env.Stdout, "every worktree segwi made is still there or forgotten already")
	}
	return err
}
