package runs

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/segwi/segwi/internal/lib/redact"
	"github.com/segwi/segwi/internal/testing/await"
	"github.com/segwi/segwi/internal/testing/claudetest"
)

// fakeClaude is the path of claude/testdata/fakeclaude, Claude Code's stand-in, built
// once by TestMain.
var fakeClaude string

// ClaudeRuntime and ClaudeParser are Claude Code's runtime and its parser (package
// runs/claude), for the tests that drive fakeclaude. This package does not import
// runs/claude, which imports it; claude_test.go, an external test file of this folder,
// sets them. TestARunDrivesAnyRuntime shows that a run needs none of it.
var (
	ClaudeRuntime func(path string) Runtime
	ClaudeParser  func() func(line []byte, emit func(Event))
)

// mcpFile is where Claude Code's runtime writes a run's approvals configuration.
const mcpFile = "mcp.json"

// plantedToken is the GitHub token fakeclaude's "secret" scenario prints.
const plantedToken = "ghp_FAKEfakeFAKEfakeFAKEfakeFAKEfake0123"

func TestMain(m *testing.M) {
	if spec := os.Getenv(childSegwiEnv); spec != "" {
		fmt.Fprintln(os.Stderr, "child segwi:", runChildSegwi(spec))
		os.Exit(1)
	}
	dir, err := os.MkdirTemp("", "runs-fakeclaude-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	fakeClaude = filepath.Join(dir, "claude")
	build := exec.Command("go", "build", "-o", fakeClaude, "./claude/testdata/fakeclaude")
	build.Stdout, build.Stderr = os.Stderr, os.Stderr
	if err := build.Run(); err != nil {
		fmt.Fprintln(os.Stderr, "building claude/testdata/fakeclaude:", err)
		os.RemoveAll(dir)
		os.Exit(1)
	}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// testManager returns a Manager running fakeclaude, its record folder for fakeclaude's
// start records, and stops every run at the end of the test.
func testManager(t *testing.T, change func(*Config)) (*Manager, string) {
	t.Helper()
	recDir := t.TempDir()
	cfg := Config{
		Runtime:       ClaudeRuntime(fakeClaude),
		StateDir:      t.TempDir(),
		StopGrace:     300 * time.Millisecond,
		MaxConcurrent: 4,
		Env: []string{"PATH=" + os.Getenv("PATH"), "HOME=" + t.TempDir(), "FAKECLAUDE_RECORD=" + recDir,
			"GH_TOKEN=gh-secret", "GITHUB_TOKEN=github-secret", "IBNI_LOCK_ROOT=/x", "IBNI_SKIP_SWEEP=1",
			"SEGWI_RUN_ID=stale"},
	}
	if change != nil {
		change(&cfg)
	}
	m, err := NewManager(cfg)
	if err != nil {
		t.Fatalf("NewManager: %v", err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		if err := m.StopAll(ctx); err != nil {
			t.Errorf("StopAll: %v", err)
		}
	})
	return m, recDir
}

func start(t *testing.T, m *Manager, spec Spec) *Run {
	t.Helper()
	if spec.Kind == "" {
		spec.Kind = KindBuild
	}
	if spec.Checkout == "" {
		spec.Checkout = newCheckout(t)
	}
	r, err := m.Start(context.Background(), spec)
	if err != nil {
		t.Fatalf("Start(%+v): %v", spec, err)
	}
	return r
}

// newCheckout returns a new, empty git checkout for a run to start in.
func newCheckout(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	claudetest.Git(t, dir, "init", "--quiet")
	return dir
}

// wait returns r's summary once it has ended, failing the test after 20 s.
func wait(t *testing.T, r *Run) Info {
	t.Helper()
	return waitWithin(t, r, 20*time.Second)
}

// waitWithin is wait for a run that may take longer on a busy machine.
func waitWithin(t *testing.T, r *Run, within time.Duration) Info {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), within)
	defer cancel()
	info, err := r.Wait(ctx)
	if err != nil {
		t.Fatalf("run %s did not end (state %s): %v", r.ID(), info.State, err)
	}
	return info
}

// startRecord is what fakeclaude wrote about how it was started.
type startRecord struct {
	Args       []string `json:"args"`
	Env        []string `json:"env"`
	StdinTTY   bool     `json:"stdinTTY"`
	StdoutTTY  bool     `json:"stdoutTTY"`
	CWD        string   `json:"cwd"`
	PID        int      `json:"pid"`
	PGID       int      `json:"pgid"`
	Started    int64    `json:"started"`
	Grandchild int      `json:"grandchild"`
	Prompt     string   `json:"prompt"`
	Detached   int      `json:"detached"` // the pid of the process a detach scenario left
	Alive      *bool    `json:"alive"`    // the alive scenario: whether the process was alive
}

func readStart(t *testing.T, recDir, id string) (startRecord, bool) {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(recDir, id+".json"))
	if err != nil {
		return startRecord{}, false
	}
	var rec startRecord
	if err := json.Unmarshal(b, &rec); err != nil {
		return startRecord{}, false
	}
	return rec, true
}

func waitStart(t *testing.T, recDir, id string) startRecord {
	t.Helper()
	var rec startRecord
	await.For(t, 10*time.Second, "fakeclaude of run "+id+" to start", func() bool {
		var ok bool
		rec, ok = readStart(t, recDir, id)
		return ok
	})
	return rec
}

func events(t *testing.T, m *Manager, id string) []Event {
	t.Helper()
	var evs []Event
	if err := ReadEvents(m.config().StateDir, id, func(e Event) error {
		evs = append(evs, e)
		return nil
	}); err != nil {
		t.Fatalf("ReadEvents(%s): %v", id, err)
	}
	return evs
}

func types(evs []Event) []EventType {
	var ts []EventType
	for _, e := range evs {
		if !slices.Contains(ts, e.Type) {
			ts = append(ts, e.Type)
		}
	}
	return ts
}

func states(evs []Event) []State {
	var ss []State
	for _, e := range evs {
		if e.Type == EventState {
			ss = append(ss, e.State.To)
		}
	}
	return ss
}

func find(evs []Event, pred func(Event) bool) (Event, bool) {
	for _, e := range evs {
		if pred(e) {
			return e, true
		}
	}
	return Event{}, false
}

func envValue(env []string, name string) (string, bool) {
	for _, kv := range env {
		if k, v, _ := strings.Cut(kv, "="); k == name {
			return v, true
		}
	}
	return "", false
}

// bareRun returns a run wired to a real record in dir, without a process: for the tests
// of what a run does with its output, its events and its stop, one piece at a time.
func bareRun(tb testing.TB, dir string) *Run {
	tb.Helper()
	rec, err := openRecorder(dir)
	if err != nil {
		tb.Fatal(err)
	}
	m := &Manager{red: redact.New("keyring-token-0123456789", "run-token-abcdefghijklmnop"), slots: map[*Run]struct{}{}, checkouts: map[string]*Run{}}
	return newRun(context.Background(), m, "bench", dir, Spec{KeepOpen: true}, rec, nil)
}

// owned gives the bare run r its owner, for a test of what reaches it (a turn's result),
// until the test ends.
func owned(t *testing.T, r *Run) {
	t.Helper()
	go r.own()
	t.Cleanup(func() {
		r.do(func() { r.over = true })
		<-r.Done()
	})
}
