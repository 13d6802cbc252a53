// Package gitcmd is the one seam through which segwi runs git: a run's base, its changes
// and their diff (runs/changes), the commit of a run's changes, the push and its checks
// (runs/push), and the canary's look at its checkout (canary). No other package starts
// git or sets git's environment.
//
// # What segwi's git reads
//
// The agent can write the checkout's .git/config and every file it includes, a nested
// repository's or a submodule's config, the person's ~/.gitconfig and
// ~/.config/git/config, and the .gitattributes that choose filters, textconv and diff
// programs; a program it left behind can keep rewriting them. git runs the programs such
// configuration names (core.fsmonitor when it reads an index, filter.NAME.clean when it
// hashes a file, textconv and diff.external when it diffs, hooks, pagers, editors,
// credential helpers, url.NAME.insteadOf to ext::), and segwi runs git on its own, as the
// person, at times they do not choose. So segwi's git never reads any of it:
//
//   - git never runs with a checkout as its repository. What segwi needs of a checkout
//     (where its work tree and git folder are, HEAD, a branch's commit, the values of a few
//     plain settings, the person's name and email, the index's entries) segwi reads itself
//     (Open, ParseIndex), as data: regular files only, never a FIFO or a device, each
//     capped in size; configuration files are parsed by git as text (git config --file -),
//     never loaded as its own.
//   - Everything that hashes, diffs, commits or pushes runs in a repository segwi makes for
//     that one task (NewRepo), in a private folder segwi holds open: its own git folder with
//     no configuration file (one holding only the object format for a sha256 checkout),
//     the checkout's objects borrowed through GIT_ALTERNATE_OBJECT_DIRECTORIES, copies of
//     the few files git reads from the checkout's git folder (index, info/exclude,
//     info/attributes, shallow).
//   - Every command's configuration is its environment (Seal): GIT_CONFIG_GLOBAL=/dev/null
//     and GIT_CONFIG_NOSYSTEM (no ~/.gitconfig, no ~/.config/git/config, no
//     /etc/gitconfig), and GIT_CONFIG_COUNT/KEY/VALUE settings that switch off fsmonitor,
//     hooks, pagers, editors, credential helpers, signing and submodule recursion; only
//     https is allowed (GIT_ALLOW_PROTOCOL). Settings that set no program and that the
//     checkout's git would have used (line endings, file modes, ignore files) are copied
//     as values.
//   - Nested repositories and submodules are opaque gitlinks: their commit is read from
//     their HEAD as data; no git runs inside them (git add would run git status there,
//     and that git would read their config).
//   - Every command has a deadline (Git.Timeout, DefaultTimeout when zero), and on it git
//     and every process it started are killed: a FIFO where git expects a file ends in an
//     error, never a hang.
//
// A command that fails is an *Error carrying git's exit status and its words, so callers
// branch on ExitCode, never on git's text.
package gitcmd

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/segwi/segwi/internal/lib/procexit"
)

// DefaultTimeout is the deadline of a git command whose Git sets none.
const DefaultTimeout = 2 * time.Minute

// Git runs git commands in one folder with one environment. Its zero value runs git from
// PATH (see program.go) in this process's folder with this process's environment, sealed.
type Git struct {
	// Path is the git binary; "" is the first git on PATH that only root can change (see
	// program.go).
	Path string
	// Dir is the folder git runs in.
	Dir string
	// Timeout bounds each command; zero is DefaultTimeout.
	Timeout time.Duration

	person  []string // the environment as given, before sealing: HOME, identity, proxies
	env     []string // git's environment: person's, cleaned, plus the sealed variables and With's
	config  []string // configuration set through the environment besides the sealed settings
	dirFile *os.File // when set, the folder git runs in, held open (InFolder)
	files   []*os.File
	// anyVersion marks a command that an older git than MinVersion runs as harmlessly as
	// a newer one (the parse of a configuration file's text): when git's version is not
	// known yet, such a command tells it (Run), rather than git --version before it.
	anyVersion bool
	traced     bool // the command's trace tells git's version: no check before it
}

// New returns a Git for dir whose environment is env (nil: this process's), cleaned and
// sealed (see Seal).
func New(path, dir string, env []string) Git {
	if env == nil {
		env = os.Environ()
	}
	return Git{Path: path, Dir: dir, person: slices.Clone(env), env: Seal(env)}
}

// With returns g with the variables kv ("NAME=value") set on top of its environment,
// replacing any of the same name. The sealed configuration (GIT_CONFIG_*) is set with
// Config, not here.
func (g Git) With(kv ...string) Git {
	env := g.environ()
	out := make([]string, 0, len(env)+len(kv))
	for _, v := range env {
		name, _, _ := strings.Cut(v, "=")
		if !slices.ContainsFunc(kv, func(s string) bool { return strings.HasPrefix(s, name+"=") }) {
			out = append(out, v)
		}
	}
	g.env = append(out, kv...)
	return g
}

