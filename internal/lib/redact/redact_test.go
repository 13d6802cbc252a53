package redact

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

const (
	ghp     = "ghp_ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghij"
	pat     = "github_pat_11ABCDEFG0123456789_abcdefghijklmnopqrstuvwxyzABCDEFGHIJ"
	antKey  = "sk-ant-api03-AbCdEfGhIjKlMnOpQrStUvWxYz0123456789-xyz"
	awsKey  = "AKIA2E3NLQ7ZSKC5XF4T"
	runTok  = "Zm9vYmFyYmF6cXV4MTIzNDU2Nzg5MA"
	pemBody = "-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAA\nAAAAAAAAAAAAA=\n-----END OPENSSH PRIVATE KEY-----"
)

func TestStringRemovesSecrets(t *testing.T) {
	r := New(runTok)
	tests := []struct {
		name, in, want string
	}{
		{"a GitHub personal token in prose is masked", "token " + ghp + " here", "token [REDACTED] here"},
		{"every GitHub token prefix is masked", "gho_" + ghp[4:] + " ghs_" + ghp[4:] + " ghu_" + ghp[4:], "[REDACTED] [REDACTED] [REDACTED]"},
		{"a fine-grained GitHub token is masked", "x=" + pat, "x=[REDACTED]"},
		{"an Anthropic key is masked", `"key":"` + antKey + `"`, `"key":"[REDACTED]"`},
		{"an AWS access key id is masked", "aws " + awsKey + ".", "aws [REDACTED]."},
		{"a configured run token is masked anywhere", "abc" + runTok + "def", "abc[REDACTED]def"},
		{"an Authorization header keeps its scheme", "Authorization: Bearer abc.def-123", "Authorization: Bearer [REDACTED]"},
		{"an Authorization header in JSON keeps its quotes", `{"Authorization":"Basic dXNlcjpwYXNz"}`, `{"Authorization":"Basic [REDACTED]"}`},
		{"a lower-case header without a scheme is masked", "authorization=s3cr3tvalue", "authorization=[REDACTED]"},
		{"a bare bearer token is masked", "curl -H 'x: BEARER abcdef0123456789abcdef'", "curl -H 'x: BEARER [REDACTED]'"},
		{"prose about bearer tokens is left alone", "bearer tokens are checkedeverywhere", "bearer tokens are checkedeverywhere"},
		{"a private key block is masked whole", "key:\n" + pemBody + "\nafter", "key:\n[REDACTED PRIVATE KEY]\nafter"},
		{"a JSON-escaped private key block is masked", mustJSON(pemBody), `"[REDACTED PRIVATE KEY]"`},
		{"a public certificate is left alone", "-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----", "-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----"},
		{"a short gh_ word is left alone", "ghp_short and github", "ghp_short and github"},
		{"text with no secret is returned as it is", "hello, world", "hello, world"},
		{"an AKIA inside a longer upper-case word is left alone", "X" + awsKey + "X", "X" + awsKey + "X"},
		{"AWS's documented example key id is left alone, as gitleaks allows it", "aws AKIAIOSFODNN7EXAMPLE.", "aws AKIAIOSFODNN7EXAMPLE."},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := r.String(tt.in); got != tt.want {
				t.Errorf("String(%q)\n got %q\nwant %q", tt.in, got, tt.want)
			}
		})
	}
}

