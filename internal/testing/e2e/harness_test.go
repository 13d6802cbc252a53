// Package e2e holds segwi's end-to-end tests: the segwi binary, built once, runs the real
// pinned Claude Code against the fake Anthropic server (internal/testing/fakeapi), in a
// sealed environment (internal/testing/claudetest), and the tests check what a person would
// see: what segwi printed, its exit status, the run's record and the checkout. The flood
// test (flood_test.go) runs Claude Code's stand-in instead (runs/claude/testdata/fakeclaude), which prints a known
// volume as fast as the pty takes it, and measures segwi's own CPU.
//
// The tests run two at a time (twoAtATime: each Claude Code costs about two CPU-seconds,
// and each test has a world of its own: fake model, HOME, XDG folders, state folder,
// checkout, keyring and ports), but for the flood test, which measures segwi's CPU and runs
// alone (alone), and those that wait on a person answering late, which spend wall time and
// almost no CPU: they run beside the others (t.Parallel), from the start. A scripted person answers
// approvals on a pty that is segwi's controlling terminal, as someone typing at the
// terminal would.
package e2e

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/creack/pty"
	"golang.org/x/sync/semaphore"

	"github.com/segwi/segwi/internal/testing/await"
	"github.com/segwi/segwi/internal/testing/claudetest"
	"github.com/segwi/segwi/internal/testing/fakeapi"
	"github.com/segwi/segwi/internal/testing/parallel"
	"github.com/segwi/segwi/internal/testing/syncbuf"
	"github.com/segwi/segwi/runs"
)

// segwiBin is the segwi binary TestMain builds.
var segwiBin string

