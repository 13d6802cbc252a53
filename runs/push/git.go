package push

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"
)

// git runs git commands in one checkout with a cleaned environment.
type git struct {
	path string   // the git binary
	dir  string   // the checkout
	env  []string // cleaned, see cleanEnv
}

// gitError is a git command that exited with a non-zero status.
type gitError struct {
	args   []string
	code   int
	stderr string
}

func (e *gitError) Error() string {
	msg := strings.TrimSpace(e.stderr)
	if msg == "" {
		msg = fmt.Sprintf("exit status %d", e.code)
	}
	return fmt.Sprintf("git %s: %s", strings.Join(e.args, " "), msg)
}

// exitCode returns the exit status of a failed git command, or -1 when err is not one.
func exitCode(err error) int {
	var ge *gitError
	if errors.As(err, &ge) {
		return ge.code
	}
	return -1
}

// output runs a local (no network) git command and returns its trimmed standard output.
// It returns when git exits or ctx is done.
func (g git) output(ctx context.Context, args ...string) (string, error) {
	cmd := exec.CommandContext(ctx, g.path, args...)
	cmd.Dir = g.dir
	cmd.Env = g.env
	var stdout, stderr bytes.Buffer
	cmd.Stdout = &stdout
	cmd.Stderr = &stderr
	err := cmd.Run()
	if err != nil {
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			return "", &gitError{args: args, code: ee.ExitCode(), stderr: stderr.String()}
		}
		return "", fmt.Errorf("running git %s: %w", strings.Join(args, " "), err)
	}
	return strings.TrimSpace(stdout.String()), nil
}

// droppedEnv are variables removed from git's environment for a push: they would trace
// what git sends, point it at other repositories, configure it from outside, prompt, or
// hand out forge tokens.
var droppedEnv = []string{
	"GIT_ASKPASS", "SSH_ASKPASS", "GIT_TERMINAL_PROMPT", "GCM_INTERACTIVE",
	"GIT_CURL_VERBOSE", "GIT_SSL_NO_VERIFY", "GIT_EXEC_PATH",
	"GIT_DIR", "GIT_WORK_TREE", "GIT_COMMON_DIR", "GIT_INDEX_FILE", "GIT_NAMESPACE",
	"GIT_OBJECT_DIRECTORY", "GIT_ALTERNATE_OBJECT_DIRECTORIES",
	"GIT_CONFIG_PARAMETERS", "GIT_CONFIG_COUNT",
	"GIT_ALLOW_PROTOCOL", "GIT_PROTOCOL_FROM_USER",
	"GH_TOKEN", "GITHUB_TOKEN", "GH_ENTERPRISE_TOKEN", "GITHUB_ENTERPRISE_TOKEN",
}

// droppedEnvPrefixes are prefixes of variables removed the same way.
var droppedEnvPrefixes = []string{"GIT_TRACE", "GIT_CONFIG_KEY_", "GIT_CONFIG_VALUE_", "GIT_REDIRECT_"}

// cleanEnv returns env without the dropped variables, plus the settings that keep git
// from prompting anyone.
func cleanEnv(env []string) []string {
	out := make([]string, 0, len(env)+4)
next:
	for _, kv := range env {
		name, _, _ := strings.Cut(kv, "=")
		for _, d := range droppedEnv {
			if name == d {
				continue next
			}
		}
		for _, p := range droppedEnvPrefixes {
			if strings.HasPrefix(name, p) {
				continue next
			}
		}
		out = append(out, kv)
	}
	return append(out,
		"GIT_TERMINAL_PROMPT=0", // no prompt on a terminal
		"GIT_ASKPASS=",          // empty: no askpass program, not even core.askPass
		"GCM_INTERACTIVE=never", // Git Credential Manager, if the person's PATH has it
	)
}

// envOrDefault returns env, or this process's environment when env is nil.
func envOrDefault(env []string) []string {
	if env == nil {
		return os.Environ()
	}
	return env
}
