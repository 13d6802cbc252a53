package runs

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

func TestRunSucceedsWithEveryEventKind(t *testing.T) {
	m, recDir := testManager(t, nil)
	checkout := newCheckout(t)
	r := start(t, m, Spec{Kind: KindBuild, Checkout: checkout, Prompt: "do it fake:success", Model: "sonnet"})
	info := wait(t, r)

	if info.State != StateSucceeded {
		t.Fatalf("state = %s (%s), want succeeded", info.State, info.Reason)
	}
	if info.ExitCode == nil || *info.ExitCode != 0 || info.CostUSD != 0.0123 || info.SessionID != "sess-1" || info.Model != "sonnet" {
		t.Errorf("info = %+v, want exit 0, cost 0.0123, session sess-1, model sonnet", info)
	}
	evs := events(t, m, r.ID())
	for _, want := range []EventType{EventState, EventPrompt, EventInit, EventText, EventToolCall, EventToolResult,
		EventRefusal, EventStatus, EventRaw, EventOutput, EventResult, EventExit} {
		if !slices.Contains(types(evs), want) {
			t.Errorf("no %s event among %v", want, types(evs))
		}
	}
	wantStates := []State{StateQueued, StateStarting, StateRunning, StateSucceeded}
	if got := states(evs); !slices.Equal(got, wantStates) {
		t.Errorf("states = %v, want %v", got, wantStates)
	}
	for i, e := range evs {
		if e.Seq != int64(i+1) || e.RunID != r.ID() {
			t.Fatalf("event %d has seq %d run %q, want seq %d run %q", i, e.Seq, e.RunID, i+1, r.ID())
		}
	}
	refusals := map[string]string{}
	for _, e := range evs {
		if e.Type == EventRefusal {
			refusals[e.ToolName] = e.Source
		}
	}
	if refusals["Write"] != "disallowed" || refusals["Bash"] != "hook" {
		t.Errorf("refusals = %v, want Write disallowed and Bash by a hook", refusals)
	}
	if _, ok := find(evs, func(e Event) bool { return e.Type == EventText && e.Text == "after escape" }); !ok {
		t.Errorf("the JSON line after a terminal escape was not parsed")
	}
	if _, ok := find(evs, func(e Event) bool { return e.Type == EventOutput && e.Text == "{not json at all" }); !ok {
		t.Errorf("the malformed line was not kept as output")
	}

	rec := waitStart(t, recDir, r.ID())
	if rec.StdinTTY || !rec.StdoutTTY {
		t.Errorf("stdin tty %v, stdout tty %v; want stdin a pipe and stdout the pty", rec.StdinTTY, rec.StdoutTTY)
	}
	if rec.CWD != info.Checkout {
		t.Errorf("cwd = %s, want the checkout %s", rec.CWD, info.Checkout)
	}
	if !slices.Equal(rec.Args, info.Argv) || !slices.Contains(rec.Args, "--model") {
		t.Errorf("args = %q, want run.json's argv %q with --model", rec.Args, info.Argv)
	}
	if rec.PGID != rec.PID {
		t.Errorf("pgid %d != pid %d: the run is not in its own process group", rec.PGID, rec.PID)
	}
	for name, want := range map[string]string{"SEGWI_RUN_ID": r.ID(), "SEGWI_RUN_KIND": "build"} {
		if got, _ := envValue(rec.Env, name); got != want {
			t.Errorf("%s = %q, want %q", name, got, want)
		}
	}
	for _, name := range []string{"GH_TOKEN", "GITHUB_TOKEN", "IBNI_LOCK_ROOT", "IBNI_SKIP_SWEEP"} {
		if v, ok := envValue(rec.Env, name); ok {
			t.Errorf("%s=%q reached the run's environment", name, v)
		}
	}

	out, err := os.ReadFile(filepath.Join(r.Dir(), outputFile))
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(out), "\r\n") || !strings.Contains(string(out), "warning: a line on stderr\n") {
		t.Errorf("output.log has \\r\\n or lacks the stderr line:\n%.500s", out)
	}
	disk, err := Load(m.config().StateDir, r.ID())
	if err != nil || disk.State != StateSucceeded || !slices.Equal(disk.Argv, info.Argv) || disk.Prompt != "do it fake:success" {
		t.Errorf("Load = %+v, %v; want the succeeded run with its argv and prompt", disk, err)
	}
	for _, name := range []string{infoFile, eventsFile, outputFile} {
		if st, err := os.Stat(filepath.Join(r.Dir(), name)); err != nil || st.Mode().Perm() != 0o600 {
			t.Errorf("%s: %v, mode %v; want it there with mode 0600", name, err, st.Mode().Perm())
		}
	}
}

func TestACrashMidRunFailsTheRun(t *testing.T) {
	m, _ := testManager(t, nil)
	r := start(t, m, Spec{Prompt: "fake:crash"})
	info := wait(t, r)
	if info.State != StateFailed || info.ExitCode == nil || *info.ExitCode != 2 {
		t.Fatalf("got state %s exit %v (%s), want failed with exit 2", info.State, info.ExitCode, info.Reason)
	}
	if !strings.Contains(info.Reason, "code 2") {
		t.Errorf("reason = %q, want it to give the exit code", info.Reason)
	}
	evs := events(t, m, r.ID())
	if _, ok := find(evs, func(e Event) bool {
		return e.Type == EventOutput && strings.Contains(e.Text, "fakeclaude crashed on purpose")
	}); !ok {
		t.Errorf("the panic message is not among the output events")
	}
	if _, ok := find(evs, func(e Event) bool {
		return e.Type == EventOutput && strings.HasPrefix(e.Text, `{"type":"assistant","message":{"con`)
	}); !ok {
		t.Errorf("the cut JSON line is not kept as output")
	}
}

func TestAFailedTurnFailsTheRun(t *testing.T) {
	m, _ := testManager(t, nil)
	info := wait(t, start(t, m, Spec{Prompt: "fake:fail"}))
	if info.State != StateFailed || info.Turns != 2 {
		t.Errorf("got %s (%s) with %d turns, want failed after 2 turns", info.State, info.Reason, info.Turns)
	}
}
