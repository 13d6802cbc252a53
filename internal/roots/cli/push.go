package cli

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/segwi/segwi/internal/lib/gitcmd"
	"github.com/segwi/segwi/internal/lib/logger"
	"github.com/segwi/segwi/internal/roots/core"
	"github.com/segwi/segwi/runs"
	"github.com/segwi/segwi/runs/push"
	"github.com/segwi/segwi/settings"
)

// pushOptions are segwi push's flags and argument.
type pushOptions struct {
	id    string
	pr    bool
	base  string
	draft bool
}

func newPushCmd(env *Env) *cobra.Command {
	var o pushOptions
	cmd := &cobra.Command{
		Use:   "push ID [--pr [--base BRANCH] [--draft]]",
		Short: "Push a finished run's branch with the GitHub token from the keyring",
		Long: "Push the current branch of a finished run's checkout to its remote (segwi.repositories[].remote,\n" +
			"default origin) over HTTPS, with the GitHub token kept in the keyring (segwi token set).\n" +
			"The agent never holds the token. Every attempt is recorded on the run's events.\n" +
			"With --pr, also open a pull request for the branch (segwi.github.apiURL) that tells the\n" +
			"run's whole conversation (the run and the runs that continue it): titled after the first\n" +
			"task, its body the agent's final summary, what you asked and, unless segwi.provenance.approvals\n" +
			"is false, what was allowed during it and by whom. ID may name any run of the conversation,\n" +
			"shortened as for segwi runs (e.g. its random end).\n" +
			"Exit status: 0 when pushed, 1 when refused or failed.",
		Args: args(cobra.ExactArgs(1)),
		RunE: func(cmd *cobra.Command, a []string) error {
			o.id = a[0]
			return runPush(cmd.Context(), env, o)
		},
	}
	cmd.Flags().BoolVar(&o.pr, "pr", false, "open a pull request for the pushed branch")
	cmd.Flags().StringVar(&o.base, "base", "", "with --pr: the branch to merge into (default: the repository's default branch)")
	cmd.Flags().BoolVar(&o.draft, "draft", false, "with --pr: open it as a draft")
	return cmd
}

// shipper is the core's Shipper for a command, with the settings it loaded; what it
// logs goes to stderr.
func shipper(env *Env, s settings.Settings, stateDir string) core.Shipper {
	return core.Shipper{
		Settings:          s,
		StateDir:          stateDir,
		AllowLoopbackHTTP: env.AllowLoopbackHTTP,
		Log:               logger.To(env.Stderr, "segwi: "),
	}
}

// runPush pushes the branch of run o.id and, with o.pr, opens a pull request for it.
func runPush(ctx context.Context, env *Env, o pushOptions) error {
	if !o.pr && (o.base != "" || o.draft) {
		return usageErrorf("--base and --draft go with --pr")
	}
	dir, err := stateDir()
	if err != nil {
		return err
	}
	warnDamaged(env, runs.MarkInterrupted(dir))
	info, err := runs.Load(dir, o.id)
	if err != nil {
		return err
	}
	_, st, err := env.LoadSettings()
	if err != nil {
		return err
	}
	ship := shipper(env, st.Settings, dir)
	a, err := ship.Push(ctx, info.ID)
	var refused *push.RefusedError
	switch {
	case errors.As(err, &refused):
		fmt.Fprintf(env.Stdout, "not pushed: %s\n", refused.Msg)
		return &silentError{ExitError}
	case err != nil && a.Outcome == "":
		fmt.Fprintf(env.Stdout, "not pushed: %v\n", err)
		return &silentError{ExitError}
	case err != nil:
		fmt.Fprintf(env.Stdout, "push failed: %s\n", a.Message)
		if a.GitOutput != "" {
			fmt.Fprintf(env.Stdout, "git said:\n  %s\n", strings.ReplaceAll(strings.TrimRight(a.GitOutput, "\n"), "\n", "\n  "))
		}
		return &silentError{ExitError}
	}
	fmt.Fprintf(env.Stdout, "pushed %s (commit %s) to %s (%s)\n", a.Branch, gitcmd.Short(a.Commit), a.Remote, a.URL)
	if !o.pr {
		return nil
	}
	pr, err := ship.OpenPullRequest(ctx, info.ID, core.PullRequestOptions{Base: o.base, Draft: o.draft})
	if err != nil {
		fmt.Fprintf(env.Stdout, "pull request not opened: %v\n", err)
		return &silentError{ExitError}
	}
	fmt.Fprintf(env.Stdout, "opened pull request #%d: %s\n", pr.Number, pr.URL)
	return nil
}
