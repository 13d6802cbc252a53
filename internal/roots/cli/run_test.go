package cli

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/segwi/segwi/internal/testing/await"
	"github.com/segwi/segwi/internal/testing/claudetest"
	"github.com/segwi/segwi/internal/testing/syncbuf"
	"github.com/segwi/segwi/runs"
)

var (
	fakeOnce sync.Once
	fakePath string
	fakeErr  error
)

// fakeClaude builds the Claude Code runtime's stand-in (runs/claude/testdata/fakeclaude)
// once, and returns its path. Its first message picks a scenario with a "fake:NAME" word.
func fakeClaude(t *testing.T) string {
	t.Helper()
	fakeOnce.Do(func() {
		dir, err := os.MkdirTemp("", "cli-fakeclaude-")
		if err != nil {
			fakeErr = err
			return
		}
		fakePath = filepath.Join(dir, "claude")
		out, err := exec.Command("go", "build", "-o", fakePath, "../../../runs/claude/testdata/fakeclaude").CombinedOutput()
		if err != nil {
			fakeErr = err
			t.Logf("%s", out)
		}
	})
	if fakeErr != nil {
		t.Fatalf("building runs/claude/testdata/fakeclaude: %v", fakeErr)
	}
	return fakePath
}

// runConfig writes settings that launch the fake claude, and returns their path.
func runConfig(t *testing.T, extra string) string {
	t.Helper()
	return writeConfig(t, "segwi:\n  claude:\n    path: "+fakeClaude(t)+"\n  runs:\n    stopGrace: 1s\n"+extra)
}

// newCheckout returns a new, empty git checkout for a run to start in.
func newCheckout(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	claudetest.Git(t, dir, "init", "--quiet")
	return dir
}

var runIDLine = func(stderr string) string {
	_, rest, ok := strings.Cut(stderr, "segwi: run ")
	if !ok {
		return ""
	}
	id, _, _ := strings.Cut(rest, " ")
	return id
}

func TestRunPrintsTheRunAndExitsWithItsOutcome(t *testing.T) {
	home := isolate(t)
	cfg := runConfig(t, "")
	checkout := newCheckout(t)
	tests := []struct {
		name     string
		args     []string
		wantCode int
		wantOut  []string
		wantErr  []string
	}{
		{"a successful run prints readable lines and exits 0", []string{"run", "--checkout", checkout, "fake:success"}, 0,
			[]string{"claude    Looking at the checkout.⏎Second line.", "tool      Bash: ls", "refused   Bash: rm -rf / (a hook): PreToolUse:Bash hook error", "output    Bash: a.txt⏎b.txt", "result    done after 2 turns, $0.0123", "state     succeeded"},
			[]string{" (build in " + checkout + "); its record is in " + filepath.Join(home, "state", "segwi", "runs"), " succeeded (2 turns, $0.0123)"}},
		{"a failed turn exits 1 and says why", []string{"run", "--kind", "ask", "--checkout", checkout, "fake:fail"}, 1,
			[]string{"result    stopped at the turn limit after 2 turns", "state     failed"},
			[]string{" (ask in ", " failed: claude exited with code 1"}},
		{"a ready run needs no notes", []string{"run", "--kind", "ready", "--checkout", checkout}, 0,
			[]string{"you       Get the current branch ready for review"}, []string{" (ready in "}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := segwi(t, "", append([]string{"--config", cfg}, tt.args...)...)
			if r.code != tt.wantCode {
				t.Errorf("got exit %d, want %d; stderr:\n%s", r.code, tt.wantCode, r.stderr)
			}
			for _, w := range tt.wantOut {
				if !strings.Contains(r.stdout, w) {
					t.Errorf("stdout lacks %q:\n%s", w, r.stdout)
				}
			}
			for _, w := range tt.wantErr {
				if !strings.Contains(r.stderr, w) {
					t.Errorf("stderr lacks %q:\n%s", w, r.stderr)
				}
			}
			if strings.Contains(r.stdout, "\x1b") {
				t.Errorf("stdout holds a terminal escape: %q", r.stdout)
			}
		})
	}
	t.Run("--json prints every event as a JSON line, the same as recorded", func(t *testing.T) {
		r := segwi(t, "", "--config", cfg, "run", "--json", "--checkout", checkout, "fake:success then git status && git diff > out.txt")
		if r.code != 0 {
			t.Fatalf("got exit %d; stderr:\n%s", r.code, r.stderr)
		}
		var last runs.Event
		for _, line := range strings.Split(strings.TrimSpace(r.stdout), "\n") {
			if err := json.Unmarshal([]byte(line), &last); err != nil {
				t.Fatalf("not a JSON event: %q: %v", line, err)
			}
		}
		if last.Type != runs.EventState {
			t.Errorf("the last event printed is %s, want the final state", last.Type)
		}
		recorded, err := os.ReadFile(filepath.Join(home, "state", "segwi", "runs", runIDLine(r.stderr), "events.jsonl"))
		if err != nil || r.stdout != string(recorded) {
			t.Errorf("printed:\n%s\nrecorded (%v):\n%s\nwant the same lines", r.stdout, err, recorded)
		}
		for _, want := range []string{"git status && git diff > out.txt", "<tool_use_error>"} {
			if !strings.Contains(r.stdout, want) {
				t.Errorf("grep %q finds nothing in the printed events", want)
			}
		}
	})
	t.Run("the current directory is the default checkout", func(t *testing.T) {
		t.Chdir(checkout)
		r := segwi(t, "", "--config", cfg, "run", "fake:success")
		if r.code != 0 || !strings.Contains(r.stderr, "(build in "+checkout+")") {
			t.Errorf("got exit %d, stderr:\n%s", r.code, r.stderr)
		}
	})
}

