package redact

import (
	"regexp"
	"strings"
	"testing"
)

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
