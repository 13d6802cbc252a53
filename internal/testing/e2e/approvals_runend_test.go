package e2e

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/segwi/segwi/approvals"
	"github.com/segwi/segwi/runs"
)

// TestApprovalDeadlineIsTheRunsEndAtTheTerminal asks a request of a run whose maximum
// duration (runs.maxDuration, 1 minute: the least the settings take) comes long before
// approvals.timeout (10 minutes), and leaves it unanswered. The terminal counts down to the
// run's end and says the run ends then, the record's deadline is no later than the run's
// end, and at it the run ends timed-out and the request is recorded as denied by the run's
// end, as the terminal said. Before, the terminal said "Answer within 10m0s" while the run
// was stopped within the minute. It spends a minute of wall time and little CPU, so it
// runs beside the other tests, as the late-answer tests do.
func TestApprovalDeadlineIsTheRunsEndAtTheTerminal(t *testing.T) {
	t.Parallel()
	s, touch := lateScenario(t)
	s.writeConfig(config{approvalTimeout: "10m", maxDuration: "1m"})

	p := s.startOnTerminal("run", "Make late.txt")
	id := p.runID()
	p.term.waitCount(t, p, allowPrompt, 1, claudeActs)
	m := regexp.MustCompile(`Answer within (\S+): the run reaches its maximum duration \(runs\.maxDuration\) then`).FindStringSubmatch(p.term.String())
	if m == nil {
		t.Fatalf("the terminal does not count down to the run's end:\n%s", p.term.String())
	}
	if left, err := time.ParseDuration(m[1]); err != nil || left <= 0 || left > time.Minute {
		t.Errorf("the terminal gives the request %s (%v), want no more than the run's minute", m[1], err)
	}
	// Nobody answers: the run's end comes first.
	wantExit(t, p, 1)

	rec := s.loadRecord(id)
	if rec.info.State != runs.StateTimedOut {
		t.Errorf("the run ended %s (%s), want timed-out at its maximum duration", rec.info.State, rec.info.Reason)
	}
	asked, ok := rec.has(runs.EventApprovalRequest, touch.ID)
	if !ok || asked.Approval == nil {
		t.Fatal("no request recorded")
	}
	if end := rec.info.Start.Add(time.Minute); asked.Approval.Deadline.IsZero() || asked.Approval.Deadline.After(end) {
		t.Errorf("the recorded deadline %s is after the run's end %s", asked.Approval.Deadline, end)
	}
	ans, ok := rec.has(runs.EventApprovalAnswer, touch.ID)
	if !ok || ans.Approval == nil {
		t.Fatal("no answer recorded")
	}
	if a := ans.Approval; a.Allow || a.By != string(approvals.ByRunEnded) || !strings.Contains(a.Message, "maximum duration") {
		t.Errorf("answer recorded as allow %v by %q: %q; want a deny by the run's end at its maximum duration", a.Allow, a.By, a.Message)
	}
	if out := p.term.String(); !strings.Contains(out, "is no longer waiting (the run reached its maximum duration") {
		t.Errorf("the terminal does not say the request ended with the run:\n%s", out)
	}
	if _, err := os.Stat(filepath.Join(s.checkout, "late.txt")); err == nil {
		t.Error("the command ran, though nobody allowed it")
	}
}
