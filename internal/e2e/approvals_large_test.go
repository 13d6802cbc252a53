package e2e

import (
	"strings"
	"testing"
	"time"

	"github.com/segwi/segwi/approvals"
	"github.com/segwi/segwi/internal/claudetest"
	"github.com/segwi/segwi/internal/fakeapi"
	"github.com/segwi/segwi/runs"
)

// TestLongCallsThatAreAllowedRun checks that an allow of a long call reaches Claude Code
// as an allow. Claude Code cuts (or saves to a file) an MCP tool result over about
// 4 x MAX_MCP_OUTPUT_TOKENS characters (25,000 by default; from 2 x, it asks the API to
// count), and then takes the approval tool's answer for "an invalid result". segwi sent
// the whole input back in its allow; a trusted command with a 120 KB description and a
// 110 KB command the person allowed were both refused that way.
func TestLongCallsThatAreAllowedRun(t *testing.T) {
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
	p.term.waitCount(t, p, allowPrompt, 1, 60*time.Second)
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