func TestRunRefusesWhatItCannotRun(t *testing.T) {
	home := isolate(t)
	cfg := runConfig(t, "")
	file := filepath.Join(t.TempDir(), "file.txt")
	os.WriteFile(file, nil, 0o600)
	missing := writeConfig(t, "segwi:\n  claude:\n    path: /nowhere/claude\n")
	plain := t.TempDir()
	// The words Start refuses a folder with, the new-run dialog's too.
	refusal := func(dir string) string {
		_, err := runs.CheckoutDir(dir)
		if err == nil {
			t.Fatalf("runs.CheckoutDir(%s) refuses nothing", dir)
		}
		return err.Error()
	}
	tests := []struct {
		name     string
		args     []string
		wantCode int
		want     []string
	}{
		{"no prompt", []string{"--config", cfg, "run", "--checkout", newCheckout(t)}, 2, []string{"no task given", "usage: segwi run"}},
		{"no question for an ask run", []string{"--config", cfg, "run", "--kind", "ask", "--checkout", newCheckout(t), "  "}, 2, []string{"no question given"}},
		{"an unknown kind", []string{"--config", cfg, "run", "--kind", "fix", "x"}, 2, []string{"fix", "build", "ready", "ask"}},
		{"a checkout that is a file", []string{"--config", cfg, "run", "--checkout", file, "x"}, 2, []string{file + " is not a directory"}},
		{"a checkout that does not exist", []string{"--config", cfg, "run", "--checkout", "/nowhere/at/all", "x"}, 2, []string{"/nowhere/at/all does not exist"}},
		{"a folder that is not a git checkout, as the app refuses it", []string{"--config", cfg, "run", "--checkout", plain, "x"}, 2,
			[]string{"segwi: " + refusal(plain) + "\n", "usage: segwi run"}},
		{"claude missing at the configured path", []string{"--config", missing, "run", "--checkout", newCheckout(t), "x"}, 1,
			[]string{`claude not found at "/nowhere/claude"`, "segwi.claude.path", "(settings file: " + missing + ")"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := segwi(t, "", tt.args...)
			if r.code != tt.wantCode {
				t.Errorf("got exit %d, want %d; stderr:\n%s", r.code, tt.wantCode, r.stderr)
			}
			for _, w := range tt.want {
				if !strings.Contains(r.stderr, w) {
					t.Errorf("stderr lacks %q:\n%s", w, r.stderr)
				}
			}
		})
	}
	t.Run("the current directory, when it is not a git checkout", func(t *testing.T) {
		t.Chdir(plain)
		r := segwi(t, "", "--config", cfg, "run", "x")
		if want := refusal(plain); r.code != 2 || !strings.Contains(r.stderr, want) {
			t.Errorf("got exit %d, stderr:\n%s\nwant 2 and %q", r.code, r.stderr, want)
		}
	})
	if infos, _, _ := runs.List(filepath.Join(home, "state", "segwi")); len(infos) != 0 {
		t.Errorf("refused runs left %d runs on record", len(infos))
	}
}

