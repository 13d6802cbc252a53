package redact

import (
	"slices"
	"testing"
)

// Claude Code's every start names its tools and where its API key comes from, and its
// every turn says how it managed the context: "sk" in "Task", "ey" in "apiKeySource" and
// "ext_" in "context_management" are keywords of gitleaks' twilio, jwt and authress
// rules. Each segwi run is a fresh process that redacts those lines: it compiled the
// three rules' expressions for them, about 2.5 ms of the run's CPU on the second machine
// of the README's figures, though no match can start at any of those keywords (authress'
// tokens begin at a word's start, \b). The gate and the word boundary now turn such
// keywords away before anything is compiled; a real key still compiles its rule and is
// found.
func TestAKeywordInACommonWordCompilesNoExpression(t *testing.T) {
	m := newMatcher()
	rule := func(id string) *compiledRule {
		i := slices.IndexFunc(m.rules, func(r *compiledRule) bool { return r.id == id })
		if i < 0 {
			t.Fatalf("no rule %s applied", id)
		}
		return m.rules[i]
	}
	twilio, jwt, authress := rule("twilio-api-key"), rule("jwt"), rule("authress-service-client-access-key")
	find := func(text string) []span {
		b := []byte(text)
		return new(scratch).rules(m, b, m.words.scan(b, nil), nil)
	}

	for _, line := range []string{
		`{"type":"system","subtype":"init","tools":["Task","AskUserQuestion","Bash"],"apiKeySource":"ANTHROPIC_API_KEY","permissionMode":"auto"}`,
		`{"type":"assistant","message":{"usage":{"input_tokens":12,"cache_read_input_tokens":0},"context_management":null}}`,
	} {
		if spans := find(line); len(spans) != 0 {
			t.Errorf("%s: %d secrets found, want none: %v", line, len(spans), spans)
		}
	}
	for _, r := range []*compiledRule{twilio, jwt, authress} {
		if r.anchoredSrc == "" {
			t.Fatalf("rule %s is not tried at its keywords (anchored): this test no longer says anything about it", r.id)
		}
		if r.anchored != nil {
			t.Errorf("rule %s: its expression was compiled for Claude Code's lines, where no match can start at its keyword", r.id)
		}
	}

	key := "SK" + "0123456789abcdef0123456789abcdef"
	token := "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiJzZWd3aS10ZXN0Iiwia2V5IjoiYjc0ZmUzIn0.3q2-7wZkYXN0X3NpZ25hdHVyZV9vZl90aGVfdGVzdA"
	for _, c := range []struct {
		r      *compiledRule
		secret string
	}{{twilio, key}, {jwt, token}, {authress, "sc_k3y5b0x9.a1b2c.acc_0f1e2d3c4b5a6978.Zx9Qw8Er7Ty6Ui5Op4As3Df2Gh1Jk0LmNbVcXz"}} {
		text := `{"output":"` + c.secret + `"}`
		spans := find(text)
		if !slices.ContainsFunc(spans, func(s span) bool { return text[s.start:s.end] == c.secret }) {
			t.Errorf("rule %s: %q not found in %s (spans %v)", c.r.id, c.secret, text, spans)
		}
		if c.r.anchored == nil {
			t.Errorf("rule %s found a secret without its expression compiled", c.r.id)
		}
	}
}
