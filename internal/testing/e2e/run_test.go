package e2e

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/segwi/segwi/internal/testing/claudetest"
	"github.com/segwi/segwi/internal/testing/fakeapi"
	"github.com/segwi/segwi/runs"
)

// plantedToken is a GitHub token the model "leaks" in its text; no file of the run and
// nothing segwi prints may hold it.
const plantedToken = "ghp_e2ePLANTEDtoken0123456789abcdefghIJ"

func TestAskRunReadsAndRunsLsButCannotWrite(t *testing.T) {
	twoAtATime(t)
	read := fakeapi.ToolUse("Read", fakeapi.Input{"file_path": "hello.txt"})
	ls := fakeapi.ToolUse("Bash", fakeapi.Input{"command": "ls", "description": "List files"})
	write := fakeapi.ToolUse("Write", fakeapi.Input{"file_path": "new.txt", "content": "should not exist\n"})
	s := newScenario(t, fakeapi.Turns(
		fakeapi.Say(fakeapi.Text("Let me look. My token is "+plantedToken+", by the way."), read),
		fakeapi.Say(ls),
		fakeapi.Say(write),
		fakeapi.Say(fakeapi.Text("The checkout holds README.md and hello.txt.")),
	))
	s.writeConfig(config{})
	before := claudetest.Status(t, s.checkout)

	p := s.start("run", "--kind", "ask", "What is in this checkout?")
	id := p.runID()
	wantExit(t, p, 0)
	out, errOut := p.stdout.String(), p.stderr.String()

	if got := s.toolResult(read); got.IsError || !strings.Contains(got.Text, strings.TrimSpace(claudetest.CheckoutHello)) {
		t.Errorf("Read: the model got %+v, want hello.txt's content", got)
	}
	if got := s.toolResult(ls); got.IsError || !strings.Contains(got.Text, "README.md") {
		t.Errorf("Bash ls: the model got %+v, want a listing with README.md", got)
	}
	if got := s.toolResult(write); !got.IsError || !strings.Contains(got.Text, "No such tool available: Write") {
		t.Errorf("Write: the model got %+v, want an error saying there is no such tool", got)
	}
	if _, err := os.Stat(filepath.Join(s.checkout, "new.txt")); err == nil {
		t.Error("new.txt exists: the ask run wrote to the checkout")
	}
	if after := claudetest.Status(t, s.checkout); after != before {
		t.Errorf("the ask run changed the checkout: git status went from %q to %q", before, after)
	}

	// What a person reads: the lines of each step, and where the record is.
	for _, want := range []string{
		"claude    Let me look. My token is [REDACTED], by the way.",
		"tool      Read: hello.txt",
		"tool      Bash: ls",
		"tool      Write: new.txt",
		"result    done after",
		"state     succeeded",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("stdout lacks %q", want)
		}
	}
	if !strings.Contains(errOut, "segwi: run "+id+" (ask in ") || !strings.Contains(errOut, "segwi: run "+id+" succeeded") {
		t.Errorf("stderr does not name the run at start and end:\n%s", errOut)
	}

	rec := s.loadRecord(id)
	if rec.info.State != runs.StateSucceeded || rec.info.Kind != runs.KindAsk || rec.info.ExitCode == nil || *rec.info.ExitCode != 0 {
		t.Errorf("run.json: state %s, kind %s, exit %v; want succeeded, ask, 0", rec.info.State, rec.info.Kind, rec.info.ExitCode)
	}
	if !hasArgs(rec.info.Argv, "--disallowedTools", "Edit,Write,NotebookEdit") || !hasArgs(rec.info.Argv, "--permission-mode", "auto") {
		t.Errorf("argv %q lacks the ask run's flags", rec.info.Argv)
	}
	if _, ok := rec.has(runs.EventRefusal, write.ID); !ok {
		t.Errorf("the Write call is not recorded as a refusal; events of types %v", types(rec))
	}

	// The planted token is nowhere segwi wrote or printed.
	if strings.Contains(out+errOut, plantedToken) {
		t.Error("segwi run printed the planted token")
	}
	checkNoSecret(t, rec.info.Dir, plantedToken)
	if !strings.Contains(readAll(t, filepath.Join(rec.info.Dir, "events.jsonl")), "My token is [REDACTED]") {
		t.Error("events.jsonl lacks the redacted text: the check above proves nothing")
	}
}

func TestBuildRunWritesInsideTheCheckout(t *testing.T) {
	twoAtATime(t)
	write := fakeapi.ToolUse("Write", fakeapi.Input{"file_path": "notes/plan.md", "content": "# Plan\n\nShip it.\n"})
	s := newScenario(t, fakeapi.Turns(
		fakeapi.Say(fakeapi.Text("Writing the plan."), write),
		fakeapi.Say(fakeapi.Text("Wrote notes/plan.md.")),
	))
	s.writeConfig(config{})

	p := s.start("run", "--json", "--checkout", s.checkout, "Write a plan to notes/plan.md")
	wantExit(t, p, 0)

	got, err := os.ReadFile(filepath.Join(s.checkout, "notes", "plan.md"))
	if err != nil || string(got) != "# Plan\n\nShip it.\n" {
		t.Errorf("notes/plan.md: got %q, %v; want the content the model wrote", got, err)
	}
	if res := s.toolResult(write); res.IsError {
		t.Errorf("Write: the model got an error: %s", res.Text)
	}
	// --json prints the events as JSON lines: the write's result, then the run's end.
	events := jsonLines(t, p.stdout.String())
	var wrote, succeeded bool
	for _, e := range events {
		wrote = wrote || e.Type == runs.EventToolResult && e.ToolUseID == write.ID && !e.IsError
		succeeded = succeeded || e.Type == runs.EventState && e.State.To == runs.StateSucceeded
	}
	if !wrote || !succeeded {
		t.Errorf("--json events: the write's result %v, the succeeded state %v; want both", wrote, succeeded)
	}
}

