package redact

//go:generate go run ./internal/rulegen -version v8.30.1

// gitleaksRule is one of gitleaks' rules as data (see gitleaks_rules.go): a regular
// expression in Go's syntax, the keywords that text must hold for it to be tried, which
// capture group is the secret, and the entropy below which a match is not one.
type gitleaksRule struct {
	id          string
	left        string // why segwi does not apply the rule; empty when it does
	regex       string
	keywords    []string // lower case
	secretGroup int      // 0: the first group that matched, or the whole match
	entropy     float64  // a secret must have more (Shannon, bits per byte); 0: any
	allow       []allowlist
}

// allowlist says which matches of a rule are not secrets: those a regular expression
// matches (in the secret, the whole match, or the line, as target says) or whose secret
// holds a stopword; with all set, it takes both.
type allowlist struct {
	target    string // "", "secret", "match" or "line"
	all       bool
	regexes   []string
	stopwords []string // lower case
}
