package redact

import (
	"encoding/json"
	"strings"
	"testing"
)

// The secrets below reached events.jsonl, output.log and what segwi printed, or were not
// masked at all, when a run printed them in an attack on segwi (issue 20). Each is a
// sample of its rule family: the real tokens' shapes, with made-up contents.
const (
	ghpToken     = "ghp_R8x2mKq9ZtW4vN7bYc3LpD6fHs1JgA0eUiO5"
	gitlabToken  = "glpat-9xKq2mZt4WvN7bYc3LpD"
	googleKey    = "AIzaSyB3xKq9mZt4WvN7bYc3LpD6fHs1JgA0eUi"
	stripeKey    = "sk_live_51HxKq9mZt4WvN7bYc3LpD6fHs1JgA0eUiO5rT"
	openAIKey    = "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"
	npmToken     = "npm_x9Kq2mZt4WvN7bYc3LpD6fHs1JgA0eUiO5rT"
	sendgridKey  = "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"
	hfToken      = "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"
	awsSecretTab = "aWsS3cr3tK3yW1thAT4bB3f0r3Th3Equ4lsS1gn0"
	basicCred    = "ZGVwbG95OnMzY3IzdC1wYXNzd29yZA=="
	pgpBlock     = "-----BEGIN PGP PRIVATE KEY BLOCK-----\n\nlQOYBF2Kq9MBCAC7x9Kq2mZt4WvN7bYc3LpD6fHs1JgA0eUiO5rT\n=x9Kq\n-----END PGP PRIVATE KEY BLOCK-----"
)

// leakedShapes are the texts that leaked, each with the secret that must go and what
// must stay around it.
var leakedShapes = []struct {
	name, text, secret, kept string
}{
	{"an AWS secret key with a tab before '='", "aws_secret_access_key\t= " + awsSecretTab, awsSecretTab, "aws_secret_access_key"},
	{"an AWS secret key with tabs around ':'", "SecretAccessKey\t:\t" + awsSecretTab, awsSecretTab, "SecretAccessKey"},
	{"a Go header dump", "req.Header = map[Authorization:[Basic " + basicCred + "] Accept:[*/*]]", basicCred, "map[Authorization:[Basic "},
	{"a Go header dump of a bearer token", "map[Authorization:[Bearer " + ghpToken[4:] + "]]", ghpToken[4:], "Authorization:[Bearer "},
	{"a URL password holding '/'", "git clone https://deploy:s3cr3t/Pa55word@git.example.com/x.git", "s3cr3t/Pa55word", "https://deploy:"},
	{"a URL password holding '#'", "remote https://deploy:s3cr3t#Pa55word@git.example.com/x.git", "s3cr3t#Pa55word", "@git.example.com/x.git"},
	{"a URL password holding '?' and '/'", "DATABASE_URL=postgres://app:pa?ss/w0rd@db:5432/app", "pa?ss/w0rd", "postgres://app:"},
	{"a URL with escaped slashes", `{"remote":"https:\/\/deploy:s3cr3t-Pa55word@git.example.com\/x.git"}`, "s3cr3t-Pa55word", `https:\/\/deploy:`},
	{"a URL with escaped slashes inside a JSON string", `"{\"remote\":\"https:\\\/\\\/deploy:s3cr3t-Pa55word@h.example\"}"`, "s3cr3t-Pa55word", `deploy:`},
	{"a GitHub token split by grep --color=always", "token: \x1b[01;31m\x1b[K" + ghpToken[:9] + "\x1b[m\x1b[K" + ghpToken[9:], ghpToken[9:], "token: \x1b[01;31m\x1b[K"},
	{"a GitHub token split by colours escaped in JSON", `{"content":"token: \u001b[01;31m\u001b[K` + ghpToken[:9] + `\u001b[m\u001b[K` + ghpToken[9:] + `"}`, ghpToken[9:], `{"content":"token: \u001b[01;31m\u001b[K`},
	{"a GitHub token after a terminal sequence cut short", "token: \x1b[3" + ghpToken, ghpToken[1:], "token: \x1b[3"},
	{"a GitHub token with an escaped character", `{"t":"\u0067hp_` + ghpToken[4:] + `"}`, ghpToken[4:], `{"t":"`},
	{"a GitLab token", "export GITLAB_TOKEN=" + gitlabToken, gitlabToken, "export GITLAB_TOKEN="},
	{"a Google API key", `{"apiKey": "` + googleKey + `"}`, googleKey, `{"apiKey": "`},
	{"a Stripe live key", "stripe.api_key = '" + stripeKey + "'", stripeKey, "stripe.api_key = '"},
	{"an OpenAI project key", "OPENAI_API_KEY=" + openAIKey, openAIKey, "OPENAI_API_KEY="},
	{"an npm token", "//registry.npmjs.org/:_authToken=" + npmToken, npmToken, "//registry.npmjs.org/:_authToken="},
	{"a SendGrid key", "SENDGRID_API_KEY=" + sendgridKey + "\n", sendgridKey, "SENDGRID_API_KEY="},
	{"a Hugging Face token", "huggingface-cli login --token " + hfToken, hfToken, "huggingface-cli login --token "},
	{"a PGP private key block", "gpg --export-secret-keys -a:\n" + pgpBlock + "\ndone", "lQOYBF2Kq9MBCAC7x9Kq2mZt4WvN7bYc3LpD6fHs1JgA0eUiO5rT", "done"},
}

func TestTheShapesThatLeakedAreMasked(t *testing.T) {
	r := New()
	for _, tt := range leakedShapes {
		t.Run(tt.name, func(t *testing.T) {
			got := r.String(tt.text)
			if strings.Contains(got, tt.secret) {
				t.Errorf("String(%q)\n = %q\nkeeps %q", tt.text, got, tt.secret)
			}
			if !strings.Contains(got, tt.kept) || !strings.Contains(got, "[REDACTED") {
				t.Errorf("String(%q)\n = %q\nwant %q kept and the secret masked", tt.text, got, tt.kept)
			}
		})
	}
}

