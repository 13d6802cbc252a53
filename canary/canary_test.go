package canary

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/segwi/segwi/internal/testing/claudetest"
	"github.com/segwi/segwi/runs"
	"github.com/segwi/segwi/runs/claude"
	"github.com/segwi/segwi/settings"
)

// These tests check the canary's parts without running Claude Code.

func TestGuardCommand(t *testing.T) {
	dir := t.TempDir()
	write := func(name, body string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(body), 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	tests := []struct {
		name    string
		path    string
		want    string
		wantErr string
	}{
		{"the first command is taken, after comments and blank lines",
			write("a.deny", "# refused by my guard\n\n   \n  git push --force  \r\nrm -rf\n"), "git push --force", ""},
		{"an indented comment is a comment", write("b.deny", "  # note\ncurl\n"), "curl", ""},
		{"no path says what to set", "", "", "segwi.canary.guardDeny is not set"},
		{"a missing file is named", filepath.Join(dir, "none.deny"), "", filepath.Join(dir, "none.deny") + " (segwi.canary.guardDeny) does not exist"},
		{"a file of comments is named", write("c.deny", "# only\n\n#this\n"), "", "lists no command"},
		{"an empty file is named", write("d.deny", ""), "", filepath.Join(dir, "d.deny") + " (segwi.canary.guardDeny) lists no command"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := GuardCommand(tt.path)
			if got != tt.want {
				t.Errorf("got %q, want %q", got, tt.want)
			}
			if (err == nil) != (tt.wantErr == "") || (err != nil && !strings.Contains(err.Error(), tt.wantErr)) {
				t.Errorf("got error %v, want one containing %q", err, tt.wantErr)
			}
		})
	}
}

func TestRunCannotStart(t *testing.T) {
	stateDir := t.TempDir()
	m, err := runs.NewManager(runs.Config{StateDir: stateDir, Runtime: claude.Runtime{Path: "/nonexistent/claude"}})
	if err != nil {
		t.Fatal(err)
	}
	deny := claudetest.WriteDenyFile(t, t.TempDir(), "git push")
	notGit := t.TempDir()
	tests := []struct {
		name    string
		opts    Options
		wantIs  error
		wantErr string
	}{
		{"without a guard deny file", Options{Manager: m, Checkout: notGit}, ErrNoGuardDeny, "set it to the deny file"},
		{"without a checkout or a repository", Options{Manager: m, GuardDeny: deny}, ErrNoCheckout, "segwi canary --checkout DIR"},
		{"in a folder that is not a git checkout", Options{Manager: m, GuardDeny: deny, Checkout: notGit}, nil, notGit + " is not a git checkout"},
		{"when the repository cannot be cloned", Options{Manager: m, GuardDeny: deny,
			Repositories: []settings.Repository{{Name: "web", Path: notGit}}}, nil, "cloning " + notGit + " for the canary"},
		{"when Claude Code is not there", Options{Manager: m, GuardDeny: deny, Checkout: claudetest.Checkout(t)},
			claude.ErrNotFound, "starting the canary's run"},
		{"without a Manager", Options{GuardDeny: deny}, nil, "Options.Manager is required"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rep, err := Run(context.Background(), tt.opts)
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) || (tt.wantIs != nil && !errors.Is(err, tt.wantIs)) {
				t.Errorf("got error %v, want one containing %q (is %v)", err, tt.wantErr, tt.wantIs)
			}
			if rep.RunID != "" || len(rep.Checks) != 0 {
				t.Errorf("got a report %+v for a canary that could not start", rep)
			}
		})
	}
	t.Run("the tray's function returns no text, only the error", func(t *testing.T) {
		text, err := Func(m, func() settings.Settings { return settings.Default() })(context.Background())
		if text != "" || !errors.Is(err, ErrNoGuardDeny) {
			t.Errorf("got %q, %v; want no text and ErrNoGuardDeny", text, err)
		}
	})
	if list, _, err := runs.List(stateDir); len(list) != 0 || err != nil {
		t.Errorf("got runs %v (error %v), want none recorded", list, err)
	}
}

func TestPromptAsksForTheThreeSteps(t *testing.T) {
	p := Prompt("/src/web/README.md", "git push --force")
	for _, want := range []string{
		"1. Read the file /src/web/README.md with the Read tool.",
		"2. Run this harmless shell command with the Bash tool: git log -1 --oneline",
		"exactly as written, nothing added or changed:\ngit push --force\n",
		"Do not retry it",
	} {
		if !strings.Contains(p, want) {
			t.Errorf("the prompt lacks %q:\n%s", want, p)
		}
	}
}

