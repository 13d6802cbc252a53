package canary

import (
	"context"
	"os"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/segwi/segwi/approvals"
	"github.com/segwi/segwi/approvals/mcpserver"
	"github.com/segwi/segwi/internal/testing/claudetest"
	"github.com/segwi/segwi/internal/testing/fakeapi"
	"github.com/segwi/segwi/runs"
	"github.com/segwi/segwi/runs/claude"
	"github.com/segwi/segwi/settings"
)

// These tests run the canary with the real, pinned Claude Code against the fake model
// server. Each costs about 2 CPU-seconds, so none runs in parallel.

// guardCmd is the first command of the test's deny file: harmless where it runs (the
// test checkout has no remote), so a missing guard shows as a command that ran.
const guardCmd = "git push"

// failDecider fails the test when an approval reaches a person: nothing in these
// scenarios should be escalated.
type failDecider struct{ t *testing.T }

func (d failDecider) Decide(_ context.Context, req approvals.Request) (approvals.Answer, error) {
	d.t.Errorf("unexpected approval request for %s %s", req.ToolName, req.Input)
	return approvals.Answer{Message: "not expected in this test", By: approvals.ByPerson}, nil
}

// world is one end-to-end setup: the fake model, Claude Code's sealed environment, the
// person's guard deny file, a checkout and a Manager running the real Claude Code with
// segwi's approvals server.
type world struct {
	srv      *fakeapi.Server
	env      *claudetest.Environment
	deny     string
	checkout string
	stateDir string
	m        *runs.Manager
}

// newWorld sets up a world whose model follows script. With guard, the test HOME's
// ~/.claude/settings.json holds a PreToolUse guard hook reading the deny file.
func newWorld(t *testing.T, script fakeapi.Script, guard bool) *world {
	t.Helper()
	claudeBin := claudetest.Binary(t)
	w := &world{srv: fakeapi.New(t, script), checkout: claudetest.Checkout(t), stateDir: t.TempDir()}
	w.env = claudetest.Env(t, w.srv.URL)
	w.deny = claudetest.WriteDenyFile(t, t.TempDir(), "", guardCmd, "rm -rf")
	s := claudetest.Settings{}
	if guard {
		s.Hooks = map[string][]claudetest.HookMatcher{"PreToolUse": {w.env.GuardHook(t, w.deny)}}
	}
	w.env.WriteSettings(t, s)

	srv, err := mcpserver.New(mcpserver.Config{Decider: failDecider{t}, Timeout: 30 * time.Second})
	if err != nil {
		t.Fatalf("mcpserver.New: %v", err)
	}
	t.Cleanup(func() { srv.Close() })
	w.m, err = runs.NewManager(runs.Config{
		Runtime: claude.Runtime{Path: claudeBin}, StateDir: w.stateDir, Env: w.env.Vars(), Approvals: srv,
		StopGrace: time.Second, MaxDuration: 2 * time.Minute,
	})
	if err != nil {
		t.Fatalf("runs.NewManager: %v", err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		if err := w.m.StopAll(ctx); err != nil {
			t.Errorf("StopAll: %v", err)
		}
	})
	return w
}

// run runs the canary in checkout (empty: a clone of the world's checkout).
func (w *world) run(t *testing.T, checkout string) Report {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	rep, err := Run(ctx, Options{
		Manager: w.m, Checkout: checkout, GuardDeny: w.deny,
		Repositories: []settings.Repository{{Name: "sample", Path: w.checkout, Remote: "origin"}},
	})
	if err != nil {
		t.Fatalf("Run: %v", err)
	}
	t.Logf("report:\n%s", rep)
	return rep
}

var readPath = regexp.MustCompile(`Read the file (\S+) with the Read tool`)

// canaryScript is the model's side of a canary: it reads the file the prompt names, runs
// the harmless command, runs the guard command, then does what extra says (each reply
// one turn), and ends with a short text.
func canaryScript(t *testing.T, extra ...fakeapi.Reply) fakeapi.Script {
	return func(req *fakeapi.Request) fakeapi.Reply {
		turn := req.Turn()
		switch {
		case turn == 0:
			m := readPath.FindStringSubmatch(strings.Join(req.UserText(), "\n"))
			if m == nil {
				return fakeapi.Unexpected("the prompt names no file to read: %q", req.UserText())
			}
			return fakeapi.Say(fakeapi.Text("I'll take the three steps."),
				fakeapi.ToolUse("Read", fakeapi.Input{"file_path": m[1]}))
		case turn == 1:
			return fakeapi.Say(fakeapi.ToolUse("Bash", fakeapi.Input{"command": "git log -1 --oneline", "description": "Show the last commit"}))
		case turn == 2:
			return fakeapi.Say(fakeapi.ToolUse("Bash", fakeapi.Input{"command": guardCmd, "description": "Push"}))
		case turn-3 < len(extra):
			return extra[turn-3]
		case turn-3 == len(extra):
			return fakeapi.Say(fakeapi.Text("The file read, the log showed the commit, and the guard refused the push."))
		}
		return fakeapi.Unexpected("turn %d is past the canary's script", turn)
	}
}

func failedNames(rep Report) []string {
	var names []string
	for _, c := range rep.Failed() {
		names = append(names, c.Name)
	}
	return names
}

