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
	twoAtATime(t)
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

// The shapes an attack on segwi (issue 20) saw leak, or saw no rule for at all. Each is
// split in two in the command that prints it, so that only the output holds it whole;
// secret is what must not be found anywhere (for the token that grep colours, the part
// after the colour sequences, which is all that is whole in the output).
var issue20Shapes = []struct {
	name, printf, a, b, secret string
}{
	{"an AWS secret key with a tab before '='", `aws_secret_access_key\t= %s%s\n`, "aWsS3cr3tK3yW1th", "AT4bB3f0r3Th3Equ4lsS1gn0", "aWsS3cr3tK3yW1thAT4bB3f0r3Th3Equ4lsS1gn0"},
	{"a Go header dump", `req.Header = map[Authorization:[Basic %s%s] Accept:[*/*]]\n`, "ZGVwbG95OnMz", "Y3IzdC1wYXNzd29yZA==", "ZGVwbG95OnMzY3IzdC1wYXNzd29yZA=="},
	{"a URL password holding '/' and '#'", `remote https://deploy:%s%s@git.example.com/x.git\n`, "e2e/Pa55", "#w0rd-zq81", "e2e/Pa55#w0rd-zq81"},
	{"a URL with escaped slashes", `{"remote":"https:\\/\\/deploy:%s%s@git.example.com\\/x.git"}\n`, "e2e-Esc4ped", "-Pa55word", "e2e-Esc4ped-Pa55word"},
	{"a GitLab token", `GITLAB_TOKEN=%s%s\n`, "glpat-e2eKq2mZ", "t4WvN7bYc3LpD", "glpat-e2eKq2mZt4WvN7bYc3LpD"},
	{"a Google API key", `{"apiKey": "%s%s"}\n`, "AIzaSyE2eKq9mZt4WvN7", "bYc3LpD6fHs1JgA0eUi", "AIzaSyE2eKq9mZt4WvN7bYc3LpD6fHs1JgA0eUi"},
	{"a Stripe live key", `stripe.api_key = '%s%s'\n`, "sk_live_51E2eKq9mZt4WvN7", "bYc3LpD6fHs1JgA0eUiO5rT", "sk_live_51E2eKq9mZt4WvN7bYc3LpD6fHs1JgA0eUiO5rT"},
	{"an OpenAI project key", `OPENAI_API_KEY=%s%s\n`,
		"sk-proj-E2ezWEV_NmNnMndQ5gn6PjFcX_9ay5SEKse8AL0EuYAB0cIgFW7Equ3vCbUbYShvii6L3rBw3WT3BlbkFJ",
		"dD9FqO9Z3BoBu9F-KFR6YJtvW6fUfqg2o2Lfel3diT3OCRmBB24hjcd_uLEjgr9tCqnnerVw8A",
		"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"},
	{"an npm token", `//registry.npmjs.org/:_authToken=%s%s\n`, "npm_e2eKq2mZt4WvN7bYc", "3LpD6fHs1JgA0eUiO5r", "npm_e2eKq2mZt4WvN7bYc3LpD6fHs1JgA0eUiO5r"},
	{"a SendGrid key", `SENDGRID_API_KEY=%s%s\n`, "SG.e2Kq2mZt4WvN7bYc3LpD6f.Hs1JgA0e", "UiO5rTx9Kq2mZt4WvN7bYc3LpD6fHs1JgA0", "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"},
	{"a Hugging Face token", `huggingface-cli login --token %s%s\n`, "hf_eKqmZtWvNbYcLpDfH", "sJgAeUiOrTxKqmZtW", "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"},
	{"a PGP private key block", `-----BEGIN PGP PRIVATE KEY BLOCK-----\n\n%s%s\n=x9Kq\n-----END PGP PRIVATE KEY BLOCK-----\n`, "lQOYBF2E2eMBCAC7x9Kq2mZt", "4WvN7bYc3LpD6fHs1JgA0eUiO5rT", "lQOYBF2E2eMBCAC7x9Kq2mZt4WvN7bYc3LpD6fHs1JgA0eUiO5rT"},
}