func mustJSON(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

func TestRedactedJSONStaysValid(t *testing.T) {
	r := New(`quote"secret\value`)
	in := map[string]string{
		"a": "Authorization: Bearer " + runTok + "\"x",
		"b": pemBody,
		"c": ghp + `\` + antKey,
		"d": `quote"secret\value`,
	}
	b, _ := json.Marshal(in)
	out := r.Bytes(b)
	var back map[string]string
	if err := json.Unmarshal(out, &back); err != nil {
		t.Fatalf("redacted JSON %s does not parse: %v", out, err)
	}
	for k, v := range back {
		for _, secret := range []string{runTok, ghp, antKey, "b3BlbnNzaC1rZXktdjEAAAAA", `quote"secret\value`} {
			if strings.Contains(v, secret) {
				t.Errorf("field %s = %q still holds %q", k, v, secret)
			}
		}
	}
}

func TestAddAndRemove(t *testing.T) {
	r := New()
	r.Add("tok-1234567890", "tok-1234567890", "short")
	if got := r.String("x tok-1234567890"); got != "x [REDACTED]" {
		t.Fatalf("after Add: got %q, want the token masked", got)
	}
	if got := r.String("short"); got != "short" {
		t.Errorf("a secret under 8 bytes: got %q, want it left alone", got)
	}
	r.Remove("tok-1234567890")
	if got := r.String("x tok-1234567890"); got != "x [REDACTED]" {
		t.Errorf("after one Remove of two Adds: got %q, want the token still masked", got)
	}
	r.Remove("tok-1234567890")
	if got := r.String("x tok-1234567890"); got != "x tok-1234567890" {
		t.Errorf("after the last Remove: got %q, want the token kept", got)
	}
}

func TestLinesCarriesAPrivateKeyAcrossLines(t *testing.T) {
	l := New().Lines()
	var out []byte
	for _, line := range strings.SplitAfter("before\n"+pemBody+" tail "+ghp+"\nafter\n", "\n") {
		out = l.Append(out, []byte(line))
	}
	want := "before\n[REDACTED PRIVATE KEY]\n tail [REDACTED]\nafter\n"
	if string(out) != want {
		t.Errorf("got %q, want %q", out, want)
	}
}

func TestAppendBytesReusesTheBuffer(t *testing.T) {
	r := New()
	buf := make([]byte, 0, 64)
	buf = r.AppendBytes(buf[:0], []byte("a "+ghp))
	if got := string(buf); got != "a [REDACTED]" {
		t.Errorf("got %q, want %q", got, "a [REDACTED]")
	}
	buf = r.AppendBytes(buf[:0], []byte("plain"))
	if got := string(buf); got != "plain" {
		t.Errorf("got %q, want %q", got, "plain")
	}
}

func FuzzRedactKeepsJSONValid(f *testing.F) {
	f.Add("Authorization: Bearer abc", ghp)
	f.Add(pemBody, "sk-ant-"+strings.Repeat("a", 20))
	f.Add("-----BEGIN PRIVATE KEY-----", "0") // an unterminated block must not eat the quotes
	f.Add(`{"SecretAccessKey": "`+awsSecret+`"}`, "https://u:"+urlPass+"@h")
	f.Add(slackBot+"\n"+jwt, "redis://:x\"@y")
	f.Add("token: \x1b[01;31m"+ghp[:9]+"\x1b[m"+ghp[9:], `https:\/\/u:p/w#d@h\/x`)
	f.Add(`{"k":"sk_live_51HxKq9mZt4WvN7bYc3LpD6fHs1JgA0eUiO5rT\"}`, "\u001b]8;;x\u001b\\glpat-9xKq2mZt4WvN7bYc3LpD")
	f.Add("-----BEGIN PGP PRIVATE KEY BLOCK-----\nx\"y", "map[Authorization:[Basic \"dXNlcg==]]")
	r := New("configured-secret-1")
	f.Fuzz(func(t *testing.T, a, b string) {
		in, _ := json.Marshal([]string{a, b})
		out := r.Bytes(in)
		if !json.Valid(out) {
			t.Fatalf("redacting %s gave invalid JSON %s", in, out)
		}
	})
}

func BenchmarkBytes(b *testing.B) {
	r := New(runTok, "another-configured-token-0123")
	line := []byte(`{"type":"assistant","message":{"content":[{"type":"text","text":"` +
		strings.Repeat("The quick brown fox jumps over the lazy dog; right, github is bright. ", 20) + `"}]}}`)
	buf := make([]byte, 0, 2*len(line))
	b.SetBytes(int64(len(line)))
	for b.Loop() {
		buf = r.AppendBytes(buf[:0], line)
	}
}

func TestHoldsTellsWhetherTextHoldsASecret(t *testing.T) {
	r := New(runTok)
	for _, tt := range []struct {
		in   string
		want bool
	}{
		{"git ls-remote https://deploy:hunter2hunter2@github.com/acme/app.git", true},
		{"git status\n" + pemBody, true},
		{"echo " + runTok, true},
		{`{"command":"echo \u001b[31m` + ghp[:6] + `\u001b[0m` + ghp[6:] + `"}`, true},
		{"STRIPE_KEY=sk_live_51HxKq9mZt4WvN7bYc3LpD6fHs1JgA0eUiO5rT npm start", true},
		{`{"command":"go test ./..."}`, false},
		{"", false},
	} {
		if got := r.Holds([]byte(tt.in)); got != tt.want {
			t.Errorf("Holds(%q) = %v, want %v", tt.in, got, tt.want)
		}
		if got, masked := r.Holds([]byte(tt.in)), r.String(tt.in) != tt.in; got != masked {
			t.Errorf("Holds(%q) = %v, but String masks something: %v", tt.in, got, masked)
		}
	}
}

// Any bytes at all, broken escapes and cut terminal sequences among them, are redacted
// without a panic, and a configured secret never survives whole.
func FuzzRedactAnyBytes(f *testing.F) {
	f.Add([]byte(`\u00`), []byte("\x1b]"))
	f.Add([]byte(`https:\\\/\\\/u:`), []byte(`\ud83d\`))
	f.Add([]byte("ghp_\x1b[3"), []byte(`\\\\\"`))
	const secret = "configured-secret-1"
	r := New(secret)
	f.Fuzz(func(t *testing.T, a, b []byte) {
		in := append(append(append([]byte{}, a...), secret...), b...)
		if out := r.Bytes(in); bytes.Contains(out, []byte(secret)) {
			t.Fatalf("Bytes(%q) = %q keeps the secret", in, out)
		}
	})
}

// BenchmarkToolResults redacts stream-json lines as a run's tool results carry them: Go
// source (segwi's runs package and its record, 200 lines a result), escaped into a JSON
// string, with its keywords, quotes and URLs.
func BenchmarkToolResults(b *testing.B) {
	files, err := filepath.Glob("../../../runs/*.go")
	record, _ := filepath.Glob("../../../runs/record/*.go") // once part of runs
	files = append(files, record...)
	if err != nil || len(files) == 0 {
		b.Fatalf("no Go source to read: %v", err)
	}
	var lines [][]byte
	size := 0
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			b.Fatal(err)
		}
		src := strings.SplitAfter(string(data), "\n")
		for i := 0; i < len(src); i += 200 {
			content, _ := json.Marshal(strings.Join(src[i:min(i+200, len(src))], ""))
			line := []byte(`{"type":"user","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_01","content":` + string(content) + `}]}}` + "\n")
			lines = append(lines, line)
			size += len(line)
		}
	}
	r := New(runTok, "another-configured-token-0123")
	var buf []byte
	b.SetBytes(int64(size))
	for b.Loop() {
		for _, line := range lines {
			buf = r.AppendBytes(buf[:0], line)
		}
	}
}