func TestMain(m *testing.M) {
	flag.Parse()
	// The two late-answer tests wait beside the tests that run (twoAtATime). A test that
	// waits for its turn holds one of go test's places while it sleeps on the lock, so
	// every test gets one: with three, the late ones queued behind the waiting ones and ran
	// last.
	parallel.AtLeast(64)
	dir, err := os.MkdirTemp("", "segwi-e2e-")
	if err != nil {
		fmt.Fprintln(os.Stderr, "e2e:", err)
		os.Exit(1)
	}
	segwiBin = filepath.Join(dir, "segwi")
	// As shipped: without cgo (scripts/run.sh, the package). The tests use no window,
	// so segwi-windows is not built.
	build := exec.Command("go", "build", "-o", segwiBin, "github.com/segwi/segwi")
	build.Env = append(os.Environ(), "CGO_ENABLED=0")
	build.Stdout, build.Stderr = os.Stderr, os.Stderr
	start := time.Now()
	if err := build.Run(); err != nil {
		fmt.Fprintf(os.Stderr, "e2e: building segwi (CGO_ENABLED=0 go build -o %s github.com/segwi/segwi) failed: %v\n", segwiBin, err)
		os.RemoveAll(dir)
		os.Exit(1)
	}
	if testing.Verbose() {
		fmt.Fprintf(os.Stderr, "e2e: built segwi in %s\n", time.Since(start).Round(time.Millisecond))
	}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// turns are the places of the tests that run now (see twoAtATime and alone), given out in
// the order they were asked for, so that the flood test, which needs both, is not passed
// over by the tests that need one.
var turns = semaphore.NewWeighted(2)

// twoAtATime makes the test parallel (t.Parallel) to the late-answer tests, which wait on
// the clock, and runs it beside at most one other of the package's tests: it holds one of
// the two turns until it ends. Two at once is safe because no two scenarios share anything
// a run writes or listens on (newScenario), and segwi ends only what runs recorded in its
// own state folder left, in the cgroup folder all of them share (runs.endCgroupsLeftBeside).
// On two cores, the second test works while the first waits on Claude Code or the clock.
// A test calls it first.
func twoAtATime(t *testing.T) {
	t.Helper()
	takeTurns(t, 1)
}

// alone is twoAtATime for a test that measures CPU time, which a test beside it would
// distort: it holds both turns, so the late-answer tests, which spend almost none, are
// all that runs beside it.
func alone(t *testing.T) {
	t.Helper()
	takeTurns(t, 2)
}

// takeTurns makes the test parallel and holds n turns until it ends.
func takeTurns(t *testing.T, n int64) {
	t.Helper()
	t.Parallel()
	if err := turns.Acquire(context.Background(), n); err != nil {
		t.Fatalf("waiting for a turn: %v", err)
	}
	t.Cleanup(func() { turns.Release(n) })
}

// scenario is one end-to-end test's world: the fake model, a sealed environment holding
// segwi's settings and state, and a checkout.
type scenario struct {
	t        *testing.T
	srv      *fakeapi.Server
	env      *claudetest.Environment
	checkout string
	claude   string
}

// config is what a scenario writes into segwi's settings file.
type config struct {
	claudePath      string // default: the pinned Claude Code
	approvalTimeout string // default 60s
	maxDuration     string // segwi.runs.maxDuration; default 5m
	trusted         []string
	apiURL          string // segwi.github.apiURL; default: not written
	remote          *remoteConfig
	runtimes        map[string]string // segwi.runtimes: each ACP runtime's name and program
}

// remoteConfig is segwi.remote: the approval page, served when the config has one.
type remoteConfig struct {
	port   int
	socket string // tailscaled's LocalAPI socket
}

func newScenario(t *testing.T, script fakeapi.Script) *scenario {
	t.Helper()
	claude := claudetest.Binary(t)
	srv := fakeapi.New(t, script)
	env := claudetest.Env(t, srv.URL)
	return &scenario{t: t, srv: srv, env: env, checkout: claudetest.Checkout(t), claude: claude}
}

// writeConfig writes segwi's settings where segwi looks by default:
// $XDG_CONFIG_HOME/segwi/config.yaml of the sealed environment.
func (s *scenario) writeConfig(c config) {
	s.t.Helper()
	if c.claudePath == "" {
		c.claudePath = s.claude
	}
	if c.approvalTimeout == "" {
		c.approvalTimeout = "60s"
	}
	var b strings.Builder
	fmt.Fprintf(&b, "segwi:\n  claude:\n    path: %q\n", c.claudePath)
	if c.maxDuration == "" {
		c.maxDuration = "5m"
	}
	fmt.Fprintf(&b, "  runs:\n    stopGrace: 2s\n    maxDuration: %s\n", c.maxDuration)
	fmt.Fprintf(&b, "  approvals:\n    timeout: %s\n", c.approvalTimeout)
	if len(c.trusted) > 0 {
		b.WriteString("    trusted:\n")
		for _, p := range c.trusted {
			fmt.Fprintf(&b, "      - %q\n", p)
		}
	}
	if c.apiURL != "" {
		fmt.Fprintf(&b, "  github:\n    apiURL: %q\n", c.apiURL)
	}
	if r := c.remote; r != nil {
		fmt.Fprintf(&b, "  remote:\n    enabled: true\n    port: %d\n    socket: %q\n", r.port, r.socket)
	}
	if len(c.runtimes) > 0 {
		b.WriteString("  runtimes:\n")
		for _, name := range slices.Sorted(maps.Keys(c.runtimes)) {
			fmt.Fprintf(&b, "    - name: %s\n      command: [%q]\n", name, c.runtimes[name])
		}
	}
	path := filepath.Join(s.env.Get("XDG_CONFIG_HOME"), "segwi", "config.yaml")
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		s.t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(b.String()), 0o600); err != nil {
		s.t.Fatal(err)
	}
}

// stateDir is segwi's state folder in the sealed environment.
func (s *scenario) stateDir() string {
	return filepath.Join(s.env.Get("XDG_STATE_HOME"), "segwi")
}

// proc is a segwi process a test started.
type proc struct {
	t      *testing.T
	cmd    *exec.Cmd
	stdout syncbuf.Buffer
	stderr syncbuf.Buffer
	term   *terminal // the controlling terminal, when started with one
	home   string    // the scenario's HOME
	done   chan struct{}
	code   int
	shown  bool // what segwi printed has been logged
}

// start runs segwi with args in the checkout, without a controlling terminal (its own
// session), as a background job or a CI runner would.
func (s *scenario) start(args ...string) *proc {
	s.t.Helper()
	p := s.command(args)
	p.cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	p.run(s.t)
	return p
}

// startOnTerminal runs segwi with a pty as its controlling terminal (and stdin), so that
// the test can answer its approval prompts as a person at the terminal would. Its stdout
// and stderr stay separate pipes.
func (s *scenario) startOnTerminal(args ...string) *proc {
	s.t.Helper()
	ptmx, tty, err := pty.Open()
	if err != nil {
		s.t.Fatalf("opening a pty for segwi's terminal: %v", err)
	}
	p := s.command(args)
	p.cmd.Stdin = tty
	p.cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true, Setctty: true, Ctty: 0}
	p.term = &terminal{ptmx: ptmx}
	go p.term.read()
	p.run(s.t)
	tty.Close()
	s.t.Cleanup(func() { ptmx.Close() })
	return p
}

