package e2e

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/segwi/segwi/internal/testing/claudetest"
	"github.com/segwi/segwi/internal/testing/fakeapi"
	"github.com/segwi/segwi/runs"
)

// The four kinds of secret an attack on segwi (issue 10) saw leak from a run's Bash tool
// into its record and into what segwi printed.
const (
	e2eAWSSecret = "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY"
	e2eURLPass   = "e2e-Pa55word-zq81"
	e2eSlack     = "xoxb-2048123456789-2049876543210-E2eTokenAbCdEfGhIjKlMn"
	e2eJWT       = "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiJlMmUifQ.c2lnbmF0dXJlLWUyZS1ub3QtcmVhbA"
)

// TestSecretsARunPrintsAreRedactedEverywhere runs a Bash call that prints an AWS secret
// key, a URL with a password, a Slack token and a JWT (each split in two in the command,
// so only the output holds it whole), then a curl call with a password in its URL that a
// permissions.ask rule sends to segwi for approval. No secret may reach events.jsonl,
// output.log or any file of the run, what segwi run printed (readable or --json), or
// segwi runs events; the masked forms must be there.
func TestSecretsARunPrintsAreRedactedEverywhere(t *testing.T) {
	for _, asJSON := range []bool{false, true} {
		name := "segwi run prints readable lines"
		if asJSON {
			name = "segwi run --json prints events"
		}
		t.Run(name, func(t *testing.T) { checkSecretsRedacted(t, asJSON) })
	}
}

func checkSecretsRedacted(t *testing.T, asJSON bool) {
	split := func(s string) string { return "'" + s[:len(s)/2] + "' '" + s[len(s)/2:] + "'" }
	print := fakeapi.ToolUse("Bash", fakeapi.Input{
		"command": `printf '%s%s\n' ` + strings.Join([]string{
			split("aws_secret_access_key = " + e2eAWSSecret),
			split("remote https://deploy:" + e2eURLPass + "@git.example.com/x.git"),
			split("SLACK_TOKEN=" + e2eSlack),
			split("session=" + e2eJWT),
		}, " "),
		"description": "Print the deployment settings",
	})
	curl := fakeapi.ToolUse("Bash", fakeapi.Input{
		"command":     "curl -fsS https://deploy:" + e2eURLPass + "@127.0.0.1:9/health",
		"description": "Check the deployment",
	})
	s := newScenario(t, fakeapi.Turns(
		fakeapi.Say(print), fakeapi.Say(curl), fakeapi.Say(fakeapi.Text("Checked.")),
	))
	s.env.WriteSettings(t, claudetest.Settings{Permissions: &claudetest.Permissions{Ask: []string{"Bash(curl:*)"}}})
	s.writeConfig(config{})

	args := []string{"run", "Check the deployment at https://deploy:" + e2eURLPass + "@git.example.com"}
	if asJSON {
		args = []string{"run", "--json", args[1]}
	}
	p := s.start(args...)
	id := p.runID()
	wantExit(t, p, 0)

	if got := s.toolResult(print); got.IsError || !strings.Contains(got.Text, e2eSlack) {
		t.Fatalf("the Bash call did not print the secrets (the model got %+v): the test proves nothing", got)
	}
	if got := s.toolResult(curl); !got.IsError {
		t.Errorf("the curl call ran without an approval: %+v", got)
	}
	rec := s.loadRecord(id)
	req, ok := rec.has(runs.EventApprovalRequest, curl.ID)
	if !ok || !strings.Contains(string(req.Input), "https://deploy:[REDACTED]@127.0.0.1:9/health") {
		t.Errorf("approval request recorded %v with input %s; want the URL with its password masked", ok, req.Input)
	}

	events := readAll(t, filepath.Join(rec.info.Dir, "events.jsonl"))
	for _, masked := range []string{
		"aws_secret_access_key = [REDACTED]",
		"remote https://deploy:[REDACTED]@git.example.com/x.git",
		"SLACK_TOKEN=[REDACTED]",
		"session=[REDACTED]",
	} {
		if !strings.Contains(events, masked) {
			t.Errorf("events.jsonl lacks %q: the Bash output was not recorded as expected", masked)
		}
	}

	readable := s.start("runs", "events", id)
	wantExit(t, readable, 0)
	asLines := s.start("runs", "events", "--json", id)
	wantExit(t, asLines, 0)
	shown := map[string]string{
		"segwi run's output":              p.stdout.String() + p.stderr.String(),
		"segwi runs events":               readable.stdout.String(),
		"segwi runs events --json":        asLines.stdout.String(),
		"the run's record (events.jsonl)": events,
	}
	if asJSON {
		jsonLines(t, p.stdout.String()) // every line an event
	} else if !strings.Contains(p.stdout.String(), "SLACK_TOKEN=[REDACTED]") {
		t.Errorf("segwi run's output lacks the masked Slack token:\n%s", p.stdout.String())
	}
	for _, secret := range []string{e2eAWSSecret, e2eURLPass, e2eSlack, e2eJWT} {
		for where, text := range shown {
			if strings.Contains(text, secret) {
				t.Errorf("%s holds %q", where, secret)
			}
		}
		checkNoSecret(t, rec.info.Dir, secret) // events.jsonl, output.log, run.json, ...
	}
}
