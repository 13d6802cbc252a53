// Package gitcmd is the one seam through which segwi runs git itself: push's checks and
// the push (runs/push), a run's base and changes, and the commit of a run's changes
// (runs/changes). Every command runs with an environment cleaned of what would trace what
// git sends, point it at another repository, configure it from outside, prompt a person,
// or hand it a forge token (CleanEnv); the caller adds what it means git to see (With).
//
// A command that fails is an *Error carrying git's exit status and its words, so callers
// branch on ExitCode, never on git's text.
package gitcmd

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"slices"
	"strings"
)

// Git runs git commands in one folder with one environment.
type Git struct {
	Path string   // the git binary; "" is "git", found on PATH
	Dir  string   // the folder git runs in
	Env  []string // git's environment, already cleaned (see CleanEnv); nil is CleanEnv(os.Environ())
}

// New returns a Git for dir with env cleaned (nil env: this process's).
func New(path, dir string, env []string) Git {
	if env == nil {
		env = os.Environ()
	}
	return Git{Path: path, Dir: dir, Env: CleanEnv(env)}
}

// With returns g with the variables kv ("NAME=value") set on top of its environment,
// replacing any of the same name.
func (g Git) With(kv ...string) Git {
	env := g.env()
	out := make([]string, 0, len(env)+len(kv))
	for _, v := range env {
		name, _, _ := strings.Cut(v, "=")
		if !slices.ContainsFunc(kv, func(s string) bool { return strings.HasPrefix(s, name+"=") }) {
			out = append(out, v)
		}
	}
	g.Env = append(out, kv...)
	return g
}

// In returns g running in dir.
func (g Git) In(dir string) Git {
	g.Dir = dir
	return g
}

func (g Git) path() string {
	if g.Path == "" {
		return "git"
	}
	return g.Path
}

func (g Git) env() []string {
	if g.Env == nil {
		return CleanEnv(os.Environ())
	}
	return g.Env
}

// Error is a git command that exited with a non-zero status.
type Error struct {
	Args   []string // the command's arguments, without "git"
	Code   int      // its exit status
	Stderr string   // what it printed on stderr
}

func (e *Error) Error() string {
	msg := strings.TrimSpace(e.Stderr)
	if msg == "" {
		msg = fmt.Sprintf("exit status %d", e.Code)
	}
	return fmt.Sprintf("git %s: %s", strings.Join(e.Args, " "), msg)
}

// ExitCode returns the exit status of a git command that failed, or -1 when err is not
// such a failure (git could not be started, the context ended).
func ExitCode(err error) int {
	var ge *Error
	if errors.As(err, &ge) {
		return ge.Code
	}
	return -1
}

// Output runs a local (no network) git command and returns its standard output, trimmed
// of surrounding white space. It returns when git exits or ctx is done.
func (g Git) Output(ctx context.Context, args ...string) (string, error) {
	var out bytes.Buffer
	if err := g.Run(ctx, nil, &out, args...); err != nil {
		return "", err
	}
	return strings.TrimSpace(out.String()), nil
}

// Run runs a git command with stdin (nil: none) and its standard output written to
// stdout. When stdout fails a write (a writer that caps what it takes), git is ended and
// Run returns that write's error. It returns when git exits or ctx is done.
func (g Git) Run(ctx context.Context, stdin io.Reader, stdout io.Writer, args ...string) error {
	cmd := exec.CommandContext(ctx, g.path(), args...)
	cmd.Dir = g.Dir
	cmd.Env = g.env()
	cmd.Stdin = stdin
	var stderr bytes.Buffer
	cmd.Stderr = &capped{w: &stderr, n: 64 << 10}
	w := &stopWriter{w: stdout}
	cmd.Stdout = w
	err := cmd.Run()
	if w.err != nil {
		return w.err
	}
	if err != nil {
		var ee *exec.ExitError
		if errors.As(err, &ee) && ctx.Err() == nil {
			return &Error{Args: args, Code: ee.ExitCode(), Stderr: stderr.String()}
		}
		if ctx.Err() != nil {
			return fmt.Errorf("running git %s: %w", strings.Join(args, " "), ctx.Err())
		}
		return fmt.Errorf("running git %s: %w", strings.Join(args, " "), err)
	}
	return nil
}

// stopWriter remembers the first failed write, after which the copy to it stops and git
// gets a broken pipe.
type stopWriter struct {
	w   io.Writer
	err error
}

func (s *stopWriter) Write(p []byte) (int, error) {
	if s.err != nil {
		return 0, s.err
	}
	if s.w == nil {
		return len(p), nil
	}
	n, err := s.w.Write(p)
	s.err = err
	return n, err
}

// capped keeps the first n bytes written and drops the rest.
type capped struct {
	w io.Writer
	n int
}

func (c *capped) Write(p []byte) (int, error) {
	if c.n > 0 {
		k := min(len(p), c.n)
		c.w.Write(p[:k])
		c.n -= k
	}
	return len(p), nil
}

// droppedEnv are the variables CleanEnv removes: they would trace what git sends, point
// it at other repositories, configure it from outside, prompt, or hand out forge tokens.
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

// CleanEnv returns env without the variables that would redirect, trace or reconfigure
// git or hand it a forge token, plus the settings that keep git from prompting anyone.
func CleanEnv(env []string) []string {
	out := make([]string, 0, len(env)+3)
next:
	for _, kv := range env {
		name, _, _ := strings.Cut(kv, "=")
		if slices.Contains(droppedEnv, name) {
			continue
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

// Short is a commit's hash as segwi shows it to a person: its first 12 characters.
func Short(hash string) string { return hash[:min(len(hash), 12)] }
