package gitcmd

import (
	"context"
	"errors"
	"os/exec"
	"slices"
	"strings"
	"testing"
)

func TestCleanEnvDropsWhatCouldLeakOrRedirectTheToken(t *testing.T) {
	in := []string{
		"PATH=/usr/bin", "HOME=/home/p", "HTTPS_PROXY=http://proxy:3128", "GIT_CONFIG_NOSYSTEM=1",
		"GIT_TRACE_CURL=/tmp/trace", "GIT_TRACE=1", "GIT_CURL_VERBOSE=1", "GIT_SSL_NO_VERIFY=1",
		"GIT_ASKPASS=/usr/bin/ksshaskpass", "SSH_ASKPASS=/x", "GIT_CONFIG_PARAMETERS='a.b'=c",
		"GIT_CONFIG_COUNT=1", "GIT_CONFIG_KEY_0=credential.helper", "GIT_CONFIG_VALUE_0=store",
		"GIT_DIR=/elsewhere", "GIT_EXEC_PATH=/evil", "GH_TOKEN=a", "GITHUB_TOKEN=b",
		"GIT_INDEX_FILE=/elsewhere/index", "GIT_WORK_TREE=/elsewhere",
	}
	got := CleanEnv(in)
	want := []string{
		"PATH=/usr/bin", "HOME=/home/p", "HTTPS_PROXY=http://proxy:3128", "GIT_CONFIG_NOSYSTEM=1",
		"GIT_TERMINAL_PROMPT=0", "GIT_ASKPASS=", "GCM_INTERACTIVE=never",
	}
	if !slices.Equal(got, want) {
		t.Errorf("CleanEnv =\n%q\nwant\n%q", got, want)
	}
}

func TestWithSetsVariablesOverTheCleanedOnes(t *testing.T) {
	g := New("", "/", []string{"PATH=/usr/bin", "GIT_DIR=/planted"}).With("GIT_DIR=/mine", "LC_ALL=C")
	want := []string{"PATH=/usr/bin", "GIT_TERMINAL_PROMPT=0", "GIT_ASKPASS=", "GCM_INTERACTIVE=never", "GIT_DIR=/mine", "LC_ALL=C"}
	if !slices.Equal(g.Env, want) {
		t.Errorf("env =\n%q\nwant\n%q", g.Env, want)
	}
}

func TestAFailedCommandSaysItsExitStatusAndWords(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed")
	}
	g := New("", t.TempDir(), nil)
	_, err := g.Output(context.Background(), "rev-parse", "--git-dir")
	var ge *Error
	if !errors.As(err, &ge) || ExitCode(err) != 128 || !strings.Contains(err.Error(), "not a git repository") {
		t.Errorf("rev-parse outside a repository: got %v (exit %d), want exit 128 saying it is not a repository", err, ExitCode(err))
	}
	if got := ExitCode(errors.New("other")); got != -1 {
		t.Errorf("ExitCode of another error = %d, want -1", got)
	}
}

// A writer that stops taking output ends git, and Run says why with the writer's error.
func TestRunStopsWhenTheOutputIsFull(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed")
	}
	full := errors.New("full")
	w := &limit{n: 10, err: full}
	err := New("", t.TempDir(), nil).Run(context.Background(), nil, w, "help", "-a")
	if !errors.Is(err, full) {
		t.Errorf("Run = %v, want the writer's error", err)
	}
}

type limit struct {
	n   int
	err error
}

func (l *limit) Write(p []byte) (int, error) {
	if len(p) > l.n {
		return l.n, l.err
	}
	l.n -= len(p)
	return len(p), nil
}
