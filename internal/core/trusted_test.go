package core_test

import (
	"context"
	"encoding/json"
	"slices"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/segwi/segwi/approvals"
	"github.com/segwi/segwi/internal/core"
	"github.com/segwi/segwi/internal/testing/await"
	"github.com/segwi/segwi/internal/testing/coretest"
	"github.com/segwi/segwi/internal/testing/mcptest"
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
	want := &core.TrustedChange{Old: []string{"git status"}, New: []string{"git status", "rm"}}
	if diff := cmp.Diff(want, rep.TrustedChange); diff != "" {
		t.Fatalf("the change waiting for the person (-want +got):\n%s", diff)
	}

	if err := c.ApplyTrusted(*rep.TrustedChange); err != nil {
		t.Fatalf("ApplyTrusted: %v", err)
	}
	if by := whoAnswers(t, c, "rm -rf build"); by != approvals.ByTrusted {
		t.Errorf("after the person confirmed, rm was answered by %s; want the trusted rule", by)
	}
	if r := c.Report(); r.TrustedChange != nil || !slices.Equal(r.InForce.Approvals.Trusted, want.New) {
		t.Errorf("after confirming: change %+v, in force %q; want none and the new list", r.TrustedChange, r.InForce.Approvals.Trusted)
	}
}

func TestCoreKeepsTheOldTrustedCommandsWhenThePersonSaysSo(t *testing.T) {
	c, path := coretest.New(t, trustedGitStatus, coretest.Options{Watch: true, Decider: denyingPerson{}})
	got := watchReports(c)
	coretest.WriteFile(t, path, "segwi:\n  approvals:\n    trusted: [git status, rm]\n")
	rep, n := got.waitAfter(t, 0, "the edit to be loaded")
	if rep.TrustedChange == nil {
		t.Fatal("no change waits for the person")
	}
	c.KeepTrusted(*rep.TrustedChange)
	if by := whoAnswers(t, c, "rm -rf build"); by != approvals.ByPerson {
		t.Errorf("after keeping the old list, rm was answered by %s; want it asked of the person", by)
	}

	// Another edit that leaves the refused list in the file does not ask again.
	coretest.WriteFile(t, path, "segwi:\n  claude:\n    model: opus\n  approvals:\n    trusted: [git status, rm]\n")
	rep, _ = got.waitAfter(t, n, "the second edit to be loaded")
	if c.Settings().Claude.Model != "opus" {
		t.Errorf("the second edit was not applied: model %q", c.Settings().Claude.Model)
	}
	if rep.TrustedChange == nil || !rep.TrustedChange.Declined {
		t.Errorf("after a second edit the change is %+v, want the refused one, still refused", rep.TrustedChange)
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
	if rep.TrustedChange != nil {
		t.Errorf("a removal waits for the person: %+v", rep.TrustedChange)
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
	if rep.Err != nil || rep.TrustedChange != nil {
		t.Errorf("reloading the saved file: err %v, change %+v; want neither", rep.Err, rep.TrustedChange)
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
