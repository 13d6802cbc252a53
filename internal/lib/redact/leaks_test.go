package redact

import (
	"encoding/json"
	"strings"
	"testing"
)

// The secrets below reached events.jsonl, output.log and what segwi printed, verbatim,
// when an attack on segwi (issue 10) printed them from a run's Bash tool.
const (
	awsSecret = "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY"
	urlPass   = "s3cr3t-Pa55word"
	slackBot  = "xoxb-2048123456789-2049876543210-AbCdEfGhIjKlMnOpQrStUvWx"
	slackApp  = "xapp-1-A0123456789-4096123456789-0123456789abcdef0123456789abcdef"
	jwt       = "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiIxMjM0NTY3ODkwIiwibmFtZSI6IkpvaG4ifQ.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U"
)

func TestStringRemovesTheSecretsAnAttackLeaked(t *testing.T) {
	r := New()
	tests := []struct {
		name, in, want string
	}{
		// AWS secret access keys, in the forms the AWS tools and SDKs write them.
		{"an AWS secret key in a credentials file is masked", "aws_secret_access_key = " + awsSecret, "aws_secret_access_key = [REDACTED]"},
		{"an AWS secret key in the environment is masked", "export AWS_SECRET_ACCESS_KEY=" + awsSecret + " && aws s3 ls", "export AWS_SECRET_ACCESS_KEY=[REDACTED] && aws s3 ls"},
		{"an AWS secret key in JSON is masked", `{"AccessKeyId": "` + awsKey + `", "SecretAccessKey": "` + awsSecret + `"}`, `{"AccessKeyId": "[REDACTED]", "SecretAccessKey": "[REDACTED]"}`},
		{"an AWS secret key in JSON inside a JSON string is masked", `"{\"SecretAccessKey\":\"` + awsSecret + `\"}"`, `"{\"SecretAccessKey\":\"[REDACTED]\"}"`},
		{"an AWS secret key in YAML is masked", "secretAccessKey: '" + awsSecret + "'", "secretAccessKey: '[REDACTED]'"},
		{"an AWS secret key given to aws configure is masked", "aws configure set aws_secret_access_key " + awsSecret, "aws configure set aws_secret_access_key [REDACTED]"},
		// Passwords in URLs.
		{"the password of an https URL is masked", "git clone https://deploy:" + urlPass + "@git.example.com/x.git", "git clone https://deploy:[REDACTED]@git.example.com/x.git"},
		{"a percent-encoded password of a database URL is masked", "DATABASE_URL=postgres://app:p%40ss-" + urlPass + "@db:5432/app", "DATABASE_URL=postgres://app:[REDACTED]@db:5432/app"},
		{"a URL password with no user is masked", `"url": "redis://:` + urlPass + `@cache:6379/0"`, `"url": "redis://:[REDACTED]@cache:6379/0"`},
		{"a URL password inside an escaped JSON string is masked", `"{\"remote\":\"https://u:` + urlPass + `@h.example/r\"}"`, `"{\"remote\":\"https://u:[REDACTED]@h.example/r\"}"`},
		{"a URL password after an escaped newline is masked", `"text":"remote:\nhttps://bot:` + urlPass + `@ci.example"`, `"text":"remote:\nhttps://bot:[REDACTED]@ci.example"`},
		{"a token as a URL's user is masked", "https://0123456789abcdef0123456789abcdef01234567@github.com/x/y", "https://[REDACTED]@github.com/x/y"},
		// Slack tokens.
		{"a Slack bot token is masked", "SLACK_TOKEN=" + slackBot, "SLACK_TOKEN=[REDACTED]"},
		{"every Slack token prefix is masked", "xoxp-" + slackBot[5:] + " xoxa-" + slackBot[5:] + " xoxr-" + slackBot[5:] + " xoxs-" + slackBot[5:], "[REDACTED] [REDACTED] [REDACTED] [REDACTED]"},
		{"a Slack app token is masked", `{"app_token":"` + slackApp + `"}`, `{"app_token":"[REDACTED]"}`},
		{"a Slack token after an escaped newline is masked", `"ok\n` + slackBot + `\n"`, `"ok\n[REDACTED]\n"`},
		// JSON Web Tokens.
		{"a JWT in a cookie is masked", "Cookie: session=" + jwt + "; Path=/", "Cookie: session=[REDACTED]; Path=/"},
		{"a JWT in JSON is masked", `{"id_token":"` + jwt + `"}`, `{"id_token":"[REDACTED]"}`},
		{"a JWT after an escaped tab is masked", `"\t` + jwt + `"`, `"\t[REDACTED]"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := r.String(tt.in); got != tt.want {
				t.Errorf("String(%q)\n got %q\nwant %q", tt.in, got, tt.want)
			}
		})
	}
}

// Redaction that eats ordinary text hides what a run did: these look a little like
// secrets and must stay.
func TestStringLeavesLookalikesAlone(t *testing.T) {
	r := New()
	for _, in := range []string{
		"the password is in the vault",
		"see https://github.com/x and http://localhost:8080/path?user=a@b.example",
		"ssh://git@github.com/x/y.git and https://x-access-token@github.com",
		"set aws_secret_access_key in ~/.aws/credentials",
		"AWS_SECRET_ACCESS_KEY=$AWS_SECRET_ACCESS_KEY",
		`secret_access_key: "<your key>"`,
		"the successful access key rotation",
		"xoxb- tokens start with xoxb, and my xbox is off",
		"eyJhbGciOiJIUzI1NiJ9 alone is a base64 header, not a token",
		"time: 12:30:45, ratio 3:4, scheme://",
	} {
		if got := r.String(in); got != in {
			t.Errorf("String(%q)\n got %q\nwant it unchanged", in, got)
		}
	}
}

// A stream-json line holds what the agent read inside JSON strings, so a secret sits
// next to escaped quotes and backslashes; masking it must keep the line valid JSON.
func TestRedactingTheLeakedKindsKeepsJSONValid(t *testing.T) {
	inner, _ := json.Marshal(map[string]string{
		"SecretAccessKey": awsSecret,
		"url":             "https://u:" + urlPass + "@h.example",
		"slack":           slackBot,
		"jwt":             jwt,
	})
	line, _ := json.Marshal(map[string]any{"type": "user", "content": string(inner), "raw": map[string]string{
		"aws_secret_access_key": awsSecret, "remote": "https://u:" + urlPass + "@h", "token": slackApp,
	}})
	out := New().Bytes(line)
	if !json.Valid(out) {
		t.Fatalf("redacted line is not JSON:\n%s", out)
	}
	for _, secret := range []string{awsSecret, urlPass, slackBot, slackApp, jwt} {
		if strings.Contains(string(out), secret) {
			t.Errorf("%q kept in %s", secret, out)
		}
	}
}