// The same texts as a run's record carries them: inside a stream-json line (a JSON string
// in a JSON document), and inside JSON that the agent read, itself inside that line. Each
// must be masked there too, and the line must stay valid JSON.
func TestTheShapesThatLeakedAreMaskedInsideJSON(t *testing.T) {
	r := New()
	for _, tt := range leakedShapes {
		t.Run(tt.name, func(t *testing.T) {
			inner, _ := json.Marshal(map[string]string{"stdout": tt.text})
			for _, line := range []string{
				mustJSON(tt.text),
				`{"type":"user","content":` + mustJSON(string(inner)) + `}`,
			} {
				got := r.String(line)
				if !json.Valid([]byte(got)) {
					t.Fatalf("String(%s)\n = %s, not JSON", line, got)
				}
				var back any
				json.Unmarshal([]byte(got), &back)
				flat, _ := json.Marshal(back)
				for _, s := range []string{got, unquoteAll(got)} {
					if strings.Contains(s, tt.secret) || strings.Contains(string(flat), tt.secret) {
						t.Errorf("String(%s)\n = %s\nkeeps %q", line, got, tt.secret)
					}
				}
			}
		})
	}
}

// unquoteAll undoes a JSON string's escapes, twice (JSON in a JSON string).
func unquoteAll(s string) string {
	for range 2 {
		var v string
		if json.Unmarshal([]byte(`"`+strings.ReplaceAll(s, `"`, `\"`)+`"`), &v) == nil {
			s = v
		}
		s = strings.NewReplacer(`\"`, `"`, `\\`, `\`, `\/`, `/`).Replace(s)
	}
	return s
}

// What redaction keeps of the text around a secret is byte for byte what it was: colour
// sequences outside the secret, escapes, the JSON around it.
func TestRedactionKeepsTheOtherBytes(t *testing.T) {
	r := New()
	for _, tt := range []struct{ name, in, want string }{
		{"colours around a token stay", "\x1b[32mok\x1b[0m " + ghpToken + " \x1b[1mdone\x1b[0m", "\x1b[32mok\x1b[0m [REDACTED] \x1b[1mdone\x1b[0m"},
		{"a token split by colours is masked with its colours inside", "a \x1b[31m" + ghpToken[:8] + "\x1b[0m" + ghpToken[8:] + " b", "a \x1b[31m[REDACTED] b"},
		{"escaped slashes around a URL password stay", `"https:\/\/u:pw-s3cr3t@h.example\/p"`, `"https:\/\/u:[REDACTED]@h.example\/p"`},
		{"escapes that are not part of the secret stay", `"a\tb\n` + gitlabToken + `\n\u00e9"`, `"a\tb\n[REDACTED]\n\u00e9"`},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if got := r.String(tt.in); got != tt.want {
				t.Errorf("String(%q)\n got %q\nwant %q", tt.in, got, tt.want)
			}
		})
	}
}

// Text that looks a little like the new shapes stays as it is.
func TestTheNewShapesLeaveLookalikesAlone(t *testing.T) {
	r := New()
	for _, in := range []string{
		"see https://github.com/x/y/blob/main/a#L10 and http://localhost:8080/path?user=a@b.example",
		"ssh://git@github.com/x/y.git#main",
		"map[Accept:[*/*] Authorization:[]]",
		"the glpat- prefix marks GitLab tokens; sk_live_ marks Stripe's",
		"tests. s.Close() s.handleIncomingRequestXY; the task is done",
		"npm_config_cache=/tmp/npm and hf_hub_download(repo_id)",
		"AKIAIOSFODNN7EXAMPLE is AWS's documented example",
		"\x1b[1;31mFAIL\x1b[0m web/login \x1b[2K\x1b[1G",
		`{"path":"C:\\users\\me","url":"https:\/\/example.com\/a"}`,
	} {
		if got := r.String(in); got != in {
			t.Errorf("String(%q)\n got %q\nwant it unchanged", in, got)
		}
	}
}

// A private key block cut short (no END line) is masked to the end of the JSON string it
// is in, all its lines: read through a view, the string's \n are lines, and masking to
// the first of them left the rest of the key.
func TestAnUnterminatedKeyIsMaskedToTheEndOfItsString(t *testing.T) {
	line := `{"a":"say \"hi\"","k":"-----BEGIN RSA PRIVATE KEY-----\nMIIEpAIBAAKCAQEA\nzq81secretTail","b":"after"}`
	got := New().String(line)
	if strings.Contains(got, "MIIEpAIBAAKCAQEA") || strings.Contains(got, "zq81secretTail") || !json.Valid([]byte(got)) {
		t.Errorf("String(%s)\n = %s\nwant the key's lines masked and valid JSON", line, got)
	}
	if !strings.Contains(got, `"b":"after"`) {
		t.Errorf("String(%s)\n = %s\nwant the next field kept", line, got)
	}
}

// A PGP key block printed by gpg reaches output.log line by line: every line of it goes
// (the END line's newline stays, as a PEM block's does).
func TestLinesMasksAPGPBlockAcrossLines(t *testing.T) {
	l := New().Lines()
	var out []byte
	for _, line := range strings.SplitAfter("before\n"+pgpBlock+"\nafter\n", "\n") {
		out = l.Append(out, []byte(line))
	}
	if want := "before\n[REDACTED PRIVATE KEY]\n\nafter\n"; string(out) != want {
		t.Errorf("got %q, want %q", out, want)
	}
}
