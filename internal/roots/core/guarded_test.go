package core_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/segwi/segwi/approvals"
	"github.com/segwi/segwi/internal/roots/core"
	"github.com/segwi/segwi/internal/testing/await"
	"github.com/segwi/segwi/internal/testing/coretest"
	"github.com/segwi/segwi/internal/testing/mcptest"
	"github.com/segwi/segwi/settings"
)

// denyingPerson denies every request put to them, as a person clicking Deny would.
type denyingPerson struct{}

func (denyingPerson) Decide(context.Context, approvals.Request) (approvals.Answer, error) {
	return approvals.Answer{By: approvals.ByPerson}, nil
}

// answeredRun is an approvals.Run that hands over the answer of its one request.
type answeredRun struct{ answers chan approvals.Answer }

func (r answeredRun) RecordApproval(rec approvals.Record) {
	if rec.Answer != nil {
		r.answers <- *rec.Answer
	}
}
func (answeredRun) SetPending(int) {}
func (answeredRun) Stop()          {}
func (answeredRun) Connected()     {}

// ToolCallRunning says yes: this test's client stands in for Claude Code making the call.
func (answeredRun) ToolCallRunning(context.Context, string) bool { return true }

// Ending says no: this test's run is never stopped.
func (answeredRun) Ending() bool { return false }

// Ends says no end is known: this test's run has no maximum duration.
func (answeredRun) Ends() time.Time { return time.Time{} }

var askedRuns atomic.Int64

// whoAnswers asks the core's approvals server, over MCP as Claude Code does, whether a run
// may run the Bash command, and returns who answered: a trusted rule or the person.
func whoAnswers(t *testing.T, c *core.Core, command string) approvals.Answerer {
	t.Helper()
	id := "run-" + strconv.FormatInt(askedRuns.Add(1), 10)
	run := answeredRun{answers: make(chan approvals.Answer, 1)}
	reg, err := core.ApprovalsServer(c).Register(approvals.RunInfo{ID: id, Kind: "build", Checkout: t.TempDir()}, run)
	if err != nil {
		t.Fatal(err)
	}
	defer core.ApprovalsServer(c).Unregister(id)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	cs := mcptest.Connect(t, reg.URL, reg.Token, "")
	input, _ := json.Marshal(map[string]string{"command": command})
	args := map[string]any{"tool_name": "Bash", "input": json.RawMessage(input), "tool_use_id": "toolu_" + id}
	if _, err := mcptest.CallText(ctx, cs, approvals.ToolName, args); err != nil {
		t.Fatalf("asking to run %q: %v", command, err)
	}
	select {
	case a := <-run.answers:
		return a.By
	case <-ctx.Done():
		t.Fatalf("no answer recorded for %q", command)
		return ""
	}
}

// reports collects the core's reports after edits of the settings file.
type reports struct {
	mu   sync.Mutex
	seen []core.SettingsReport
}

func watchReports(c *core.Core) *reports {
	r := &reports{}
	c.OnReport(func(rep core.SettingsReport) { r.mu.Lock(); r.seen = append(r.seen, rep); r.mu.Unlock() })
	return r
}

// waitAfter waits for a report after the first n and returns it with the new count.
func (r *reports) waitAfter(t *testing.T, n int, what string) (core.SettingsReport, int) {
	t.Helper()
	var last core.SettingsReport
	var count int
	await.For(t, 10*time.Second, what, func() bool {
		r.mu.Lock()
		defer r.mu.Unlock()
		count = len(r.seen)
		if count > n {
			last = r.seen[count-1]
		}
		return count > n
	})
	return last, count
}

const trustedGitStatus = "segwi:\n  approvals:\n    trusted: [git status]\n"

