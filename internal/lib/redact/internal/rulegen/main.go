// Command rulegen writes the gitleaks rules that package redact applies, and gitleaks' own
// examples of what each rule finds, from a pinned version of the gitleaks module.
//
// It reads the module from the Go module cache, fetching it through the module proxy
// (go mod download) when it is missing: config/gitleaks.toml for the rules, and the Go
// code that generates that file (cmd/generate/config/rules) for the examples, which it
// evaluates without running gitleaks (see examples.go). It writes:
//   - gitleaks_rules.go: a Go table of the rules (id, regular expression, keywords,
//     secret group, entropy, allowlists), each rule that segwi leaves out marked with why;
//   - testdata/gitleaks-examples.json: each rule's true and false positives, as data;
//   - LICENSE.gitleaks: gitleaks' licence, which the table's notice refers to.
//
// Run it with go generate in internal/lib/redact. The redactor then carries the rules as data
// under its own engine and does not link gitleaks or its dependencies.
package main

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"go/format"
	"log"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"

	"github.com/pelletier/go-toml/v2"
)

const module = "github.com/zricethezav/gitleaks/v8"

// left says why segwi does not apply a gitleaks rule to a run's output. Each reason is
// checked by a test in package redact (TestLeftOutGitleaksRules).
var left = map[string]string{
	// Keywords as common as "key", "token", "auth", "api" and "access" make it run on most
	// lines of code and logs, and on a live log it masks what is not a secret: the hash of
	// every go.sum line whose module is named oauth2 or credentials, for one.
	"generic-api-key": "too broad for a live log: it masks values next to words as common as key, token and auth (go.sum hashes among them)",
	// Its third form is any 40 hex digits, so any line near the word "sourcegraph" loses
	// its git commit ids.
	"sourcegraph-access-token": "too broad for a live log: it masks every 40-digit hex string (git commit ids) near the word sourcegraph",
	// segwi's own finder masks PEM and PGP private key blocks, across lines and without
	// ever crossing a JSON string's end; gitleaks' rule may run past a quote.
	"private-key": "segwi's own private key finder covers it, across lines and inside JSON strings",
	// A rule with a path and no regular expression finds files by name, not text. The
	// rules with both (freemius-secret-key for *.php, kubernetes-secret-yaml for *.yaml,
	// nuget-config-password for nuget.config) are applied to all text: a live log has no
	// file name, and each one's expression is specific enough alone.
	"pkcs12-file": "finds files by name, not text",
}

type allowlist struct {
	Description string
	Condition   string
	Commits     []string
	Paths       []string
	RegexTarget string
	Regexes     []string
	StopWords   []string
}

type rule struct {
	ID          string
	Description string
	Path        string
	Regex       string
	SecretGroup int
	Entropy     float64
	Keywords    []string
	Allowlists  []allowlist
	Required    []map[string]any
	SkipReport  bool
}

type config struct {
	Title      string
	MinVersion string
	Rules      []rule
}

func main() {
	version := flag.String("version", "", "gitleaks module version, e.g. v8.30.1")
	flag.Parse()
	if *version == "" {
		log.Fatal("rulegen: -version is required")
	}
	dir, err := moduleDir(*version)
	if err != nil {
		log.Fatal(err)
	}
	raw, err := os.ReadFile(filepath.Join(dir, "config", "gitleaks.toml"))
	if err != nil {
		log.Fatalf("rulegen: %v", err)
	}
	var cfg config
	if err := toml.Unmarshal(raw, &cfg); err != nil {
		log.Fatalf("rulegen: parsing gitleaks.toml: %v", err)
	}
	for id := range left {
		if !hasRule(cfg.Rules, id) {
			log.Fatalf("rulegen: rule %q left out, but gitleaks %s has no such rule", id, *version)
		}
	}
	src, err := table(cfg, *version)
	if err != nil {
		log.Fatal(err)
	}
	if err := os.WriteFile("gitleaks_rules.go", src, 0o644); err != nil {
		log.Fatal(err)
	}
	ex, err := examples(filepath.Join(dir, "cmd", "generate", "config"))
	if err != nil {
		log.Fatal(err)
	}
	if err := drawMissing(ex, cfg.Rules); err != nil {
		log.Fatal(err)
	}
	b, err := json.MarshalIndent(ex, "", "\t")
	if err != nil {
		log.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join("testdata", "gitleaks-examples.json"), append(b, '\n'), 0o644); err != nil {
		log.Fatal(err)
	}
	lic, err := os.ReadFile(filepath.Join(dir, "LICENSE"))
	if err != nil {
		log.Fatal(err)
	}
	notice := "The rules in gitleaks_rules.go and the examples in testdata/gitleaks-examples.json\n" +
		"come from gitleaks " + *version + " (" + module + "), under this licence:\n\n"
	if err := os.WriteFile("LICENSE.gitleaks", append([]byte(notice), lic...), 0o644); err != nil {
		log.Fatal(err)
	}
}

func hasRule(rules []rule, id string) bool {
	for _, r := range rules {
		if r.ID == id {
			return true
		}
	}
	return false
}

// moduleDir returns the module cache folder of gitleaks at version, downloading the
// module through the Go module proxy when it is not there.
func moduleDir(version string) (string, error) {
	out, err := exec.Command("go", "mod", "download", "-json", module+"@"+version).Output()
	if err != nil {
		return "", fmt.Errorf("rulegen: go mod download %s@%s: %v", module, version, err)
	}
	var m struct{ Dir, Error string }
	if err := json.Unmarshal(out, &m); err != nil {
		return "", fmt.Errorf("rulegen: reading go mod download's answer: %v", err)
	}
	if m.Error != "" || m.Dir == "" {
		return "", fmt.Errorf("rulegen: go mod download %s@%s: %s", module, version, m.Error)
	}
	return m.Dir, nil
}