// passingEvents are the events of a canary run that passes, with guard "git push".
func passingEvents() []runs.Event {
	in := func(cmd string) json.RawMessage { b, _ := json.Marshal(map[string]string{"command": cmd}); return b }
	return []runs.Event{
		{Seq: 1, Type: runs.EventState, State: &runs.StateChange{To: runs.StateRunning}},
		{Seq: 2, Type: runs.EventInit, Init: &runs.InitInfo{Model: "claude-opus-5-5", PermissionMode: "auto"}},
		{Seq: 3, Type: runs.EventText, Text: "Taking the steps."},
		{Seq: 4, Type: runs.EventToolCall, ToolName: "Read", ToolUseID: "t1", Input: json.RawMessage(`{"file_path":"/x/README.md"}`)},
		{Seq: 5, Type: runs.EventToolResult, ToolName: "Read", ToolUseID: "t1", Text: "# x"},
		{Seq: 6, Type: runs.EventToolCall, ToolName: "Bash", ToolUseID: "t2", Input: in("git push")},
		{Seq: 7, Type: runs.EventRefusal, ToolName: "Bash", ToolUseID: "t2", Source: "hook", Text: "PreToolUse:Bash hook error: [/h/guard.js /h/guard.deny]: guard: refused by the deny list"},
		{Seq: 8, Type: runs.EventResult, Subtype: "success", Result: &runs.ResultInfo{NumTurns: 3}},
	}
}

func TestEvaluate(t *testing.T) {
	clean := snapshot{Head: "0123456789abcdef", Status: ""}
	base := func() outcome {
		return outcome{events: passingEvents(), info: runs.Info{State: runs.StateSucceeded},
			guard: "git push", guardDeny: "/h/guard.deny", before: clean, after: clean}
	}
	without := func(drop runs.EventType) func(*outcome) {
		return func(o *outcome) {
			o.events = slices.DeleteFunc(o.events, func(e runs.Event) bool { return e.Type == drop })
		}
	}
	tests := []struct {
		name       string
		change     func(*outcome)
		wantFailed []string
		wantProof  string // in the first failed check's proof
	}{
		{"a run with every step passes", func(*outcome) {}, nil, ""},
		{"no session start fails", without(runs.EventInit), []string{CheckSession}, "no session start"},
		{"no assistant text fails", without(runs.EventText), []string{CheckText}, "no assistant text"},
		{"no result event fails", without(runs.EventResult), []string{CheckTurnEnd}, "the turn never ended"},
		{"only failed tool results fail", func(o *outcome) { o.events[4].IsError = true }, []string{CheckResult}, "no tool ran without an error"},
		{"a guard command refused by auto mode fails", func(o *outcome) { o.events[6].Source = "classifier" },
			[]string{CheckGuard}, "refused by classifier, not by a hook"},
		{"a guard command that ran fails, pointing at the hook", func(o *outcome) {
			o.events[6].Type, o.events[6].Source, o.events[6].Text = runs.EventToolResult, "", "Everything up-to-date"
		}, []string{CheckRefusal, CheckGuard}, "no refusal"},
		{"a refusal of another command does not count", func(o *outcome) {
			o.events[5].Input = json.RawMessage(`{"command":"ls"}`)
		}, []string{CheckGuard}, `never ran the guard command "git push"`},
		{"a failed run fails", func(o *outcome) { o.info.State, o.info.Reason = runs.StateFailed, "claude exited with code 1" },
			[]string{CheckCompleted}, "the run ended failed: claude exited with code 1"},
		{"a new file fails", func(o *outcome) { o.after.Status = "?? new.txt\n" }, []string{CheckUnchanged}, `now "?? new.txt"`},
		{"a file that is no longer changed fails", func(o *outcome) { o.before.Status = " M a.go\n" }, []string{CheckUnchanged}, `no longer " M a.go"`},
		{"a commit fails", func(o *outcome) { o.after.Head = "fedcba9876543210" }, []string{CheckUnchanged}, "HEAD moved from 0123456789ab to fedcba987654"},
		{"a checkout gone after the run fails", func(o *outcome) { o.afterErr = errors.New("gone") }, []string{CheckUnchanged}, "could not be looked at after the run: gone"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			o := base()
			tt.change(&o)
			rep := Report{RunID: "r1", Checks: evaluate(o)}
			if len(rep.Checks) != 9 {
				t.Fatalf("got %d checks, want 9", len(rep.Checks))
			}
			var failed []string
			for _, c := range rep.Failed() {
				failed = append(failed, c.Name)
			}
			if !slices.Equal(failed, tt.wantFailed) {
				t.Fatalf("failed %q, want %q:\n%s", failed, tt.wantFailed, rep)
			}
			if rep.Passed() != (tt.wantFailed == nil) {
				t.Errorf("Passed() = %v with failed checks %q", rep.Passed(), failed)
			}
			if tt.wantFailed != nil && !strings.Contains(rep.Failed()[0].Proof, tt.wantProof) {
				t.Errorf("the failed check says %q, want %q", rep.Failed()[0].Proof, tt.wantProof)
			}
		})
	}
	t.Run("the guard refusal's proof shows the command and the hook's words", func(t *testing.T) {
		checks := evaluate(base())
		got := checks[6].Proof
		want := `event 7 refused Bash "git push" (a hook): PreToolUse:Bash hook error: guard: refused by the deny list`
		if got != want {
			t.Errorf("got %q, want %q", got, want)
		}
	})
}