func TestCoreHoldsANewTrustedCommandUntilThePersonConfirms(t *testing.T) {
	c, path := coretest.New(t, trustedGitStatus, coretest.Options{Watch: true, Decider: denyingPerson{}})
	if by := whoAnswers(t, c, "git status"); by != approvals.ByTrusted {
		t.Fatalf("git status answered by %s at start, want the trusted rule", by)
	}
	got := watchReports(c)

	// What a run's agent can do: add rm to the trusted commands, beside another edit.
	coretest.WriteFile(t, path, "segwi:\n  claude:\n    model: sonnet\n  approvals:\n    trusted: [git status, rm]\n")
	rep, _ := got.waitAfter(t, 0, "the edit to be loaded")
	if rep.Err != nil || c.Settings().Claude.Model != "sonnet" {
		t.Fatalf("the rest of the edit was not applied: err %v, model %q", rep.Err, c.Settings().Claude.Model)
	}
	if by := whoAnswers(t, c, "rm -rf build"); by != approvals.ByPerson {
		t.Errorf("before the person confirmed, rm was answered by %s; want it asked of the person", by)
	}
	if got := c.Settings().Approvals.Trusted; !slices.Equal(got, []string{"git status"}) {
		t.Errorf("trusted commands in force %q, want the old list", got)
	}
	if rep.Edit == nil {
		t.Fatal("no edit waits for the person")
	}
	want := []settings.KeyChange{{Key: "segwi.approvals.trusted", Why: "a run's commands that start with one of these run without asking you",
		Old: []string{"git status"}, New: []string{"git status", "rm"}, List: true, Added: []string{"rm"}}}
	if diff := cmp.Diff(want, rep.Edit.Changes()); diff != "" {
		t.Fatalf("the edit waiting for the person (-want +got):\n%s", diff)
	}

	if err := c.ConfirmEdit(*rep.Edit); err != nil {
		t.Fatalf("ConfirmEdit: %v", err)
	}
	if by := whoAnswers(t, c, "rm -rf build"); by != approvals.ByTrusted {
		t.Errorf("after the person confirmed, rm was answered by %s; want the trusted rule", by)
	}
	if r := c.Report(); r.Edit != nil || !slices.Equal(r.InForce.Approvals.Trusted, want[0].New) {
		t.Errorf("after confirming: edit %+v, in force %q; want none and the new list", r.Edit, r.InForce.Approvals.Trusted)
	}
	if g, _, err := settings.ReadConfirmed(path); err != nil || !slices.Equal(g.Trusted, want[0].New) {
		t.Errorf("the record of what the person confirmed holds %q (%v), want the new list: the commands read it too", g.Trusted, err)
	}
}

func TestCoreKeepsTheOldTrustedCommandsWhenThePersonSaysSo(t *testing.T) {
	c, path := coretest.New(t, trustedGitStatus, coretest.Options{Watch: true, Decider: denyingPerson{}})
	got := watchReports(c)
	coretest.WriteFile(t, path, "segwi:\n  approvals:\n    trusted: [git status, rm]\n")
	rep, n := got.waitAfter(t, 0, "the edit to be loaded")
	if rep.Edit == nil {
		t.Fatal("no edit waits for the person")
	}
	c.KeepEdit(*rep.Edit)
	if by := whoAnswers(t, c, "rm -rf build"); by != approvals.ByPerson {
		t.Errorf("after keeping the old list, rm was answered by %s; want it asked of the person", by)
	}

	// Another edit that leaves the refused list in the file does not ask again.
	coretest.WriteFile(t, path, "segwi:\n  claude:\n    model: opus\n  approvals:\n    trusted: [git status, rm]\n")
	rep, _ = got.waitAfter(t, n, "the second edit to be loaded")
	if c.Settings().Claude.Model != "opus" {
		t.Errorf("the second edit was not applied: model %q", c.Settings().Claude.Model)
	}
	if rep.Edit == nil || !rep.Edit.Declined {
		t.Errorf("after a second edit the edit is %+v, want the refused one, still refused", rep.Edit)
	}
	if got := c.Settings().Approvals.Trusted; !slices.Equal(got, []string{"git status"}) {
		t.Errorf("trusted commands in force %q, want the old list", got)
	}
}

// Removing trusted commands only sends more to the person, so it applies at once.
func TestCoreAppliesARemovedTrustedCommandAtOnce(t *testing.T) {
	c, path := coretest.New(t, "segwi:\n  approvals:\n    trusted: [git status, go test]\n", coretest.Options{Watch: true, Decider: denyingPerson{}})
	got := watchReports(c)
	coretest.WriteFile(t, path, "segwi:\n  approvals:\n    trusted: [go test]\n")
	rep, _ := got.waitAfter(t, 0, "the edit to be loaded")
	if rep.Edit != nil {
		t.Errorf("a removal waits for the person: %+v", rep.Edit)
	}
	if by := whoAnswers(t, c, "git status"); by != approvals.ByPerson {
		t.Errorf("git status answered by %s after its removal, want the person", by)
	}
}