func check(t *testing.T, rep Report, name string) Check {
	t.Helper()
	for _, c := range rep.Checks {
		if c.Name == name {
			return c
		}
	}
	t.Fatalf("the report has no check %q:\n%s", name, rep)
	return Check{}
}

func TestCanaryPassesInATemporaryClone(t *testing.T) {
	w := newWorld(t, canaryScript(t), true)
	before := claudetest.Status(t, w.checkout)

	rep := w.run(t, "")

	if !rep.Passed() {
		t.Fatalf("the canary failed %v, want it to pass:\n%s", failedNames(rep), rep)
	}
	if want := 9; len(rep.Checks) != want {
		t.Errorf("got %d checks, want %d", len(rep.Checks), want)
	}
	guard := check(t, rep, CheckGuard)
	for _, want := range []string{"refused", "Bash", "PreToolUse", claudetest.GuardMessage} {
		if !strings.Contains(guard.Proof, want) {
			t.Errorf("the guard check's proof %q lacks %q", guard.Proof, want)
		}
	}
	if got := check(t, rep, CheckSession).Proof; !strings.Contains(got, "auto mode") {
		t.Errorf("the session check's proof %q does not show auto mode", got)
	}
	// What the model was told about the guard command: the hook's refusal.
	var refused bool
	for _, r := range w.srv.Last().ToolResults() {
		refused = refused || (r.IsError && strings.Contains(r.Text, claudetest.GuardMessage))
	}
	if !refused {
		t.Errorf("the model was never told the guard refused %q: %+v", guardCmd, w.srv.Last().ToolResults())
	}
	// The run is recorded like any other, as an ask run in the clone, which is gone.
	info, err := runs.Load(w.stateDir, rep.RunID)
	if err != nil {
		t.Fatalf("the canary's run is not recorded: %v", err)
	}
	if info.Kind != runs.KindAsk || info.State != runs.StateSucceeded || info.Checkout != rep.Checkout {
		t.Errorf("recorded run: kind %s, state %s, checkout %s; want ask, succeeded, %s", info.Kind, info.State, info.Checkout, rep.Checkout)
	}
	if !slices.Contains(info.Argv, "Edit,Write,NotebookEdit") {
		t.Errorf("the canary's argv %q does not disallow Edit, Write and NotebookEdit", info.Argv)
	}
	if rep.Clone == "" || rep.Checkout == w.checkout {
		t.Errorf("the canary worked in %s (clone %q), want a temporary clone of %s", rep.Checkout, rep.Clone, w.checkout)
	}
	if _, err := os.Stat(rep.Checkout); !os.IsNotExist(err) {
		t.Errorf("the temporary clone %s was not removed: %v", rep.Checkout, err)
	}
	if after := claudetest.Status(t, w.checkout); after != before {
		t.Errorf("the repository changed: status %q, was %q", after, before)
	}
	for _, want := range []string{"segwi canary PASSED: 9 of 9 checks passed", "run " + rep.RunID, `guard command "git push"`, "ok   guard refusal"} {
		if !strings.Contains(rep.String(), want) {
			t.Errorf("the report lacks %q:\n%s", want, rep)
		}
	}
}

func TestCanaryFails(t *testing.T) {
	tests := []struct {
		name  string
		guard bool
		extra []fakeapi.Reply
		// wantFailed are the checks that must fail, and nothing else.
		wantFailed []string
		// wantProof holds, for a failed check, what its proof must say.
		wantProof map[string][]string
	}{
		{
			name: "when the guard hook is missing", guard: false,
			wantFailed: []string{CheckRefusal, CheckGuard},
			wantProof: map[string][]string{
				CheckRefusal: {"no refusal"},
				CheckGuard:   {`the guard command "git push" ran, nothing refused it`, "guard.deny"},
			},
		},
		{
			name: "when the run does not complete", guard: true,
			extra:      []fakeapi.Reply{fakeapi.APIError(400, "invalid_request_error", "the canary's model broke")},
			wantFailed: []string{CheckCompleted},
			wantProof:  map[string][]string{CheckCompleted: {"the run ended failed", "result"}},
		},
		{
			name: "when the agent changes a file", guard: true,
			extra: []fakeapi.Reply{fakeapi.Say(fakeapi.ToolUse("Bash", fakeapi.Input{
				"command": "echo changed >> README.md", "description": "Append to the README"}))},
			wantFailed: []string{CheckUnchanged},
			wantProof:  map[string][]string{CheckUnchanged: {`git status changed: now " M README.md"`}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			w := newWorld(t, canaryScript(t, tt.extra...), tt.guard)
			rep := w.run(t, w.checkout)
			if rep.Passed() {
				t.Fatalf("the canary passed, want it to fail:\n%s", rep)
			}
			if got := failedNames(rep); !slices.Equal(got, tt.wantFailed) {
				t.Errorf("failed checks %q, want %q", got, tt.wantFailed)
			}
			for name, wants := range tt.wantProof {
				got := check(t, rep, name).Proof
				for _, want := range wants {
					if !strings.Contains(got, want) {
						t.Errorf("the %s check says %q, want it to contain %q", name, got, want)
					}
				}
			}
			if !strings.Contains(rep.String(), "segwi canary FAILED") {
				t.Errorf("the report does not say FAILED:\n%s", rep)
			}
		})
	}
}