// table returns the Go source of the rule table.
func table(cfg config, version string) ([]byte, error) {
	var b bytes.Buffer
	fmt.Fprintf(&b, `// Code generated by rulegen from %s@%s (config/gitleaks.toml); DO NOT EDIT.

// The rules below are gitleaks' default rules, copyright (c) 2019 Zachary Rice, used under
// the MIT licence: see LICENSE.gitleaks. Regenerate with go generate (see gitleaks.go).

package redact

// gitleaksVersion is the version of gitleaks whose default rules gitleaksRules holds.
const gitleaksVersion = %q

// gitleaksRules holds gitleaks' default rules in its order. A rule with left set is not
// applied; left says why. The allowlists of left-out rules are not kept.
var gitleaksRules = []gitleaksRule{
`, module, version, version)
	for _, r := range cfg.Rules {
		if r.SkipReport || len(r.Required) > 0 {
			return nil, fmt.Errorf("rulegen: rule %s uses skipReport or required rules, which the redactor does not implement", r.ID)
		}
		fmt.Fprintf(&b, "\t{\n\t\tid: %q,\n", r.ID)
		if why, ok := left[r.ID]; ok {
			fmt.Fprintf(&b, "\t\tleft: %q,\n", why)
		} else if r.Regex == "" {
			return nil, fmt.Errorf("rulegen: rule %s has no regular expression: leave it out, saying why", r.ID)
		}
		if r.Regex != "" {
			fmt.Fprintf(&b, "\t\tregex: %s,\n", quote(r.Regex))
		}
		if len(r.Keywords) > 0 {
			fmt.Fprintf(&b, "\t\tkeywords: %s,\n", stringList(lowerUnique(r.Keywords)))
		}
		if r.SecretGroup != 0 {
			fmt.Fprintf(&b, "\t\tsecretGroup: %d,\n", r.SecretGroup)
		}
		if r.Entropy != 0 {
			fmt.Fprintf(&b, "\t\tentropy: %s,\n", strconv.FormatFloat(r.Entropy, 'g', -1, 64))
		}
		if _, ok := left[r.ID]; !ok {
			var lists []string
			for _, a := range r.Allowlists {
				if l, ok := allowSource(a); ok {
					lists = append(lists, l)
				}
			}
			if len(lists) > 0 {
				fmt.Fprintf(&b, "\t\tallow: []allowlist{%s},\n", strings.Join(lists, ", "))
			}
		}
		b.WriteString("\t},\n")
	}
	b.WriteString("}\n")
	src, err := format.Source(b.Bytes())
	if err != nil {
		return nil, fmt.Errorf("rulegen: formatting the table: %v", err)
	}
	return src, nil
}

// allowSource returns the Go source of allowlist a, and false when a can never apply to
// a live log: it names only commits and paths, or needs one to match too.
func allowSource(a allowlist) (string, bool) {
	and := strings.EqualFold(a.Condition, "AND")
	if len(a.Regexes) == 0 && len(a.StopWords) == 0 || and && (len(a.Commits) > 0 || len(a.Paths) > 0) {
		return "", false
	}
	var fields []string
	if a.RegexTarget != "" {
		fields = append(fields, "target: "+strconv.Quote(a.RegexTarget))
	}
	if and {
		fields = append(fields, "all: true")
	}
	if len(a.Regexes) > 0 {
		q := make([]string, len(a.Regexes))
		for i, re := range a.Regexes {
			q[i] = quote(re)
		}
		fields = append(fields, "regexes: []string{"+strings.Join(q, ", ")+"}")
	}
	if len(a.StopWords) > 0 {
		fields = append(fields, "stopwords: "+stringList(lowerUnique(a.StopWords)))
	}
	return "{" + strings.Join(fields, ", ") + "}", true
}

func quote(s string) string {
	if !strings.Contains(s, "`") && !strings.ContainsAny(s, "\r") {
		return "`" + s + "`"
	}
	return strconv.Quote(s)
}

func lowerUnique(list []string) []string {
	seen := map[string]bool{}
	var out []string
	for _, s := range list {
		s = strings.ToLower(s)
		if !seen[s] {
			seen[s] = true
			out = append(out, s)
		}
	}
	return out
}

func stringList(list []string) string {
	q := make([]string, len(list))
	for i, s := range list {
		q[i] = strconv.Quote(s)
	}
	return "[]string{" + strings.Join(q, ", ") + "}"
}

// sortedKeys returns m's keys in order.
func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// drawMissing gives each rule segwi applies that gitleaks has no examples of three
// strings drawn from its expression.
func drawMissing(ex map[string]*ruleExamples, rules []rule) error {
	for _, r := range rules {
		if _, isLeft := left[r.ID]; isLeft || r.Regex == "" {
			continue
		}
		if e, ok := ex[r.ID]; ok && len(e.TPs) > 0 {
			continue
		}
		e := ex[r.ID]
		if e == nil {
			e = &ruleExamples{}
			ex[r.ID] = e
		}
		ev := &evaluator{rng: rand.New(rand.NewPCG(uint64(len(r.ID)), 7))}
		for range 3 {
			s, ok := ev.draw(r.Regex)
			if !ok {
				return fmt.Errorf("rulegen: cannot draw a sample of rule %s", r.ID)
			}
			e.Drawn = append(e.Drawn, s)
		}
	}
	return nil
}
