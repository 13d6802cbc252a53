package cli

import (
	"errors"
	"fmt"
	"io"
	"path/filepath"

	"github.com/spf13/cobra"

	"github.com/segwi/segwi/canary"
	"github.com/segwi/segwi/runs"
)

func newCanaryCmd(env *Env) *cobra.Command {
	var checkout string
	cmd := &cobra.Command{
		Use:   "canary [--checkout DIR]",
		Short: "Check that runs still behave as promised, with a real ask run",
		Long: "Run the canary: a real ask run with your own Claude Code and account, in --checkout DIR or\n" +
			"else in a temporary clone of the first repository in segwi.repositories. The agent reads a\n" +
			"file, runs a harmless command, and runs the first command of the guard deny file named by\n" +
			"segwi.canary.guardDeny, which your guard hook must refuse. It passes when the run shows\n" +
			"every kind of event, the guard hook refused that command, the run succeeded and the\n" +
			"checkout is unchanged. The run's events go to stderr as it goes, the report to stdout;\n" +
			"the run is recorded like any other (segwi runs). Approvals are asked on the terminal.\n" +
			"Exit status: 0 when every check passed, 1 when one did not, 2 for a wrong command line.",
		Args: args(cobra.NoArgs),
		RunE: func(cmd *cobra.Command, _ []string) error {
			res, st, err := env.LoadSettings()
			if err != nil {
				return err
			}
			dir := checkout
			if dir != "" {
				if dir, err = filepath.Abs(dir); err != nil {
					return usageErrorf("--checkout %s: %v", checkout, err)
				}
			}
			c, _, err := startCore(cmd.Context(), env, res, st, false)
			if err != nil {
				return err
			}
			defer c.Close() //nolint:errcheck // it kills what is left; nothing more to do
			opts := canary.FromSettings(c.Manager(), c.Settings(), dir)
			var narrator runs.Narrator // called from the one goroutine following the run
			opts.OnEvent = func(e runs.Event) {
				if line := narrator.Line(e); line != "" {
					io.WriteString(env.Stderr, line+"\n") //nolint:errcheck // progress only
				}
			}
			rep, err := canary.Run(cmd.Context(), opts)
			if rep.RunID != "" {
				io.WriteString(env.Stdout, rep.String()) //nolint:errcheck // the exit status tells too
			}
			switch {
			case errors.Is(err, canary.ErrNoGuardDeny):
				return fmt.Errorf("canary: %w\n(settings file: %s)\n\n%s", err, res.File, canary.GuardHelp)
			case errors.Is(err, canary.ErrNoCheckout):
				return fmt.Errorf("canary: %w\n(settings file: %s)", err, res.File)
			case err != nil:
				return fmt.Errorf("canary: %w", err)
			case !rep.Passed():
				return &silentError{ExitError}
			}
			return nil
		},
	}
	cmd.Flags().StringVar(&checkout, "checkout", "", "the checkout to run in (default: a temporary clone of the first of segwi.repositories)")
	return cmd
}
