package gitcmd

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// needGit skips a test when git is missing.
func needGit(t testing.TB) {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed")
	}
}

// hostGit runs the test's own git (not segwi's seam) in dir, as a person would at a shell,
// with no configuration but the repository's, and returns its trimmed output.
func hostGit(t testing.TB, dir string, args ...string) string {
	t.Helper()
	out, err := execGit(dir, args...).CombinedOutput()
	if err != nil {
		t.Fatalf("git %s in %s: %v\n%s", strings.Join(args, " "), dir, err, out)
	}
	return strings.TrimSpace(string(out))
}

// execGit is the command hostGit runs.
func execGit(dir string, args ...string) *exec.Cmd {
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GIT_CONFIG_GLOBAL="+os.DevNull, "GIT_CONFIG_NOSYSTEM=1",
		"GIT_AUTHOR_NAME=T", "GIT_AUTHOR_EMAIL=t@example.invalid", "GIT_COMMITTER_NAME=T", "GIT_COMMITTER_EMAIL=t@example.invalid")
	return cmd
}

// newCheckout makes a checkout with one commit on main, and returns it with a sealed Git
// whose person has a HOME of the test's own.
func newCheckout(t *testing.T) (string, Git) {
	t.Helper()
	needGit(t)
	dir := t.TempDir()
	hostGit(t, dir, "init", "-q", "-b", "main")
	if err := os.WriteFile(filepath.Join(dir, "a.txt"), []byte("a\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	hostGit(t, dir, "add", "a.txt")
	hostGit(t, dir, "commit", "-qm", "first")
	home := t.TempDir()
	return dir, New("", "", []string{"PATH=" + os.Getenv("PATH"), "HOME=" + home, "TMPDIR=" + t.TempDir()})
}

func TestCleanEnvKeepsOnlyWhatCannotRedirectGit(t *testing.T) {
	in := []string{
		"PATH=/usr/bin", "HOME=/home/p", "HTTPS_PROXY=http://proxy:3128", "GIT_SSL_CAINFO=/etc/ca.pem",
		"GIT_TRACE_CURL=/tmp/trace", "GIT_TRACE2_EVENT=/tmp/t", "GIT_CURL_VERBOSE=1", "GIT_SSL_NO_VERIFY=1",
		"GIT_ASKPASS=/usr/bin/ksshaskpass", "SSH_ASKPASS=/x", "GIT_CONFIG_PARAMETERS='a.b'=c",
		"GIT_CONFIG_COUNT=1", "GIT_CONFIG_KEY_0=credential.helper", "GIT_CONFIG_VALUE_0=store",
		"GIT_DIR=/elsewhere", "GIT_EXEC_PATH=/evil", "GH_TOKEN=a", "GITHUB_TOKEN=b", "GIT_EXTERNAL_DIFF=/evil",
		"GIT_SSH_COMMAND=evil", "GIT_CONFIG_GLOBAL=/evil", "GIT_PAGER=evil", "EDITOR=evil", "XDG_CONFIG_HOME=/x",
	}
	want := []string{"PATH=/usr/bin", "HTTPS_PROXY=http://proxy:3128", "GIT_SSL_CAINFO=/etc/ca.pem"}
	if got := CleanEnv(in); !slices.Equal(got, want) {
		t.Errorf("CleanEnv =\n%q\nwant\n%q", got, want)
	}
}

func TestEveryCommandGetsTheSealedConfiguration(t *testing.T) {
	g := New("", "/", []string{"PATH=/usr/bin", "GIT_DIR=/planted"}).With("GIT_DIR=/mine").Config("core.autocrlf=true")
	env := g.Env()
	for _, want := range []string{"GIT_DIR=/mine", "GIT_CONFIG_GLOBAL=/dev/null", "GIT_CONFIG_NOSYSTEM=1", "GIT_ALLOW_PROTOCOL=https", "HOME=/dev/null"} {
		if !slices.Contains(env, want) {
			t.Errorf("env lacks %s:\n%q", want, env)
		}
	}
	if slices.Contains(env, "GIT_DIR=/planted") {
		t.Error("the planted GIT_DIR is still there")
	}
	// The settings, in order: the sealed ones, then the caller's.
	n := len(sealedConfig)
	if !slices.Contains(env, "GIT_CONFIG_KEY_0=core.fsmonitor") || !slices.Contains(env, "GIT_CONFIG_VALUE_0=false") ||
		!slices.Contains(env, "GIT_CONFIG_KEY_"+strconv.Itoa(n)+"=core.autocrlf") || !slices.Contains(env, "GIT_CONFIG_COUNT="+strconv.Itoa(n+1)) {
		t.Errorf("the configuration in the environment is not the sealed one and then the caller's:\n%q", env)
	}
}

// git itself takes the sealed configuration: what `git config --list` shows in a segwi
// repository is the environment's settings, nothing from a file.
func TestGitReadsTheSealedConfiguration(t *testing.T) {
	dir, g := newCheckout(t)
	// Planted where git would otherwise read them.
	home := g.Person("HOME")
	os.WriteFile(filepath.Join(home, ".gitconfig"), []byte("[core]\n\tfsmonitor = /evil\n[trace2]\n\teventTarget = /tmp/evil\n"), 0o644)
	c, err := g.Open(context.Background(), dir)
	if err != nil {
		t.Fatal(err)
	}
	r, err := NewRepo(context.Background(), c, RepoOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	out, err := r.Git.Output(context.Background(), "config", "--list", "--show-origin")
	if err != nil {
		t.Fatal(err)
	}
	for _, l := range strings.Split(out, "\n") {
		if !strings.HasPrefix(l, "command line:") {
			t.Errorf("git read a setting from a file: %s", l)
		}
	}
	if !strings.Contains(out, "core.fsmonitor=false") || !strings.Contains(out, "core.hookspath=/dev/null") {
		t.Errorf("git lacks the sealed settings:\n%s", out)
	}
}

func TestAFailedCommandSaysItsExitStatusAndWords(t *testing.T) {
	needGit(t)
	_, err := New("", t.TempDir(), nil).With("GIT_DIR=/nonexistent").Output(context.Background(), "rev-parse", "--git-dir")
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
	needGit(t)
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

// A FIFO where git expects a file would hold git forever: every command has a deadline,
// after which git and what it started are killed.
func TestACommandBlockedOnAFIFOEndsAtItsDeadline(t *testing.T) {
	needGit(t)
	dir := t.TempDir()
	fifo := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Skipf("no FIFOs here: %v", err)
	}
	start := time.Now()
	err := New("", dir, nil).Within(500*time.Millisecond).Run(context.Background(), nil, nil, "hash-object", fifo)
	if !errors.Is(err, ErrDeadline) {
		t.Fatalf("hash-object of a FIFO = %v, want the deadline's error", err)
	}
	if took := time.Since(start); took > 10*time.Second {
		t.Errorf("it took %s to end", took)
	}
	if !strings.Contains(err.Error(), "FIFO") {
		t.Errorf("the error %q does not say what may have held git", err)
	}
}

func TestReadRegularRefusesAFIFOWithoutWaiting(t *testing.T) {
	fifo := filepath.Join(t.TempDir(), "fifo")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Skipf("no FIFOs here: %v", err)
	}
	done := make(chan error, 1)
	go func() { _, err := ReadRegular(fifo, 100); done <- err }()
	select {
	case err := <-done:
		if !errors.Is(err, ErrNotRegular) {
			t.Errorf("ReadRegular(FIFO) = %v, want ErrNotRegular", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("ReadRegular waited on the FIFO")
	}
	if _, err := ReadRegular("/dev/zero", 100); !errors.Is(err, ErrNotRegular) {
		t.Errorf("ReadRegular(/dev/zero) = %v, want ErrNotRegular", err)
	}
}

func TestAGitTooOldForTheSealIsRefused(t *testing.T) {
	for out, ok := range map[string]bool{
		"git version 2.39.5\n": true, "git version 2.32.0": true, "git version 3.0.0": true,
		"git version 2.31.1": false, "git version 1.9": false, "hello": false,
	} {
		if err := versionError("git", out); (err == nil) != ok {
			t.Errorf("versionError(%q) = %v, want ok %v", out, err, ok)
		}
	}
}

// fakeGit writes a stand-in for git that logs its first argument to the file it returns,
// answers --version with version, writes the trace2 events line trace to the descriptor
// GIT_TRACE2_EVENT names when it names 2, and lists a configuration's text as git config
// --list -z would ("a.b" = "c").
func fakeGit(t *testing.T, version, trace string) (Git, string) {
	t.Helper()
	dir := t.TempDir()
	log := filepath.Join(dir, "commands")
	script := `#!/bin/sh
echo "$1" >> '` + log + `'
if [ "$1" = --version ]; then echo 'git version ` + version + `'; exit 0; fi
if [ "$GIT_TRACE2_EVENT" = 2 ] && [ -n '` + trace + `' ]; then echo '` + trace + `' >&2; fi
cat >/dev/null
printf 'a.b\nc\0'
`
	path := filepath.Join(dir, "git")
	if err := os.WriteFile(path, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	g := New(path, "", []string{"PATH=" + os.Getenv("PATH")})
	return g, log
}

// Each segwi run used to start with git --version (issue 22): the first parse of a
// configuration's text, which an old git runs as harmlessly as a new one, tells git's
// version by its trace instead, and a git too old is refused all the same.
func TestTheFirstConfigurationParseTellsGitsVersion(t *testing.T) {
	ctx := context.Background()
	t.Run("the real git", func(t *testing.T) {
		dir, g := newCheckout(t)
		g, log := countingGit(t, g)
		if _, err := g.Open(ctx, dir); err != nil {
			t.Fatal(err)
		}
		if _, err := g.In(dir).Output(ctx, "rev-parse", "HEAD"); err != nil {
			t.Fatal(err)
		}
		cmds := commands(t, log)
		if len(cmds) == 0 || !strings.HasPrefix(cmds[0], "config") || slices.Contains(cmds, "--version") {
			t.Errorf("git commands %q: want the configuration's parse first and no git --version", cmds)
		}
	})
	t.Run("a git too old, by its trace", func(t *testing.T) {
		g, log := fakeGit(t, "2.39.5", `{"event":"version","evt":"3","exe":"2.31.1"}`)
		_, err := g.parseConfig(ctx, []byte("[a]\n\tb = c\n"))
		if err == nil || !strings.Contains(err.Error(), "2.31.1") || !strings.Contains(err.Error(), MinVersion) {
			t.Errorf("parsing with a git whose trace says 2.31.1: %v, want it refused for its version", err)
		}
		if _, err := g.Output(ctx, "status"); err == nil || !strings.Contains(err.Error(), "2.31.1") {
			t.Errorf("the next command: %v, want it refused for its version", err)
		}
		if cmds := commands(t, log); !slices.Equal(cmds, []string{"config"}) {
			t.Errorf("git commands %q, want only the parse", cmds)
		}
	})
	t.Run("a git with no trace is asked its version", func(t *testing.T) {
		g, log := fakeGit(t, "2.20.0", "")
		if _, err := g.parseConfig(ctx, []byte("[a]\n\tb = c\n")); err == nil || !strings.Contains(err.Error(), "2.20.0") {
			t.Errorf("parsing with git 2.20.0, which writes no trace2 events: %v, want it refused for its version", err)
		}
		if cmds := commands(t, log); !slices.Equal(cmds, []string{"config", "--version"}) {
			t.Errorf("git commands %q, want the parse, then git --version", cmds)
		}
	})
	t.Run("a git new enough, by its trace", func(t *testing.T) {
		g, log := fakeGit(t, "2.20.0", `{"event":"version","evt":"3","exe":"2.45.1"}`)
		entries, err := g.parseConfig(ctx, []byte("[a]\n\tb = c\n"))
		if err != nil || len(entries) != 1 || entries[0].key != "a.b" || entries[0].value != "c" {
			t.Errorf("parsing with git 2.45.1: %v, %v; want a.b = c", entries, err)
		}
		if cmds := commands(t, log); !slices.Equal(cmds, []string{"config"}) {
			t.Errorf("git commands %q, want the parse alone", cmds)
		}
	})
	t.Run("git's words carry no trace", func(t *testing.T) {
		_, g := newCheckout(t)
		g, _ = countingGit(t, g)
		_, err := g.parseConfig(ctx, []byte("[a\n"))
		var ge *Error
		if !errors.As(err, &ge) || strings.Contains(ge.Stderr, `"event"`) || !strings.Contains(ge.Stderr, "bad config") {
			t.Errorf("parsing a damaged text: %v, want git's words without its trace", err)
		}
	})
}
