package push

import (
	"context"
	"os"

	"github.com/segwi/segwi/internal/gitcmd"
)

// git runs git commands in one checkout with a cleaned environment, through segwi's one
// git seam (internal/gitcmd).
type git struct {
	path string   // the git binary
	dir  string   // the checkout
	env  []string // cleaned, see cleanEnv
}

// output runs a local (no network) git command and returns its trimmed standard output.
// It returns when git exits or ctx is done.
func (g git) output(ctx context.Context, args ...string) (string, error) {
	return gitcmd.Git{Path: g.path, Dir: g.dir, Env: g.env}.Output(ctx, args...)
}

// exitCode returns the exit status of a failed git command, or -1 when err is not one.
func exitCode(err error) int { return gitcmd.ExitCode(err) }

// cleanEnv returns env without the variables that would trace, redirect or reconfigure
// git, plus the settings that keep it from prompting anyone (gitcmd.CleanEnv).
func cleanEnv(env []string) []string { return gitcmd.CleanEnv(env) }

// envOrDefault returns env, or this process's environment when env is nil.
func envOrDefault(env []string) []string {
	if env == nil {
		return os.Environ()
	}
	return env
}