// TestRunStopsInTwoSteps runs the fake claude that ignores SIGTERM (with a child of its
// own). A cancelled context (SIGINT) sends SIGTERM; stopGrace later the group is killed.
// A second Ctrl-C kills it at once.
func TestRunStopsInTwoSteps(t *testing.T) {
	home := isolate(t)
	stateDir := filepath.Join(home, "state", "segwi")
	start := func(t *testing.T, ctx context.Context, cfg string, main bool) (*syncbuf.Buffer, *syncbuf.Buffer, chan int) {
		var out, errOut syncbuf.Buffer
		done := make(chan int, 1)
		args := []string{"--config", cfg, "run", "--checkout", newCheckout(t), "fake:ignore-term"}
		opts := Options{Stdin: strings.NewReader(""), Stdout: &out, Stderr: &errOut}
		go func() {
			if main {
				done <- Main(args, opts)
			} else {
				done <- run(ctx, args, opts)
			}
		}()
		await.For(t, 10*time.Second, "the fake claude to start", func() bool { return strings.Contains(out.String(), "ignoring SIGTERM") })
		return &out, &errOut, done
	}
	end := func(t *testing.T, done chan int, within time.Duration) int {
		select {
		case code := <-done:
			return code
		case <-time.After(within):
			t.Fatalf("segwi run did not end within %s", within)
			return 0
		}
	}
	events := func(t *testing.T, id string) string {
		var b strings.Builder
		runs.ReadEvents(stateDir, id, func(e runs.Event) error { b.WriteString(runs.FormatEvent(e) + "\n"); return nil })
		return b.String()
	}

	t.Run("after stopGrace the process group is killed", func(t *testing.T) {
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		_, errOut, done := start(t, ctx, runConfig(t, ""), false)
		began := time.Now()
		cancel()
		code := end(t, done, 15*time.Second)
		took := time.Since(began)
		id := runIDLine(errOut.String())
		info, err := runs.Load(stateDir, id)
		if code != 1 || err != nil || info.State != runs.StateStopped {
			t.Fatalf("got exit %d, state %s (%v); want 1, stopped; stderr:\n%s", code, info.State, err, errOut.String())
		}
		if took < time.Second {
			t.Errorf("ended %s after the stop, before the 1s stopGrace: the first step was not polite", took)
		}
		if ev := events(t, id); !strings.Contains(ev, "still running 1s after SIGTERM (runs.stopGrace): killing its process group") {
			t.Errorf("the kill after stopGrace is not recorded:\n%s", ev)
		}
	})
	t.Run("a second Ctrl-C kills at once", func(t *testing.T) {
		_, errOut, done := start(t, context.Background(), writeConfig(t, "segwi:\n  claude:\n    path: "+fakeClaude(t)+"\n  runs:\n    stopGrace: 60s\n"), true)
		syscall.Kill(os.Getpid(), syscall.SIGINT)
		await.For(t, 10*time.Second, "segwi to say it is stopping", func() bool { return strings.Contains(errOut.String(), "segwi: stopping run") })
		syscall.Kill(os.Getpid(), syscall.SIGINT)
		code := end(t, done, 15*time.Second)
		id := runIDLine(errOut.String())
		if code != 1 || !strings.Contains(errOut.String(), "segwi: killing run "+id) {
			t.Errorf("got exit %d; want 1 and the kill said; stderr:\n%s", code, errOut.String())
		}
		if ev := events(t, id); !strings.Contains(ev, "stopped a second time: killing its process group") {
			t.Errorf("the second stop's kill is not recorded:\n%s", ev)
		}
	})
}

// segwi run --continue starts a run in the earlier run's checkout that resumes its
// session, and both records name each other.
func TestRunContinueResumesAFinishedRun(t *testing.T) {
	isolate(t)
	cfg := runConfig(t, "")
	checkout := newCheckout(t)
	first := runIDLine(segwi(t, "", "--config", cfg, "run", "--checkout", checkout, "fake:success").stderr)
	r := segwi(t, "", "--config", cfg, "run", "--continue", first, "fake:success and now the tests")
	next := runIDLine(r.stderr)
	if r.code != 0 || next == "" || !strings.Contains(r.stderr, "segwi: it continues run "+first+", resuming its Claude Code session\n") {
		t.Fatalf("run --continue: exit %d, stderr %s", r.code, r.stderr)
	}
	oneSpace := func(s string) string { return strings.Join(strings.Fields(s), " ") }
	show := oneSpace(segwi(t, "", "runs", "show", next).stdout)
	for _, want := range []string{"continues " + first, "checkout " + checkout, " --resume sess-1"} {
		if !strings.Contains(show, want) {
			t.Errorf("runs show %s lacks %q:\n%s", next, want, show)
		}
	}
	if show := oneSpace(segwi(t, "", "runs", "show", first).stdout); !strings.Contains(show, "continued by "+next+" ") {
		t.Errorf("runs show %s does not name its continuation:\n%s", first, show)
	}
	if r := segwi(t, "", "--config", cfg, "run", "--continue", first, "--checkout", checkout, "go on"); r.code != 2 {
		t.Errorf("--continue with --checkout: exit %d, want 2 (usage)", r.code)
	}
}

func TestTheRunSummaryCountsTurnsInWords(t *testing.T) {
	for turns, want := range map[int]string{1: " (1 turn, $0.0100)", 2: " (2 turns, $0.0100)"} {
		got := (&printer{}).summary(runs.Info{ID: "r1", State: runs.StateSucceeded, Turns: turns, CostUSD: 0.01})
		if !strings.Contains(got, want) {
			t.Errorf("summary of %d turns: %q, want it to hold %q", turns, got, want)
		}
	}
}

// Output that is only a terminal's escapes (the ESC[?25h Claude Code writes on exit,
// still raw in a record of an older segwi) is not printed as Claude Code's last words.
func TestOnlyEscapesTellsNoiseFromText(t *testing.T) {
	for text, want := range map[string]bool{
		"":                            true,
		"\x1b[?25h":                   true,
		"\x1b]0;claude\x07 \r\n":      true,
		"\x1b[1mcannot log in\x1b[0m": false,
		"plain words":                 false,
	} {
		if got := onlyEscapes(text); got != want {
			t.Errorf("onlyEscapes(%q) = %v, want %v", text, got, want)
		}
	}
}
