package cli

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/segwi/segwi/internal/core"
	"github.com/segwi/segwi/runs"
	"github.com/segwi/segwi/runs/push"
	"github.com/segwi/segwi/settings/token"
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
			"With --pr, also open a pull request for the branch (segwi.github.apiURL), titled after the\n" +
			"run's prompt. Exit status: 0 when pushed, 1 when refused or failed.",
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
	res, err := env.LoadSettings()
	if err != nil {
		return err
	}
	s := res.Settings
	var recordErr error
	req := core.PushRequest(s, dir, info.ID, info.Checkout, func(err error) { recordErr = err })
	req.RunActive = !info.State.Final()
	req.AllowLoopbackHTTP = env.AllowLoopbackHTTP
	if !req.RunActive {
		// No process of the run may change the checkout, or its git configuration, while
		// the push reads it: what the run left running ends before anything else.
		killed, err := runs.KillLeftovers(dir, info.ID)
		for _, p := range killed {
			if p.Killed {
				fmt.Fprintf(env.Stderr, "segwi: killed process %d, which run %s left running: %s\n", p.PID, info.ID, p.Command)
			}
		}
		if err != nil {
			fmt.Fprintf(env.Stdout, "not pushed: %v\n", err)
			return &silentError{ExitError}
		}
	}
	a, err := push.Push(ctx, req)
	if recordErr != nil {
		fmt.Fprintf(env.Stderr, "warning: this attempt is not on the run's record: %v\n", recordErr)
	}
	var refused *push.RefusedError
	switch {
	case errors.As(err, &refused):
		fmt.Fprintf(env.Stdout, "not pushed: %s\n", refused.Msg)
		return &silentError{ExitError}
	case err != nil:
		fmt.Fprintf(env.Stdout, "push failed: %s\n", a.Message)
		if a.GitOutput != "" {
			fmt.Fprintf(env.Stdout, "git said:\n  %s\n", strings.ReplaceAll(strings.TrimRight(a.GitOutput, "\n"), "\n", "\n  "))
		}
		return &silentError{ExitError}
	}
	fmt.Fprintf(env.Stdout, "pushed %s (commit %s) to %s (%s)\n", a.Branch, short(a.Commit), a.Remote, a.URL)
	if !o.pr {
		return nil
	}

	opened, err := push.OpenPullRequest(ctx, push.PullRequest{
		APIBase:           s.GitHub.APIURL,
		RemoteURL:         a.URL,
		Head:              a.Branch,
		Base:              o.base,
		Title:             prTitle(info),
		Body:              prBody(dir, info),
		Draft:             o.draft,
		Token:             token.Get,
		TokenNotFound:     token.ErrNotFound,
		AllowLoopbackHTTP: env.AllowLoopbackHTTP,
	})
	if err != nil {
		fmt.Fprintf(env.Stdout, "pull request not opened: %v\n", err)
		return &silentError{ExitError}
	}
	fmt.Fprintf(env.Stdout, "opened pull request #%d: %s\n", opened.Number, opened.URL)
	return nil
}

func short(commit string) string { return commit[:min(len(commit), 12)] }

// prTitle is the first line of the run's prompt, or says what kind of run it was.
func prTitle(info runs.Info) string {
	title, _, _ := strings.Cut(strings.TrimSpace(info.Prompt), "\n")
	title = strings.TrimSpace(title)
	if title == "" {
		if info.Kind == runs.KindReady {
			return "Get the branch ready for review"
		}
		return fmt.Sprintf("segwi %s run %s", info.Kind, info.ID)
	}
	if r := []rune(title); len(r) > 120 {
		title = string(r[:119]) + "…"
	}
	return title
}

// prBody says which run made the change, and gives the run's last result text.
func prBody(stateDir string, info runs.Info) string {
	var result string
	runs.ReadEvents(stateDir, info.ID, func(e runs.Event) error { //nolint:errcheck // the body does without it
		if e.Type == runs.EventResult && e.Text != "" {
			result = e.Text
		}
		return nil
	})
	var b strings.Builder
	fmt.Fprintf(&b, "Made by a segwi %s run (Claude Code), run `%s`, cost $%.4f.\n", info.Kind, info.ID, info.CostUSD)
	if p := strings.TrimSpace(info.Prompt); p != "" {
		fmt.Fprintf(&b, "\n**Prompt**\n\n%s\n", p)
	}
	if result != "" {
		fmt.Fprintf(&b, "\n**Result**\n\n%s\n", result)
	}
	return b.String()
}