func (s *scenario) command(args []string) *proc {
	cmd := exec.Command(segwiBin, args...)
	cmd.Dir = s.checkout
	cmd.Env = s.env.Vars()
	p := &proc{t: s.t, cmd: cmd, done: make(chan struct{}), home: s.env.Home}
	cmd.Stdout, cmd.Stderr = &p.stdout, &p.stderr
	return p
}

func (p *proc) run(t *testing.T) {
	t.Helper()
	t.Logf("segwi %s", strings.Join(p.cmd.Args[1:], " "))
	if err := p.cmd.Start(); err != nil {
		t.Fatalf("starting segwi: %v", err)
	}
	go func() {
		p.cmd.Wait()
		p.code = p.cmd.ProcessState.ExitCode()
		close(p.done)
	}()
	t.Cleanup(func() {
		if !p.exited() {
			p.cmd.Process.Kill()
			<-p.done
		}
		if t.Failed() && !p.shown {
			p.show()
		}
	})
}

// wait waits for segwi to exit, at most two minutes, and returns its exit status. It fails
// the test when processes started under the scenario's HOME are left.
func (p *proc) wait() int {
	p.t.Helper()
	code := p.exit()
	if left := processesOf(p.home); len(left) > 0 {
		p.t.Errorf("processes started under the test's HOME outlived segwi: %v", left)
	}
	return code
}

// exit is wait without the check for processes left: for a test that left one on purpose.
func (p *proc) exit() int {
	p.t.Helper()
	select {
	case <-p.done:
	case <-time.After(2 * time.Minute):
		p.cmd.Process.Kill()
		<-p.done
		p.show()
		p.t.Fatal("segwi did not exit within 2 minutes")
	}
	p.show()
	return p.code
}

// show logs what segwi printed, once it has exited: after it was waited for, or when the
// test failed while it ran (it is killed first then).
func (p *proc) show() {
	p.shown = true
	p.t.Logf("segwi exited %d; stdout:\n%s\nstderr:\n%s", p.code, p.stdout.String(), p.stderr.String())
	if p.term != nil {
		p.t.Logf("terminal:\n%s", p.term.String())
	}
}

// processesOf returns the processes (pid: command line) whose environment has HOME=home:
// what segwi, Claude Code and the agent's tools started in a scenario.
func processesOf(home string) []string { return processesWith("HOME="+home, "") }

// processesWith returns the live processes (pid: command line, zombies left out) whose
// environment holds the variable kv ("NAME=value") and whose raw command line (arguments
// NUL-separated) contains cmdline.
func processesWith(kv, cmdline string) []string {
	entries, _ := os.ReadDir("/proc")
	var found []string
	for _, e := range entries {
		pid := e.Name()
		if pid[0] < '0' || pid[0] > '9' {
			continue
		}
		env, err := os.ReadFile(filepath.Join("/proc", pid, "environ"))
		if err != nil || !strings.Contains("\x00"+string(env), "\x00"+kv+"\x00") {
			continue
		}
		if st, _ := os.ReadFile(filepath.Join("/proc", pid, "stat")); strings.Contains(string(st), ") Z ") {
			continue // a zombie is gone already
		}
		cmd, _ := os.ReadFile(filepath.Join("/proc", pid, "cmdline"))
		if strings.Contains(string(cmd), cmdline) {
			found = append(found, pid+": "+strings.ReplaceAll(string(cmd), "\x00", " "))
		}
	}
	return found
}

var runLine = regexp.MustCompile(`segwi: run (\S+) \(`)

// runID waits for the line where segwi names the run, and returns the run's id.
func (p *proc) runID() string {
	p.t.Helper()
	var id string
	p.waitWhileRunning(p.t, 30*time.Second, "segwi to name the run on stderr", func() bool {
		if m := runLine.FindStringSubmatch(p.stderr.String()); m != nil {
			id = m[1]
			return true
		}
		return false
	})
	return id
}

// terminal is the person's side of segwi's controlling terminal.
type terminal struct {
	ptmx *os.File
	buf  syncbuf.Buffer
}

