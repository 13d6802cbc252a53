package e2e

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/segwi/segwi/internal/testing/fakeapi"
	"github.com/segwi/segwi/internal/testing/sessionbus"
)

// keyringToken is a GitHub token of no shape a redaction rule knows: only segwi's read of
// the keyring can hide it.
const keyringToken = "e2e-kr-tok-5e7a9c1b2d4f"

// The README's promise that the keyring's GitHub token is redacted wherever it appears,
// for its whole length: the person stores the token (segwi token set, a gnome-keyring of
// the test's own), a run's Bash call prints it (split in two in the command, so that only
// the output holds it whole), and no file of the run, nothing segwi run printed and
// nothing segwi runs events shows holds it; the masked form is in the record. segwi reads
// the token from the keyring at the run's start (the lean reader on Linux).
func TestTheKeyringsTokenIsRedactedFromARun(t *testing.T) {
	twoAtATime(t)
	half := len(keyringToken) / 2
	print := fakeapi.ToolUse("Bash", fakeapi.Input{
		"command":     "printf '%s%s\\n' 'deploy with " + keyringToken[:half] + "' '" + keyringToken[half:] + "'",
		"description": "Print the deploy command",
	})
	s := newScenario(t, fakeapi.Turns(fakeapi.Say(print), fakeapi.Say(fakeapi.Text("Printed."))))
	s.writeConfig(config{})
	s.env.Set("DBUS_SESSION_BUS_ADDRESS", sessionbus.Keyring(t))
	set := s.command([]string{"token", "set"})
	set.cmd.Stdin = strings.NewReader(keyringToken + "\n")
	set.run(t)
	if code := set.exit(); code != 0 {
		t.Fatalf("segwi token set exited %d: %s", code, set.stderr.String())
	}

	p := s.start("run", "Print the deploy command")
	id := p.runID()
	wantExit(t, p, 0)
	if got := s.toolResult(print); got.IsError || !strings.Contains(got.Text, keyringToken) {
		t.Fatalf("the Bash call did not print the token (the model got %+v): the test proves nothing", got)
	}
	rec := s.loadRecord(id)
	events := readAll(t, filepath.Join(rec.info.Dir, "events.jsonl"))
	if !strings.Contains(events, "deploy with [REDACTED]") {
		t.Errorf("events.jsonl lacks the masked token: the Bash output was not recorded as expected")
	}
	readable := s.start("runs", "events", id)
	wantExit(t, readable, 0)
	for where, text := range map[string]string{
		"segwi run's output": p.stdout.String() + p.stderr.String(),
		"segwi runs events":  readable.stdout.String(),
	} {
		if strings.Contains(text, keyringToken) {
			t.Errorf("%s holds the keyring's token", where)
		}
	}
	checkNoSecret(t, rec.info.Dir, keyringToken) // events.jsonl, output.log, run.json, ...
}