// The settings window is the person's own doing: what it saves applies at once.
func TestCoreAppliesTrustedCommandsSavedFromTheSettingsWindowAtOnce(t *testing.T) {
	c, path := coretest.New(t, trustedGitStatus, coretest.Options{Watch: true, Decider: denyingPerson{}})
	got := watchReports(c)
	s := c.Report().FileSettings()
	s.Approvals.Trusted = []string{"git status", "make test"}
	if err := c.SaveSettings(path, s); err != nil {
		t.Fatalf("SaveSettings: %v", err)
	}
	if by := whoAnswers(t, c, "make test"); by != approvals.ByTrusted {
		t.Errorf("make test answered by %s after the save, want the trusted rule", by)
	}
	rep, _ := got.waitAfter(t, 0, "the saved file to be loaded")
	if rep.Err != nil || rep.Edit != nil {
		t.Errorf("reloading the saved file: err %v, edit %+v; want neither", rep.Err, rep.Edit)
	}
}

// The settings window shows, and saves, the trusted commands the person accepted, not an
// addition still waiting in the file: saving it must not apply that addition.
func TestCoreSettingsWindowShowsTheAcceptedTrustedCommands(t *testing.T) {
	c, path := coretest.New(t, trustedGitStatus, coretest.Options{Watch: true, Decider: denyingPerson{}})
	got := watchReports(c)
	coretest.WriteFile(t, path, "segwi:\n  approvals:\n    trusted: [git status, rm]\n")
	rep, _ := got.waitAfter(t, 0, "the edit to be loaded")
	if got := rep.FileSettings().Approvals.Trusted; !slices.Equal(got, []string{"git status"}) {
		t.Errorf("the settings window would show trusted commands %q, want the accepted list", got)
	}
}

// The attack that worked: the agent edits the settings file to widen what segwi does, and the
// tray applied every such edit at once but trusted commands. Each waits now.
func TestCoreHoldsEachWideningEditUntilThePersonConfirms(t *testing.T) {
	const base = "segwi:\n  remote:\n    owners: [alice@example.com]\n"
	tests := []struct {
		name, edit string
		inForce    func(settings.Settings) any
		old, new   any
	}{
		{"the token's host", "segwi:\n  github:\n    apiURL: https://127.0.0.1:9/api/v3\n  remote:\n    owners: [alice@example.com]\n",
			func(s settings.Settings) any { return s.GitHub.APIURL }, "https://api.github.com", "https://127.0.0.1:9/api/v3"},
		{"the Claude Code binary", "segwi:\n  claude:\n    path: /tmp/evil/claude\n  remote:\n    owners: [alice@example.com]\n",
			func(s settings.Settings) any { return s.Claude.Path }, "claude", "/tmp/evil/claude"},
		{"forge tokens for runs", "segwi:\n  runs:\n    passForgeTokens: true\n  remote:\n    owners: [alice@example.com]\n",
			func(s settings.Settings) any { return s.Runs.PassForgeTokens }, false, true},
		{"the approval page turned on", "segwi:\n  remote:\n    enabled: true\n    owners: [alice@example.com]\n",
			func(s settings.Settings) any { return s.Remote.Enabled }, false, true},
		{"the page's port", "segwi:\n  remote:\n    port: 8080\n    owners: [alice@example.com]\n",
			func(s settings.Settings) any { return s.Remote.Port }, settings.DefaultRemotePort, 8080},
		{"an owner added", "segwi:\n  remote:\n    owners: [alice@example.com, eve@example.com]\n",
			func(s settings.Settings) any { return strings.Join(s.Remote.Owners, " ") }, "alice@example.com", "alice@example.com eve@example.com"},
		{"tailscaled's socket", "segwi:\n  remote:\n    owners: [alice@example.com]\n    socket: /tmp/fake-tailscaled.sock\n",
			func(s settings.Settings) any { return s.Remote.Socket }, "", "/tmp/fake-tailscaled.sock"},
	}
	for _, tt := range tests {
		t.Run(tt.name+" waits, and applies once confirmed", func(t *testing.T) {
			c, path := coretest.New(t, base, coretest.Options{Watch: true})
			got := watchReports(c)
			coretest.WriteFile(t, path, strings.Replace(tt.edit, "segwi:\n", "segwi:\n  approvals:\n    timeout: 5m\n", 1))
			rep, _ := got.waitAfter(t, 0, "the edit to be loaded")
			if c.Settings().Approvals.Timeout != 5*time.Minute {
				t.Errorf("the rest of the edit was not applied: approvals timeout %s", c.Settings().Approvals.Timeout)
			}
			if v := tt.inForce(c.Settings()); v != tt.old {
				t.Errorf("in force before the person confirmed: %v, want the old %v", v, tt.old)
			}
			if rep.Edit == nil || len(rep.Edit.Changes()) != 1 {
				t.Fatalf("the edit waiting: %+v, want one key", rep.Edit)
			}
			if v := tt.inForce(rep.FileSettings()); v != tt.old {
				t.Errorf("the settings window would show %v, want the confirmed %v", v, tt.old)
			}
			if err := c.ConfirmEdit(*rep.Edit); err != nil {
				t.Fatalf("ConfirmEdit: %v", err)
			}
			if v := tt.inForce(c.Settings()); v != tt.new {
				t.Errorf("in force after the person confirmed: %v, want the new %v", v, tt.new)
			}
		})
	}
}