func (tm *terminal) read() { io.Copy(&tm.buf, tm.ptmx) } // ends with EIO when segwi is gone

func (tm *terminal) String() string { return tm.buf.String() }

// typeLine types line and Enter.
func (tm *terminal) typeLine(t *testing.T, line string) {
	t.Helper()
	if _, err := tm.ptmx.Write([]byte(line + "\r")); err != nil {
		t.Fatalf("typing %q on segwi's terminal: %v", line, err)
	}
}

// waitCount waits until s has been shown n times on the terminal.
func (tm *terminal) waitCount(t *testing.T, p *proc, s string, n int, timeout time.Duration) {
	t.Helper()
	p.waitWhileRunning(t, timeout, fmt.Sprintf("%q to be shown %d times on segwi's terminal", s, n), func() bool {
		return strings.Count(tm.String(), s) >= n
	})
}

// claudeActs bounds a wait that takes in Claude Code's start, until it calls its first
// tool or asks its first approval. That is 2 to 5 s alone, but it took 25 s in CI while
// the other packages' tests ran (17 s to start, 8 more to its first tool), past the 30 s
// these waits once allowed. A bound, never a sleep: a green run waits no longer for it.
const claudeActs = 90 * time.Second

// waitWhileRunning waits with await.For until cond holds, and fails t at once when segwi
// exits first: nothing it waits for can come after that.
func (p *proc) waitWhileRunning(t *testing.T, within time.Duration, what string, cond func() bool) {
	t.Helper()
	await.For(t, within, what, func() bool {
		exited := p.exited() // before cond: what segwi printed before exiting counts
		if cond() {
			return true
		}
		if exited {
			t.Fatalf("segwi exited %d while waiting for %s", p.code, what)
		}
		return false
	})
}

// exited reports whether segwi has exited.
func (p *proc) exited() bool {
	select {
	case <-p.done:
		return true
	default:
		return false
	}
}

// record is what segwi recorded about a run.
type record struct {
	info   runs.Info
	events []runs.Event
}

// loadRecord reads the run's record through the runs package, as segwi runs would.
func (s *scenario) loadRecord(id string) record {
	s.t.Helper()
	info, err := runs.Load(s.stateDir(), id)
	if err != nil {
		s.t.Fatalf("loading run %s: %v", id, err)
	}
	var rec = record{info: info}
	if err := runs.ReadEvents(s.stateDir(), id, func(e runs.Event) error {
		rec.events = append(rec.events, e)
		return nil
	}); err != nil {
		s.t.Fatalf("reading the events of run %s: %v", id, err)
	}
	return rec
}

// find returns the events of type typ that match (nil matches all).
func (r record) find(typ runs.EventType, match func(runs.Event) bool) []runs.Event {
	var out []runs.Event
	for _, e := range r.events {
		if e.Type == typ && (match == nil || match(e)) {
			out = append(out, e)
		}
	}
	return out
}

// toolUse is the tool-call event of the tool_use block id, if any.
func (r record) has(typ runs.EventType, toolUseID string) (runs.Event, bool) {
	for _, e := range r.events {
		if e.Type == typ && e.ToolUseID == toolUseID {
			return e, true
		}
	}
	return runs.Event{}, false
}

// wantExit fails the test unless segwi exited with want.
func wantExit(t *testing.T, p *proc, want int) {
	t.Helper()
	if got := p.wait(); got != want {
		t.Fatalf("segwi exited %d, want %d", got, want)
	}
}

// toolResult returns what the model was told about the tool_use block b.
func (s *scenario) toolResult(b fakeapi.Block) fakeapi.ToolResult {
	s.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	req, err := s.srv.WaitRequest(ctx, func(r *fakeapi.Request) bool { _, ok := r.ToolResult(b.ID); return ok })
	if err != nil {
		s.t.Fatalf("the model never got the result of %s %s: %v", b.Name, b.ID, err)
	}
	res, _ := req.ToolResult(b.ID)
	return res
}

// jsonLines parses segwi run --json's stdout.
func jsonLines(t *testing.T, out string) []runs.Event {
	t.Helper()
	var events []runs.Event
	for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
		var e runs.Event
		if err := json.Unmarshal([]byte(line), &e); err != nil {
			t.Fatalf("segwi run --json printed a line that is not an event: %q: %v", line, err)
		}
		events = append(events, e)
	}
	return events
}
