package redact

import (
	"slices"
	"testing"
)

// Claude Code's every start names its tools and where its API key comes from, and "sk"
// in "Task" and "ey" in "apiKeySource" are the keywords of gitleaks' twilio and jwt rules.
// Each segwi run is a fresh process that redacts that line: it compiled both rules'
// expressions for it, about a millisecond of the run's CPU on the second machine of the
// README's figures, though the bytes at either keyword could start no match. The gate
// turns such keywords away before anything is compiled; a real key still compiles its
// rule and is found.
func TestAKeywordInACommonWordCompilesNoExpression(t *testing.T) {
	m := newMatcher()
	rule := func(id string) *compiledRule {
		i := slices.IndexFunc(m.rules, func(r *compiledRule) bool { return r.id == id })
		if i < 0 {
			t.Fatalf("no rule %s applied", id)
		}
		return m.rules[i]
	}
	twilio, jwt := rule("twilio-api-key"), rule("jwt")
	find := func(text string) []span {
		b := []byte(text)
		return new(scratch).rules(m, b, m.words.scan(b, nil), nil)
	}

	start := `{"type":"system","subtype":"init","tools":["Task","AskUserQuestion","Bash"],"apiKeySource":"ANTHROPIC_API_KEY","permissionMode":"auto"}`
	if spans := find(start); len(spans) != 0 {
		t.Errorf("Claude Code's start line: %d secrets found, want none: %v", len(spans), spans)
	}
	for _, r := range []*compiledRule{twilio, jwt} {
		if r.anchoredSrc == "" {
			t.Fatalf("rule %s is not tried at its keywords (anchored): this test no longer says anything about it", r.id)
		}
		if r.anchored != nil {
			t.Errorf("rule %s: its expression was compiled for Claude Code's start line, where no match can start at its keyword", r.id)
		}
	}

	key := "SK" + "0123456789abcdef0123456789abcdef"
	token := "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiJzZWd3aS10ZXN0Iiwia2V5IjoiYjc0ZmUzIn0.3q2-7wZkYXN0X3NpZ25hdHVyZV9vZl90aGVfdGVzdA"
	for _, c := range []struct {
		r      *compiledRule
		secret string
	}{{twilio, key}, {jwt, token}} {
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