func TestCoreAppliesTurningThePageOffAtOnce(t *testing.T) {
	c, path := coretest.New(t, "segwi:\n  remote:\n    enabled: true\n    port: 8080\n", coretest.Options{Watch: true})
	got := watchReports(c)
	coretest.WriteFile(t, path, "segwi:\n  remote:\n    port: 8080\n")
	rep, _ := got.waitAfter(t, 0, "the edit to be loaded")
	if rep.Edit != nil || c.Settings().Remote.Enabled {
		t.Errorf("edit %+v, page on %v; want turning it off applied at once", rep.Edit, c.Settings().Remote.Enabled)
	}
}

// An edit made while the tray was not running waits at its next start: the record of what
// the person confirmed is read, not the file taken as it is.
func TestCoreStartsWithWhatThePersonConfirmed(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "segwi", "config.yaml")
	coretest.WriteFile(t, path, "segwi:\n  approvals:\n    trusted: [git status]\n")
	if err := settings.WriteConfirmed(path, settings.GuardedOf(settings.Default())); err != nil {
		t.Fatal(err)
	}
	c, err := core.New(core.Config{ConfigPath: path, StateDir: t.TempDir(), Decider: denyingPerson{},
		Env: []string{"PATH=" + os.Getenv("PATH")}, Secrets: func() []string { return nil }, Log: t.Logf})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	if rep := c.Report(); rep.Edit == nil || len(c.Settings().Approvals.Trusted) != 0 {
		t.Errorf("at start: edit %+v, trusted in force %q; want the addition waiting", rep.Edit, c.Settings().Approvals.Trusted)
	}
	if by := whoAnswers(t, c, "git status"); by != approvals.ByPerson {
		t.Errorf("git status answered by %s, want the person: its addition was never confirmed", by)
	}
}

// segwi config confirm writes the record while the tray runs: the tray takes it in at once.
func TestCoreTakesInAConfirmationMadeAtTheTerminal(t *testing.T) {
	c, path := coretest.New(t, "segwi:\n  runs:\n    stopGrace: 2s\n", coretest.Options{Watch: true})
	got := watchReports(c)
	coretest.WriteFile(t, path, "segwi:\n  runs:\n    stopGrace: 2s\n    passForgeTokens: true\n")
	rep, n := got.waitAfter(t, 0, "the edit to be loaded")
	if rep.Edit == nil || c.Settings().Runs.PassForgeTokens {
		t.Fatalf("edit %+v, passForgeTokens in force %v; want the edit waiting", rep.Edit, c.Settings().Runs.PassForgeTokens)
	}
	if err := settings.WriteConfirmed(path, rep.Edit.New); err != nil { // as segwi config confirm does
		t.Fatal(err)
	}
	rep, _ = got.waitAfter(t, n, "the record to be taken in")
	if rep.Edit != nil || !c.Settings().Runs.PassForgeTokens {
		t.Errorf("after the confirmation: edit %+v, passForgeTokens in force %v; want none waiting and true", rep.Edit, c.Settings().Runs.PassForgeTokens)
	}
}
