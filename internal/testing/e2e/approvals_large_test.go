package e2e

import (
	"strings"
	"testing"

	"github.com/segwi/segwi/approvals"
	"github.com/segwi/segwi/internal/testing/claudetest"
	"github.com/segwi/segwi/internal/testing/fakeapi"
	"github.com/segwi/segwi/runs"
)

// TestLongCallsThatAreAllowedRun checks that an allow of a long call reaches Claude Code
// as an allow. Claude Code cuts (or saves to a file) an MCP tool result over about
// 4 x MAX_MCP_OUTPUT_TOKENS characters (25,000 by default; from 2 x, it asks the API to
// count), and then takes the approval tool's answer for "an invalid result". segwi sent
// the whole input back in its allow; a trusted command with a 120 KB description and a
// 110 KB command the person allowed were both refused that way.
func TestLongCallsThatAreAllowedRun(t *testing.T) {
	twoAtATime(t)
	trusted := fakeapi.ToolUse("Bash", fakeapi.Input{
		"command":     "ls -1 hello.txt",
		"description": strings.Repeat("List the file. ", 8_000),
	})
	allowed := fakeapi.ToolUse("Bash", fakeapi.Input{"command": "ls -1" + strings.Repeat(" hello.txt", 11_000)})
	s := newScenario(t, fakeapi.Turns(
		fakeapi.Say(trusted), fakeapi.Say(allowed), fakeapi.Say(fakeapi.Text("Listed twice.")),
	))
	s.env.WriteSettings(t, claudetest.Settings{Permissions: &claudetest.Permissions{Ask: []string{"Bash"}}})
	s.writeConfig(config{trusted: []string{"ls"}})

	p := s.startOnTerminal("run", "List hello.txt")
	id := p.runID()
	p.term.waitCount(t, p, allowPrompt, 1, claudeActs)
	p.term.typeLine(t, "y")
	wantExit(t, p, 0)

	for name, call := range map[string]fakeapi.Block{"the trusted call": trusted, "the call the person allowed": allowed} {
		// The 11,000 lines of the second come back saved to a file, with a preview.
		if got := s.toolResult(call); got.IsError || !strings.Contains(got.Text, "hello.txt") {
			t.Errorf("%s: the model got %.300q (error %v), want the output of ls", name, got.Text, got.IsError)
		}
	}
	rec := s.loadRecord(id)
	for call, by := range map[string]approvals.Answerer{trusted.ID: approvals.ByTrusted, allowed.ID: approvals.ByPerson} {
		if ans, ok := rec.has(runs.EventApprovalAnswer, call); !ok || !ans.Approval.Allow || ans.Approval.By != string(by) {
			t.Errorf("%s: answer recorded %v: %+v; want an allow by %s", call, ok, ans.Approval, by)
		}
	}
}

// TestDeepPipelineGoesToThePerson runs the call that crashed segwi: a Bash pipeline of
// 340,000 ls (1 MB), escalated by an ask rule of Bash, with ls trusted. segwi's check
// of the trusted commands overflowed Go's stack, which ended segwi and the run. Now the
// call is too long to check: it goes to the person (here, with no terminal, it is denied
// saying so), the run finishes, and the record says why it was not checked.
func TestDeepPipelineGoesToThePerson(t *testing.T) {
	twoAtATime(t)
	command := "ls" + strings.Repeat("|ls", 340_000-1)
	pipeline := fakeapi.ToolUse("Bash", fakeapi.Input{"command": command})
	s := newScenario(t, fakeapi.Turns(fakeapi.Say(pipeline), fakeapi.Say(fakeapi.Text("Nobody allowed it."))))
	s.env.WriteSettings(t, claudetest.Settings{Permissions: &claudetest.Permissions{Ask: []string{"Bash"}}})
	s.writeConfig(config{trusted: []string{"git status", "ls"}})

	p := s.start("run", "List the files many times")
	id := p.runID()
	wantExit(t, p, 0)

	if got := s.toolResult(pipeline); !got.IsError || !strings.Contains(got.Text, "no person was at the terminal") {
		t.Errorf("the model got %.300q, want a deny saying nobody was at the terminal", got.Text)
	}
	rec := s.loadRecord(id)
	if rec.info.State != runs.StateSucceeded {
		t.Errorf("run.json: state %s (%s), want succeeded", rec.info.State, rec.info.Reason)
	}
	req, ok := rec.has(runs.EventApprovalRequest, pipeline.ID)
	wantNote := "Not checked against your trusted commands: the command is 1019999 bytes long, more than the 16384 segwi checks."
	if !ok || req.Approval == nil || req.Approval.Note != wantNote {
		t.Errorf("request recorded %v: %+v; want the note %q", ok, req.Approval, wantNote)
	}
	if ans, ok := rec.has(runs.EventApprovalAnswer, pipeline.ID); !ok || ans.Approval.Allow || ans.Approval.By != string(approvals.ByNoTerminal) {
		t.Errorf("answer recorded %v: %+v; want a deny by no-terminal", ok, ans.Approval)
	}
}
