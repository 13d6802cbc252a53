package e2e

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/segwi/segwi/internal/testing/claudetest"
	"github.com/segwi/segwi/internal/testing/fakeapi"
	"github.com/segwi/segwi/runs"
)

// Two attacks on `segwi run`'s terminal prompt, which passed the request through segwi's
// redactor before showing it. A command substitution in a URL's password,
//
//	git ls-remote https://deploy:$(touch${IFS}PWNED;echo${IFS}x)@host/acme/app.git
//
// showed as https://deploy:[REDACTED]@host/..., and a touch line inside a block that
// looked like a private key showed as [REDACTED PRIVATE KEY]; answered y, each ran its
// touch. The prompt now shows what runs, whole, says that it looks as though it holds a
// secret, and the run's record keeps the redacted input with the SHA-256 of the exact one.
func TestWhatThePersonApprovesAtTheTerminalIsWhatRuns(t *testing.T) {
	twoAtATime(t)
	urlPassword := fakeapi.ToolUse("Bash", fakeapi.Input{
		"command":     "git ls-remote https://deploy:$(touch${IFS}PWNED;echo${IFS}x)@127.0.0.1:9/acme/app.git || true",
		"description": "List the remote's branches"})
	pemBlock := fakeapi.ToolUse("Bash", fakeapi.Input{
		"command":     "git status\n-----BEGIN RSA PRIVATE KEY-----\nMIIEowIBAAKCAQEA7\ntouch PWNED2\n-----END RSA PRIVATE KEY-----\ntrue",
		"description": "Show the status"})
	s := newScenario(t, fakeapi.Turns(fakeapi.Say(urlPassword), fakeapi.Say(pemBlock), fakeapi.Say(fakeapi.Text("Done."))))
	s.env.WriteSettings(t, claudetest.Settings{Permissions: &claudetest.Permissions{Ask: []string{"Bash"}}})
	s.writeConfig(config{})

	p := s.startOnTerminal("run", "Check the remote")
	id := p.runID()
	term := p.term
	for i, call := range []fakeapi.Block{urlPassword, pemBlock} {
		term.waitCount(t, p, allowPrompt, i+1, claudeActs)
		shown := term.String()
		command := commandOf(call.Input)
		var whole strings.Builder
		for line := range strings.SplitSeq(command, "\n") {
			whole.WriteString("    " + line + "\r\n") // the terminal's line discipline ends lines with \r\n
		}
		if !strings.Contains(shown, whole.String()) || strings.Contains(shown, "REDACTED") {
			t.Errorf("the terminal does not show the command whole, unmasked:\n%s", shown)
		}
		if !strings.Contains(shown, "looks as though it holds a secret") {
			t.Errorf("the terminal does not say the command looks as though it holds a secret:\n%s", shown)
		}
		term.typeLine(t, "y")
	}
	wantExit(t, p, 0)

	// What ran is what was shown.
	for _, name := range []string{"PWNED", "PWNED2"} {
		if _, err := os.Stat(filepath.Join(s.checkout, name)); err != nil {
			t.Errorf("%s: %v; the allowed command did not run as shown", name, err)
		}
	}
	rec := s.loadRecord(id)
	for _, call := range []fakeapi.Block{urlPassword, pemBlock} {
		req, ok := rec.has(runs.EventApprovalRequest, call.ID)
		if !ok {
			t.Errorf("no request recorded for %s", commandOf(call.Input))
			continue
		}
		if !strings.Contains(string(req.Input), "REDACTED") {
			t.Errorf("the record keeps the input unmasked: %s", req.Input)
		}
		var exact json.RawMessage
		if err := json.Unmarshal(call.Input, &exact); err != nil {
			t.Fatal(err)
		}
		if want := sha256.Sum256(exact); req.Approval.InputSHA256 != hex.EncodeToString(want[:]) {
			t.Errorf("the record's SHA-256 is %q, want %x, the exact input's as Claude Code sent it", req.Approval.InputSHA256, want)
		}
	}
}
