package redact

import (
	"encoding/json"
	"os"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// gitleaksExamples reads the true and false positives that gitleaks tests each rule with
// (testdata/gitleaks-examples.json, written by go generate from the pinned module).
func gitleaksExamples(t *testing.T) map[string]struct{ TPs, FPs []string } {
	// A rule gitleaks has no examples of has strings drawn from its expression (Drawn),
	// taken here as true positives.
	t.Helper()
	b, err := os.ReadFile("testdata/gitleaks-examples.json")
	if err != nil {
		t.Fatal(err)
	}
	var ex map[string]struct {
		TPs   []string `json:"tps"`
		FPs   []string `json:"fps"`
		Drawn []string `json:"drawn"`
	}
	if err := json.Unmarshal(b, &ex); err != nil {
		t.Fatal(err)
	}
	out := map[string]struct{ TPs, FPs []string }{}
	for id, e := range ex {
		out[id] = struct{ TPs, FPs []string }{append(e.TPs, e.Drawn...), e.FPs}
	}
	return out
}

// referenceSecrets is what gitleaks reports for rule r in text, found the plain way: the
// rule's expression over the whole text, its secret group, entropy and allowlists. The
// engine (compiledRule.find) runs the same rule only near its keywords; it must find the
// same.
func referenceSecrets(t *testing.T, r *gitleaksRule, text string) [][2]int {
	t.Helper()
	low := strings.ToLower(text)
	if !slices.ContainsFunc(r.keywords, func(k string) bool { return strings.Contains(low, k) }) {
		return nil
	}
	re := regexp.MustCompile(r.regex)
	var out [][2]int
	for _, m := range re.FindAllStringSubmatchIndex(text, -1) {
		start, end := m[0], m[1]
		if r.secretGroup > 0 {
			start, end = m[2*r.secretGroup], m[2*r.secretGroup+1]
		} else {
			for g := 2; g+1 < len(m); g += 2 {
				if m[g] >= 0 && m[g+1] > m[g] {
					start, end = m[g], m[g+1]
					break
				}
			}
		}
		secret := text[start:end]
		if r.entropy > 0 && entropy([]byte(secret)) <= r.entropy {
			continue
		}
		allowed := false
		for _, a := range r.allow {
			target := secret
			switch a.target {
			case "match":
				target = text[m[0]:m[1]]
			case "line":
				lo := strings.LastIndexByte(text[:m[0]], '\n') + 1
				hi := strings.IndexByte(text[m[1]:], '\n')
				if hi < 0 {
					hi = len(text)
				} else {
					hi += m[1]
				}
				target = text[lo:hi]
			}
			byRegex := slices.ContainsFunc(a.regexes, func(x string) bool { return regexp.MustCompile(x).MatchString(target) })
			byWord := slices.ContainsFunc(a.stopwords, func(w string) bool { return strings.Contains(strings.ToLower(secret), w) })
			if a.all && (len(a.regexes) == 0 || byRegex) && (len(a.stopwords) == 0 || byWord) || !a.all && (byRegex || byWord) {
				allowed = true
			}
		}
		if !allowed {
			out = append(out, [2]int{start, end})
		}
	}
	return out
}

// engineSecrets runs rule number i of the shared matcher alone over text, as find does.
func engineSecrets(m *matcher, i int, text string) [][2]int {
	var at []hit
	for _, h := range m.words.scan([]byte(text), nil) {
		if slices.Contains(m.rulesOf[h.kw], int32(i)) {
			at = append(at, h)
		}
	}
	if len(at) == 0 {
		return nil
	}
	var scratch []byte
	var out [][2]int
	for _, sp := range m.rules[i].find([]byte(text), at, &scratch, nil) {
		if !slices.Contains(out, [2]int{sp.start, sp.end}) {
			out = append(out, [2]int{sp.start, sp.end})
		}
	}
	slices.SortFunc(out, func(a, b [2]int) int { return a[0] - b[0] })
	return out
}

// TestGitleaksRulesFindWhatGitleaksFinds runs every rule segwi applies over gitleaks' own
// examples for it: the engine, which tries a rule only at its keywords (anchored and
// gated, or in a window), must find exactly the secrets that the rule's expression finds
// over the whole example, and a Redactor must leave none of them in what it returns.
func TestGitleaksRulesFindWhatGitleaksFinds(t *testing.T) {
	examples := gitleaksExamples(t)
	m := shared()
	red := New()
	tried := 0
	for i, r := range m.rules {
		ex, ok := examples[r.id]
		if !ok || len(ex.TPs) == 0 {
			t.Errorf("rule %s: gitleaks has no true positive for it in testdata", r.id)
			continue
		}
		t.Run(r.id, func(t *testing.T) {
			found := 0
			for _, text := range append(slices.Clone(ex.TPs), ex.FPs...) {
				want := referenceSecrets(t, r.gitleaksRule, text)
				got := engineSecrets(m, i, text)
				if !slices.Equal(got, want) {
					t.Errorf("in %q\n got secrets %v\nwant %v (%q)", text, got, want, cut(text, want))
				}
				if len(want) == 0 {
					continue
				}
				found++
				out := red.String(text)
				for _, s := range want {
					if secret := text[s[0]:s[1]]; strings.Contains(out, secret) {
						t.Errorf("String(%q) = %q keeps %q", text, out, secret)
					}
				}
			}
			if found == 0 {
				t.Errorf("no example of gitleaks' has a secret for this rule: the test proves nothing")
			}
			tried += found
		})
	}
	t.Logf("%d rules applied, %d examples with a secret checked", len(m.rules), tried)
}

func cut(text string, spans [][2]int) []string {
	var out []string
	for _, s := range spans {
		out = append(out, text[s[0]:s[1]])
	}
	return out
}

// The rule table is data generated from a pinned gitleaks: every rule segwi applies must
// compile in Go's regexp (gitleaks' own engine by default), have keywords (the
// redactor's prefilter tries a rule only where one is) and say nothing about files.
func TestGitleaksRulesAreUsable(t *testing.T) {
	applied := 0
	for _, r := range gitleaksRules {
		if r.left != "" {
			continue
		}
		applied++
		if _, err := regexp.Compile(r.regex); err != nil {
			t.Errorf("rule %s: %v", r.id, err)
		}
		// As the redactor readies it: an anchored rule's expression is compiled at its
		// first keyword that passes the gate, and one that failed there would find nothing.
		c := &compiledRule{gitleaksRule: &r}
		if c.compile(); c.broken {
			t.Errorf("rule %s: readied, it is broken", r.id)
		} else if c.anchoredSrc != "" {
			if c.compileAnchored(); c.anchored == nil {
				t.Errorf("rule %s: its anchored expression %s does not compile", r.id, c.anchoredSrc)
			}
		}
		if len(r.keywords) == 0 {
			t.Errorf("rule %s has no keywords: the prefilter would never try it", r.id)
		}
		for _, a := range r.allow {
			if a.all && len(a.regexes) == 0 && len(a.stopwords) == 0 {
				t.Errorf("rule %s: an allowlist that needs all of nothing", r.id)
			}
			for _, w := range a.stopwords {
				if w != strings.ToLower(w) {
					t.Errorf("rule %s: stopword %q is not lower case: it would never match the lowered secret", r.id, w)
				}
			}
			for _, x := range a.regexes {
				if _, err := regexp.Compile(x); err != nil {
					t.Errorf("rule %s: allowlist: %v", r.id, err)
				}
			}
		}
	}
	if applied < 200 {
		t.Errorf("%d of gitleaks %s's %d rules applied, want nearly all", applied, gitleaksVersion, len(gitleaksRules))
	}
}

// TestLeftOutGitleaksRules checks, for each gitleaks rule segwi does not apply, that the
// reason it gives still holds: the rule would mask ordinary output of a run, or segwi's
// own finder masks what it would.
func TestLeftOutGitleaksRules(t *testing.T) {
	rule := func(id string) *gitleaksRule {
		for i := range gitleaksRules {
			if gitleaksRules[i].id == id {
				return &gitleaksRules[i]
			}
		}
		t.Fatalf("no rule %s in gitleaks %s", id, gitleaksVersion)
		return nil
	}
	left := 0
	for _, g := range gitleaksRules {
		if g.left != "" {
			left++
		}
	}
	if left != 4 {
		t.Errorf("%d rules left out, want the 4 this test checks", left)
	}
	r := New()
	for _, tt := range []struct{ id, why, text string }{
		// A go.sum line, as `cat go.sum` or `git diff` prints it: its hash follows a
		// module name holding "auth".
		{"generic-api-key", "it masks the hash of a go.sum line", "golang.org/x/oauth2 v0.36.0 h1:peZ/1z27fi9hUOFCAZaHyrpWG5lwe0RJEEEeH0ThlIs="},
		{"sourcegraph-access-token", "it masks git commit ids near the word sourcegraph",
			"Merge pull request #12 from sourcegraph/fix-ci 3f786850e387550fdab836ed7e6dc881de23001b"},
	} {
		t.Run(tt.id+": "+tt.why, func(t *testing.T) {
			g := rule(tt.id)
			if g.left == "" {
				t.Fatalf("rule %s is applied", tt.id)
			}
			if len(referenceSecrets(t, g, tt.text)) == 0 {
				t.Fatalf("the rule finds nothing in %q: the reason no longer holds", tt.text)
			}
			if got := r.String(tt.text); got != tt.text {
				t.Errorf("String(%q) = %q, want it unchanged", tt.text, got)
			}
		})
	}
	t.Run("private-key: segwi's own finder masks gitleaks' examples", func(t *testing.T) {
		if rule("private-key").left == "" {
			t.Fatal("rule private-key is applied")
		}
		ex := gitleaksExamples(t)["private-key"]
		if len(ex.TPs) == 0 {
			t.Fatal("no examples")
		}
		for _, text := range ex.TPs {
			body := strings.Split(text, "\n")[1]
			if got := r.String(text); strings.Contains(got, body) || !strings.Contains(got, maskKey) {
				t.Errorf("String(%q) = %q, want the block masked", text, got)
			}
		}
	})
	t.Run("pkcs12-file: it matches file names, not text", func(t *testing.T) {
		if g := rule("pkcs12-file"); g.left == "" || g.regex != "" {
			t.Errorf("rule pkcs12-file: left %q, regex %q; want it left out, with no expression", g.left, g.regex)
		}
	})
}