// e2eGrepToken is printed by grep --color=always, which parts it with colour sequences
// after the pattern it matched (ghp_E2eG): only the rest is whole in the output.
const e2eGrepToken = "ghp_E2eGrepR8x2mKq9ZtW4vN7bYc3LpD6fHs1J"

// TestTheShapesIssue20FoundAreRedactedEverywhere runs a Bash call that prints each shape of
// issue 20, and one that greps a token with colours, in a run whose prompt holds a Stripe
// key: no secret may reach events.jsonl, output.log, run.json's prompt or any file of the
// run, what segwi run printed (readable or --json), or segwi runs events.
func TestTheShapesIssue20FoundAreRedactedEverywhere(t *testing.T) {
	twoAtATime(t)
	for _, asJSON := range []bool{false, true} {
		name := "segwi run prints readable lines"
		if asJSON {
			name = "segwi run --json prints events"
		}
		t.Run(name, func(t *testing.T) { checkIssue20ShapesRedacted(t, asJSON) })
	}
}

func checkIssue20ShapesRedacted(t *testing.T, asJSON bool) {
	var cmds []string
	for _, s := range issue20Shapes {
		cmds = append(cmds, "printf -- '"+strings.ReplaceAll(s.printf, "'", `'\''`)+"' '"+s.a+"' '"+s.b+"'")
	}
	print := fakeapi.ToolUse("Bash", fakeapi.Input{
		"command":     strings.Join(cmds, "; "),
		"description": "Print the deployment settings",
	})
	grep := fakeapi.ToolUse("Bash", fakeapi.Input{
		"command":     "printf 'token=%s%s\\n' '" + e2eGrepToken[:12] + "' '" + e2eGrepToken[12:] + "' > tokens.txt && grep --color=always 'ghp_E2eG' tokens.txt",
		"description": "Find the token",
	})
	s := newScenario(t, fakeapi.Turns(
		fakeapi.Say(print), fakeapi.Say(grep), fakeapi.Say(fakeapi.Text("Checked.")),
	))
	s.writeConfig(config{})
	const stripePrompt = "sk_live_51PromptKq9mZt4WvN7bYc3LpD6fHs1JgA0"
	args := []string{"run", "Deploy with STRIPE_KEY=" + stripePrompt + " and check the settings"}
	if asJSON {
		args = []string{"run", "--json", args[1]}
	}
	p := s.start(args...)
	id := p.runID()
	wantExit(t, p, 0)

	printed := s.toolResult(print)
	for _, sh := range issue20Shapes {
		if !strings.Contains(printed.Text, sh.secret) {
			t.Fatalf("the Bash call did not print %s (the model got %+v): the test proves nothing", sh.name, printed)
		}
	}
	if got := s.toolResult(grep); !strings.Contains(got.Text, "\x1b[") || !strings.Contains(got.Text, e2eGrepToken[8:]) {
		t.Fatalf("grep --color=always printed %q, want the token parted by colour sequences: the test proves nothing", got.Text)
	}

	rec := s.loadRecord(id)
	events := readAll(t, filepath.Join(rec.info.Dir, "events.jsonl"))
	if n := strings.Count(events, "[REDACTED"); n < len(issue20Shapes)+2 {
		t.Errorf("events.jsonl holds %d masks, want one for each of the %d shapes, the grepped token and the prompt's key", n, len(issue20Shapes))
	}
	if strings.Contains(rec.info.Prompt, "sk_live_") && !strings.Contains(rec.info.Prompt, "[REDACTED]") {
		t.Errorf("run.json's prompt is %q, want the Stripe key masked", rec.info.Prompt)
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
		jsonLines(t, p.stdout.String())
	}
	secrets := []string{stripePrompt, e2eGrepToken[8:]}
	for _, sh := range issue20Shapes {
		secrets = append(secrets, sh.secret)
	}
	for _, secret := range secrets {
		for where, text := range shown {
			if strings.Contains(text, secret) || strings.Contains(text, strings.ReplaceAll(secret, "/", `\/`)) {
				t.Errorf("%s holds %q", where, secret)
			}
		}
		checkNoSecret(t, rec.info.Dir, secret) // events.jsonl, output.log, run.json, ...
	}
}