func TestFlaggedCommandIsRefused(t *testing.T) {
	twoAtATime(t)
	rm := fakeapi.ToolUse("Bash", fakeapi.Input{"command": "rm -rf ../elsewhere", "description": "Clean up"}).
		WithVerdict(fakeapi.Flagged("Deleting files outside the checkout was not asked for."))
	s := newScenario(t, fakeapi.Turns(
		fakeapi.Say(rm),
		fakeapi.Say(fakeapi.Text("Auto mode refused it; I will leave that folder alone.")),
	))
	s.writeConfig(config{})

	p := s.start("run", "Tidy up")
	id := p.runID()
	// The turn goes on after the refusal and ends with a successful result: exit 0.
	wantExit(t, p, 0)

	if got := s.toolResult(rm); !got.IsError || !strings.Contains(got.Text, "Deleting files outside the checkout was not asked for.") {
		t.Errorf("the model got %+v, want the classifier's refusal", got)
	}
	if out := p.stdout.String(); !strings.Contains(out, "refused   Bash: rm -rf ../elsewhere (Claude Code's permissions): ") || !strings.Contains(out, "Deleting files outside the checkout") {
		t.Errorf("stdout lacks the refusal line:\n%s", out)
	}
	rec := s.loadRecord(id)
	ref, ok := rec.has(runs.EventRefusal, rm.ID)
	if !ok {
		t.Fatalf("no refusal recorded for the flagged call; events %v", types(rec))
	}
	if ref.ToolName != "Bash" {
		t.Errorf("refusal: tool %q, want Bash", ref.ToolName)
	}
	res := rec.find(runs.EventResult, nil)
	if len(res) != 1 || len(res[0].Result.Denials) != 1 || res[0].Result.Denials[0].ToolUseID != rm.ID {
		t.Errorf("the result does not list the flagged call as denied: %+v", res)
	}
}

func TestCtrlCStopsALongToolCallAndLeavesNoProcess(t *testing.T) {
	twoAtATime(t)
	sleep := fakeapi.ToolUse("Bash", fakeapi.Input{"command": "echo waiting && sleep 300 && echo done", "description": "Wait for the build"})
	s := newScenario(t, fakeapi.Turns(
		fakeapi.Say(sleep),
		fakeapi.Say(fakeapi.Text("Done waiting.")),
	))
	s.writeConfig(config{})

	p := s.start("run", "Wait five minutes")
	id := p.runID()
	p.waitWhileRunning(t, claudeActs, "the run's sleep 300 to start", func() bool {
		return len(runProcesses(id, "sleep\x00300\x00")) > 0
	})

	stopAt := time.Now()
	if err := p.cmd.Process.Signal(syscall.SIGINT); err != nil {
		t.Fatal(err)
	}
	wantExit(t, p, 1)
	t.Logf("stopped %s after Ctrl-C", time.Since(stopAt).Round(time.Millisecond))

	if left := runProcesses(id, ""); len(left) > 0 {
		t.Errorf("processes of run %s outlived it: %v", id, left)
	}
	if !strings.Contains(p.stderr.String(), "segwi: stopping run "+id) {
		t.Errorf("stderr does not say the run is stopping:\n%s", p.stderr.String())
	}
	rec := s.loadRecord(id)
	if rec.info.State != runs.StateStopped {
		t.Errorf("run.json: state %s (%s), want stopped", rec.info.State, rec.info.Reason)
	}
	// The two steps: stopping (SIGTERM to the group) comes before the end; the process exit
	// is recorded.
	var steps []runs.State
	for _, e := range rec.find(runs.EventState, nil) {
		steps = append(steps, e.State.To)
	}
	if n := len(steps); n < 2 || steps[n-2] != runs.StateStopping || steps[n-1] != runs.StateStopped {
		t.Errorf("states %v, want ... stopping, stopped", steps)
	}
	if len(rec.find(runs.EventExit, nil)) != 1 {
		t.Errorf("the process's exit is not recorded; events %v", types(rec))
	}
}

// runProcesses returns the processes (pid: command line) of run id, by the SEGWI_RUN_ID
// segwi gives them, whose command line contains cmdline.
func runProcesses(id, cmdline string) []string { return processesWith("SEGWI_RUN_ID="+id, cmdline) }

func hasArgs(argv []string, flag, value string) bool {
	for i := 0; i+1 < len(argv); i++ {
		if argv[i] == flag && argv[i+1] == value {
			return true
		}
	}
	return false
}

func types(r record) []string {
	var out []string
	for _, e := range r.events {
		out = append(out, string(e.Type))
	}
	return out
}

func readAll(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// checkNoSecret fails the test for every file under dir that holds secret.
func checkNoSecret(t *testing.T, dir, secret string) {
	t.Helper()
	n := 0
	filepath.WalkDir(dir, func(path string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		n++
		if strings.Contains(readAll(t, path), secret) {
			t.Errorf("%s holds the secret", path)
		}
		return nil
	})
	if n < 3 {
		t.Errorf("only %d files under %s: the run's record is missing", n, dir)
	}
}