func TestReportString(t *testing.T) {
	rep := Report{
		RunID: "r1", State: runs.StateSucceeded, Checkout: "/tmp/c/web", Clone: "web (/src/web)",
		GuardDeny: "/h/guard.deny", GuardCommand: "git push",
		Checks: []Check{{Name: CheckSession, Passed: true, Proof: "event 2 session"}, {Name: CheckUnchanged, Proof: "HEAD moved"}},
	}
	want := "segwi canary FAILED: 1 of 2 checks passed\n" +
		"run r1, succeeded, in /tmp/c/web (a temporary clone of web (/src/web), removed)\n" +
		"guard command \"git push\", the first in /h/guard.deny\n" +
		"  ok   session start       event 2 session\n" +
		"  FAIL checkout unchanged  HEAD moved\n" +
		"segwi runs events r1 shows everything the run did.\n"
	if got := rep.String(); got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
	if (Report{}).Passed() {
		t.Error("a report without checks passed")
	}
}

func TestTemporaryCloneHasNoRemoteAndIsRemoved(t *testing.T) {
	src := claudetest.Checkout(t)
	dir, remove, err := cloneTemp(context.Background(), src)
	if err != nil {
		t.Fatalf("cloneTemp: %v", err)
	}
	if got := claudetest.Git(t, dir, "remote"); got != "" {
		t.Errorf("the clone has remotes %q, want none", got)
	}
	if got, want := claudetest.Git(t, dir, "rev-parse", "HEAD"), claudetest.Git(t, src, "rev-parse", "HEAD"); got != want {
		t.Errorf("the clone's HEAD is %s, want %s", got, want)
	}
	if st := claudetest.Status(t, dir); st != "" {
		t.Errorf("the fresh clone's status is %q, want clean", st)
	}
	remove()
	if _, err := os.Stat(dir); !os.IsNotExist(err) {
		t.Errorf("the clone %s is still there after remove: %v", dir, err)
	}
}

// The canary compares the checkout it was given, whatever segwi's environment says: a
// GIT_DIR inherited from the shell that started segwi (a git hook, a script) pointed the
// before-and-after snapshot at another repository, which does not change when the
// checkout does, so a checkout the agent wrote to passed as unchanged.
func TestTheSnapshotIsOfTheCheckoutWhateverGitDirSays(t *testing.T) {
	checkout := claudetest.Checkout(t)
	other := claudetest.Checkout(t)
	t.Setenv("GIT_DIR", filepath.Join(other, ".git"))
	t.Setenv("GIT_WORK_TREE", other)
	ctx := context.Background()
	before, err := takeSnapshot(ctx, checkout)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(checkout, "README.md"), []byte("changed by the agent\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	after, err := takeSnapshot(ctx, checkout)
	if err != nil {
		t.Fatal(err)
	}
	if before == after {
		t.Errorf("the snapshots before and after README.md changed are the same (%+v): the canary looked at another repository", after)
	}
}

// Given a worktree of a repository (segwi canary --checkout at a run's worktree), the
// canary compares the worktree: a change there shows, a change in the repository's own
// checkout does not.
func TestTheSnapshotOfAWorktreeIsOfTheWorktree(t *testing.T) {
	checkout := claudetest.Checkout(t)
	wt := filepath.Join(t.TempDir(), "wt")
	claudetest.Git(t, checkout, "worktree", "add", "-q", "-b", "segwi/canary-test", wt)
	ctx := context.Background()
	before, err := takeSnapshot(ctx, wt)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(checkout, "README.md"), []byte("changed in the checkout\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if same, err := takeSnapshot(ctx, wt); err != nil || same != before {
		t.Errorf("the worktree's snapshot changed when the checkout did: %+v, was %+v (%v)", same, before, err)
	}
	if err := os.WriteFile(filepath.Join(wt, "README.md"), []byte("changed in the worktree\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	after, err := takeSnapshot(ctx, wt)
	if err != nil {
		t.Fatal(err)
	}
	if after == before || !strings.Contains(after.Status, "README.md") {
		t.Errorf("the worktree's snapshot after README.md changed there = %+v, was %+v", after, before)
	}
}