// Config returns g with the settings kv ("section.key=value") added to the configuration
// its environment gives git, after the sealed settings: a later one wins over an earlier
// one of the same key.
func (g Git) Config(kv ...string) Git {
	g.config = append(slices.Clone(g.config), kv...)
	return g
}

// In returns g running in dir.
func (g Git) In(dir string) Git {
	g.Dir = dir
	g.dirFile = nil
	return g
}

// Within returns g with each command's deadline d.
func (g Git) Within(d time.Duration) Git {
	g.Timeout = d
	return g
}

// Person returns the value of the variable name in the environment g was made with, before
// it was sealed: what the person set (HOME, XDG_CONFIG_HOME, GIT_AUTHOR_NAME, ...).
func (g Git) Person(name string) string {
	env := g.person
	if env == nil && g.env == nil {
		env = os.Environ()
	}
	for i := len(env) - 1; i >= 0; i-- {
		if k, v, ok := strings.Cut(env[i], "="); ok && k == name {
			return v
		}
	}
	return ""
}

func (g Git) environ() []string {
	if g.env == nil {
		return Seal(os.Environ())
	}
	return g.env
}

// Env returns the environment g gives git, the configuration variables included.
func (g Git) Env() []string {
	env := slices.Clone(g.environ())
	settings := append(slices.Clone(sealedConfig), g.config...)
	env = append(env, fmt.Sprintf("GIT_CONFIG_COUNT=%d", len(settings)))
	for i, kv := range settings {
		k, v, _ := strings.Cut(kv, "=")
		env = append(env, fmt.Sprintf("GIT_CONFIG_KEY_%d=%s", i, k), fmt.Sprintf("GIT_CONFIG_VALUE_%d=%s", i, v))
	}
	return env
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
// such a failure (git could not be started, the context or the deadline ended).
func ExitCode(err error) int {
	var ge *Error
	if errors.As(err, &ge) {
		return ge.Code
	}
	return -1
}

// ErrDeadline is wrapped by the error of a command that did not finish within its
// deadline (Git.Timeout).
var ErrDeadline = errors.New("git did not finish in time")

// Output runs a local (no network) git command and returns its standard output, trimmed
// of surrounding white space. It returns when git exits, its deadline passes or ctx is
// done.
func (g Git) Output(ctx context.Context, args ...string) (string, error) {
	var out bytes.Buffer
	if err := g.Run(ctx, nil, &out, args...); err != nil {
		return "", err
	}
	return strings.TrimSpace(out.String()), nil
}

// Run runs a git command with stdin (nil: none) and its standard output written to
// stdout (nil: dropped). When stdout fails a write (a writer that caps what it takes), git
// is ended and Run returns that write's error. It returns when git exits, its deadline
// passes (git and what it started are killed then) or ctx is done.
func (g Git) Run(ctx context.Context, stdin io.Reader, stdout io.Writer, args ...string) error {
	git, err := g.Program()
	if err != nil {
		return err
	}
	var stderr bytes.Buffer
	w := &stopWriter{w: stdout}
	run := g
	if g.anyVersion && !versionKnown(git) {
		run = g.With("GIT_TRACE2_EVENT=2", "GIT_TRACE2_EVENT_BRIEF=1")
		run.traced = true
	}
	err = run.run(ctx, git, stdin, w, &capped{w: &stderr, n: 64 << 10}, args)
	if run.traced {
		if verr := noteTracedVersion(git, &stderr); verr != nil {
			return verr
		}
	}
	if w.err != nil {
		return w.err
	}
	if err != nil {
		var ee *exec.ExitError
		if errors.As(err, &ee) && ee.ExitCode() >= 0 {
			return &Error{Args: args, Code: ee.ExitCode(), Stderr: stderr.String()}
		}
		return err
	}
	return nil
}

// Combined runs a git command whose standard output and error both go to out, for a
// command whose words a person reads (git push). Its error is Run's, without git's words,
// which are in out.
func (g Git) Combined(ctx context.Context, out io.Writer, args ...string) error {
	git, err := g.Program()
	if err != nil {
		return err
	}
	err = g.run(ctx, git, nil, out, out, args)
	var ee *exec.ExitError
	if errors.As(err, &ee) && ee.ExitCode() >= 0 {
		return &Error{Args: args, Code: ee.ExitCode()}
	}
	return err
}

// run starts git (g's Program) in its own process group, and kills the group when ctx is
// done or the deadline passes.
func (g Git) run(ctx context.Context, git string, stdin io.Reader, stdout, stderr io.Writer, args []string) error {
	if !g.traced {
		if err := checkVersion(git); err != nil {
			return err
		}
	}
	timeout := g.Timeout
	if timeout <= 0 {
		timeout = DefaultTimeout
	}
	ctx, cancel := context.WithTimeoutCause(ctx, timeout, ErrDeadline)
	defer cancel()
	cmd := exec.CommandContext(ctx, git, args...)
	cmd.Dir = g.Dir
	if g.dirFile != nil {
		cmd.Dir = heldDir(g.dirFile)
	}
	cmd.Env = g.Env()
	cmd.Stdin = stdin
	cmd.Stdout = stdout
	cmd.Stderr = stderr
	cmd.ExtraFiles = g.files
	ownGroup(cmd)
	// What git started keeps its output open after a kill: stop waiting for it soon.
	cmd.WaitDelay = 2 * time.Second
	err := cmd.Start()
	if err == nil {
		procexit.Await(cmd.Process) // not in a blocking wait: see the package
		err = cmd.Wait()
	}
	if err != nil && ctx.Err() != nil {
		if errors.Is(context.Cause(ctx), ErrDeadline) {
			return fmt.Errorf("git %s: %w: it was ended after %s (is a file it reads a FIFO or a device?)", strings.Join(args, " "), ErrDeadline, timeout)
		}
		return fmt.Errorf("running git %s: %w", strings.Join(args, " "), context.Cause(ctx))
	}
	if err != nil {
		var ee *exec.ExitError
		if errors.As(err, &ee) && ee.ExitCode() >= 0 {
			return err
		}
		return fmt.Errorf("running git %s: %w", strings.Join(args, " "), err)
	}
	return nil
}

// MinVersion is the oldest git segwi runs: the first to read its whole configuration from
// the environment (GIT_CONFIG_COUNT, GIT_CONFIG_GLOBAL).
const MinVersion = "2.32"

var versions sync.Map // git path -> error (nil when new enough)

// checkVersion refuses a git older than MinVersion, which would ignore the sealed
// configuration. It asks each binary once.
func checkVersion(path string) error {
	if v, ok := versions.Load(path); ok {
		err, _ := v.(error)
		return err
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, path, "--version")
	cmd.Env = []string{"PATH=" + rootPath(os.Getenv("PATH")), "LC_ALL=C"}
	out, err := cmd.Output()
	if err != nil {
		// Not cached: git may be installed later.
		return fmt.Errorf("running %s --version: %w; install git %s or later", path, err, MinVersion)
	}
	err = versionError(path, string(out))
	versions.Store(path, err)
	return err
}

// versionKnown says whether the git at path was asked its version already.
func versionKnown(path string) bool {
	_, ok := versions.Load(path)
	return ok
}

// noteTracedVersion reads the version of the git at path from the trace2 events a command
// run with GIT_TRACE2_EVENT=2 wrote among its words (its "version" event, git 2.22 and
// later), takes those events out of stderr, and keeps the verdict as checkVersion does.
// A git that wrote none is asked (checkVersion). It returns the verdict: nil for a git new
// enough.
func noteTracedVersion(path string, stderr *bytes.Buffer) error {
	var words []byte
	exe := ""
	for line := range bytes.Lines(stderr.Bytes()) {
		if !bytes.HasPrefix(line, []byte(`{"event":`)) {
			words = append(words, line...)
			continue
		}
		var e struct{ Event, Exe string }
		if exe == "" && json.Unmarshal(line, &e) == nil && e.Event == "version" && e.Exe != "" {
			exe = e.Exe
		}
	}
	stderr.Reset()
	stderr.Write(words)
	if exe == "" {
		return checkVersion(path)
	}
	err := versionError(path, "git version "+exe)
	versions.Store(path, err)
	return err
}

// versionError says why the git that printed out (git --version) is too old, or nil.
func versionError(path, out string) error {
	f := strings.Fields(out)
	if len(f) < 3 {
		return fmt.Errorf("%s --version printed %q, which is not git's version", path, out)
	}
	var major, minor int
	if _, err := fmt.Sscanf(f[2], "%d.%d", &major, &minor); err != nil {
		return fmt.Errorf("%s --version printed %q, which is not git's version", path, out)
	}
	if major < 2 || major == 2 && minor < 32 {
		err := fmt.Errorf("%s is git %s; segwi needs git %s or later, which takes its settings from the environment: install a newer git", path, f[2], MinVersion)
		if passed, ok := passedOver.Load(path); ok {
			err = fmt.Errorf("%w where only root can change it (segwi passed over %s)", err, passed)
		}
		return err
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

// Short is a commit's hash as segwi shows it to a person: its first 12 characters.
func Short(hash string) string { return hash[:min(len(hash), 12)] }
