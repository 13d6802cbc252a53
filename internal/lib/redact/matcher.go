package redact

import (
	"slices"
	"sync"
)

// matcher is what every Redactor shares, built the first time one scans: the keyword
// automaton over the keywords of gitleaks' rules and of segwi's own finders, and which
// rules and finders each keyword starts.
type matcher struct {
	words     *keywords
	rulesOf   [][]int32 // keyword id -> gitleaks rules (indexes into rules)
	findersOf []uint64  // keyword id -> segwi's finders (bits of indexes into finders)
	rules     []*compiledRule
}

// shared returns the matcher, building it on first use: a tray that runs nothing never
// builds it.
var shared = sync.OnceValue(newMatcher)

func newMatcher() *matcher {
	m := &matcher{}
	id := map[string]int32{}
	var words []string
	word := func(w string) int32 {
		if i, ok := id[w]; ok {
			return i
		}
		i := int32(len(words))
		id[w] = i
		words = append(words, w)
		m.rulesOf = append(m.rulesOf, nil)
		m.findersOf = append(m.findersOf, 0)
		return i
	}
	for i, f := range finders {
		for _, w := range f.keywords {
			k := word(w)
			m.findersOf[k] |= 1 << i
		}
	}
	for i := range gitleaksRules {
		r := &gitleaksRules[i]
		if r.left != "" || r.regex == "" {
			continue
		}
		ri := int32(len(m.rules))
		m.rules = append(m.rules, &compiledRule{gitleaksRule: r})
		for _, w := range r.keywords {
			k := word(w)
			if !slices.Contains(m.rulesOf[k], ri) {
				m.rulesOf[k] = append(m.rulesOf[k], ri)
			}
		}
	}
	m.words = keywordsOf(words)
	return m
}

// keywordsOf returns the automaton of words: the one built ahead (keywords_table.go) when
// it was built of the same words, as it is unless the rules or the finders changed since
// (TestKeywordTable fails then, and -update builds it anew), else a new one. Built ahead,
// it costs a process no CPU and no heap: newKeywords takes about 1 ms and 0.65 MB (most of
// the matcher's build, which every run of segwi run pays).
func keywordsOf(words []string) *keywords {
	if slices.Equal(words, tableKeywords.words) {
		return &tableKeywords
	}
	return newKeywords(words)
}

// finder is one of segwi's own secret shapes (shapes.go, credentials.go): find appends the
// spans of the secrets it finds in a text that holds one of its keywords.
type finder struct {
	name     string
	keywords []string // lower case
	find     func(b []byte, spans []span) []span
}

// finders are segwi's own shapes: those gitleaks lacks (URL passwords, Authorization and
// bearer credentials, AWS secret keys by name, PEM and PGP private key blocks), and
// broader forms of some it has (GitHub, Anthropic and Slack tokens and JWTs of any
// length, masked whole).
var finders = []finder{
	{"github-token", []string{"ghp_", "gho_", "ghs_", "ghu_", "ghr_"}, findGitHub},
	{"github-fine-grained-token", []string{"github_pat_"}, func(b []byte, spans []span) []span {
		return findPrefixed(b, []byte("github_pat_"), len("github"), isTokenWordByte, 20, spans)
	}},
	{"anthropic-key", []string{"sk-ant-"}, func(b []byte, spans []span) []span {
		return findPrefixed(b, []byte("sk-ant-"), len("sk"), isKeyByte, 16, spans)
	}},
	{"aws-secret-access-key", []string{"access"}, findAWSSecretKeys},
	{"authorization", []string{"authorization"}, findAuthorization},
	{"bearer", []string{"bearer"}, findBearer},
	{"url-credentials", []string{"://"}, findURLCredentials},
	{"slack-token", []string{"xoxb-", "xoxp-", "xoxa-", "xoxr-", "xoxs-", "xoxe-", "xapp-"}, findSlack},
	{"jwt", []string{"eyj"}, findJWT},
	{"private-key", []string{"-----begin"}, func(b []byte, spans []span) []span {
		spans, _ = findPrivateKeys(b, false, spans)
		return spans
	}},
}
