package cli

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/segwi/segwi/internal/lib/gitcmd"
	"github.com/segwi/segwi/runs"
	"github.com/segwi/segwi/runs/changes"
)

// commitOptions are segwi commit's flags and argument.
type commitOptions struct {
	id      string
	message string
	include []string
}

func newCommitCmd(env *Env) *cobra.Command {
	var o commitOptions
	cmd := &cobra.Command{
		Use:   "commit ID [-m MESSAGE] [--include FILE]...",
		Short: "Commit what a finished run changed, as you, on its checkout's branch",
		Long: "Commit the uncommitted changes of a finished run (segwi runs diff ID --stat lists them) on the\n" +
			"branch its checkout is on, with your own git identity (user.name and user.email). A run and\n" +
			"the runs that continue it (segwi run --continue) are one conversation: ID may name any of\n" +
			"them, and the commit holds the changes of all of them, counted from the first run's start.\n" +
			"Files that were already changed before the first run started may be yours: they are left\n" +
			"out unless named with --include (a path relative to the repository's top folder). Changes\n" +
			"you staged for other files stay staged. Without -m, the message is the first run's task's\n" +
			"first line, then the agent's final summary. The commit ends with a Segwi-Runs trailer naming\n" +
			"the runs (segwi.provenance.trailer: false leaves it out). Unlike git commit, no hook runs\n" +
			"and the commit is not signed: the run's agent could have written the checkout's hooks and\n" +
			"git configuration. Then push it with segwi push ID.\n" +
			"Exit status: 0 when committed, 1 when refused or failed.",
		Args: args(cobra.ExactArgs(1)),
		RunE: func(cmd *cobra.Command, a []string) error {
			o.id = a[0]
			return runCommit(cmd.Context(), env, o)
		},
	}
	cmd.Flags().StringVarP(&o.message, "message", "m", "", "the commit message (default: the first task's first line and the agent's final summary)")
	cmd.Flags().StringArrayVar(&o.include, "include", nil, "also commit this file, although it was already changed before the run (repeatable)")
	return cmd
}

// runCommit commits the changes of run o.id, and says what it committed and left out.
func runCommit(ctx context.Context, env *Env, o commitOptions) error {
	dir, err := stateDir()
	if err != nil {
		return err
	}
	warnDamaged(env, runs.MarkInterrupted(dir))
	_, st, err := env.LoadSettings()
	if err != nil {
		return err
	}
	c, err := shipper(env, st.Settings, dir).Commit(ctx, o.id, changes.CommitOptions{Message: o.message, Include: o.include})
	var refused *changes.RefusedError
	switch {
	case errors.Is(err, runs.ErrNotFound):
		return err
	case errors.As(err, &refused):
		fmt.Fprintf(env.Stdout, "not committed: %s\n", refused.Msg)
		return &silentError{ExitError}
	case errors.Is(err, runs.ErrAskRun):
		fmt.Fprintf(env.Stdout, "not committed: %s\n", runs.ErrAskRun)
		return &silentError{ExitError}
	case err != nil:
		fmt.Fprintf(env.Stdout, "not committed: %v\n", err)
		return &silentError{ExitError}
	}
	fmt.Fprintf(env.Stdout, "committed %s on %s as %s: %s\n", gitcmd.Short(c.Commit), c.Branch, c.Author, c.Subject)
	fmt.Fprintf(env.Stdout, "  files: %s\n", strings.Join(c.Files, ", "))
	if len(c.LeftOut) > 0 {
		fmt.Fprintf(env.Stdout, "  left out, already changed before the run: %s (name one with --include to commit it)\n", strings.Join(c.LeftOut, ", "))
	}
	if c.IndexNote != "" {
		fmt.Fprintf(env.Stderr, "warning: %s\n", c.IndexNote)
	}
	return nil
}
