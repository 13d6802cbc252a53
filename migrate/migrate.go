// Package migrate finds retired settings in a config file and warns about each one once.
//
// segwi once had settings it no longer reads: its own permission lists, network allow lists,
// branch prefixes and a sandbox switch. A run is now the session the person would start by
// hand, so Claude Code's own settings decide all of that. Files that still hold these keys
// load without error, the keys have no effect, and the person is told, once per key per
// process, to delete each one.
//
// Find works on the raw tree of the file as the person wrote it (not on a lowercased
// view), so every finding names the key with the person's own spelling.
package migrate

import (
	"fmt"
	"sort"
	"strings"
)

// Retired is one retired key found in a config file.
type Retired struct {
	// Key is the key path as the person wrote it, e.g. "segwi.mcpPermissions" or
	// "segwi.repositories[1].permissions". List indexes count from 0.
	Key string
	// Repository is the name of the repository entry that holds the key, for keys under
	// segwi.repositories; empty otherwise (and when that entry has no name).
	Repository string
	// Setting is the retired setting in its canonical spelling, e.g.
	// "segwi.repositories[].permissions".
	Setting string
}

// Where names the key for a person: the key path as written, plus the repository's name
// for a key inside a repository entry.
func (r Retired) Where() string {
	if r.Repository != "" {
		return fmt.Sprintf("%s (repository %q)", r.Key, r.Repository)
	}
	return r.Key
}

// Message says what the key was, that it now has no effect, and to delete it.
func (r Retired) Message() string {
	return fmt.Sprintf("%s is retired and has no effect (%s): delete it", r.Where(), reasons[r.Setting])
}

// String returns Message.
func (r Retired) String() string { return r.Message() }

// Settings lists every retired setting in its canonical spelling.
var Settings = []string{
	"segwi.permissions",
	"segwi.repositories[].permissions",
	"segwi.mcpPermissions",
	"segwi.branchPrefixes",
	"segwi.allowUnsandboxed",
	"segwi.allowedDomains",
	"segwi.repositories[].allowedDomains",
}

var reasons = map[string]string{
	"segwi.permissions":                   "runs follow your own Claude Code permission settings and hooks",
	"segwi.repositories[].permissions":    "runs follow your own Claude Code permission settings and hooks",
	"segwi.mcpPermissions":                "runs follow your own Claude Code permission settings and hooks",
	"segwi.branchPrefixes":                "segwi no longer restricts the branches a run may use",
	"segwi.allowUnsandboxed":              "segwi no longer sandboxes runs",
	"segwi.allowedDomains":                "segwi no longer sandboxes runs or limits their network access",
	"segwi.repositories[].allowedDomains": "segwi no longer sandboxes runs or limits their network access",
}

// topLevel and perRepository map a lowercased key to its canonical retired setting.
var (
	topLevel = map[string]string{
		"permissions":      "segwi.permissions",
		"mcppermissions":   "segwi.mcpPermissions",
		"branchprefixes":   "segwi.branchPrefixes",
		"allowunsandboxed": "segwi.allowUnsandboxed",
		"alloweddomains":   "segwi.allowedDomains",
	}
	perRepository = map[string]string{
		"permissions":    "segwi.repositories[].permissions",
		"alloweddomains": "segwi.repositories[].allowedDomains",
	}
)

// Find returns the retired keys in tree, the whole file decoded as written (maps with string
// keys, lists as []any). Keys match whatever their capitalisation, as settings.Load's do. Findings
// come in a stable order: top-level keys sorted, then repository entries in file order.
func Find(tree map[string]any) []Retired {
	var found []Retired
	for _, segwiKey := range keysLike(tree, "segwi") {
		segwi, ok := tree[segwiKey].(map[string]any)
		if !ok {
			continue
		}
		for _, k := range sortedKeys(segwi) {
			if setting, ok := topLevel[strings.ToLower(k)]; ok {
				found = append(found, Retired{Key: segwiKey + "." + k, Setting: setting})
			}
		}
		for _, reposKey := range keysLike(segwi, "repositories") {
			repos, ok := segwi[reposKey].([]any)
			if !ok {
				continue
			}
			for i, entry := range repos {
				repo, ok := entry.(map[string]any)
				if !ok {
					continue
				}
				name := ""
				for _, nk := range keysLike(repo, "name") {
					if s, ok := repo[nk].(string); ok {
						name = s
					}
				}
				for _, k := range sortedKeys(repo) {
					if setting, ok := perRepository[strings.ToLower(k)]; ok {
						found = append(found, Retired{
							Key:        fmt.Sprintf("%s.%s[%d].%s", segwiKey, reposKey, i, k),
							Repository: name,
							Setting:    setting,
						})
					}
				}
			}
		}
	}
	return found
}

// IsRetired reports whether the key path (as Find would write it, any capitalisation) is a
// retired key or lies under one, so that a check for unknown keys can skip it.
func IsRetired(found []Retired, path string) bool {
	for _, r := range found {
		if strings.EqualFold(r.Key, path) || hasPrefixFold(path, r.Key+".") || hasPrefixFold(path, r.Key+"[") {
			return true
		}
	}
	return false
}

func hasPrefixFold(s, prefix string) bool {
	return len(s) >= len(prefix) && strings.EqualFold(s[:len(prefix)], prefix)
}

// keysLike returns the keys of m equal to name ignoring case, sorted.
func keysLike(m map[string]any, name string) []string {
	var ks []string
	for k := range m {
		if strings.EqualFold(k, name) {
			ks = append(ks, k)
		}
	}
	sort.Strings(ks)
	return ks
}

func sortedKeys(m map[string]any) []string {
	ks := make([]string, 0, len(m))
	for k := range m {
		ks = append(ks, k)
	}
	sort.Strings(ks)
	return ks
}

// Summary says in a line that the retired keys found in file are ignored: "segwi.x in
// FILE is retired and ignored: delete it." for one, "3 retired settings in FILE are
// ignored: delete them." for more (a desktop notification's text).
func Summary(file string, found []Retired) string {
	if len(found) == 1 {
		return fmt.Sprintf("%s in %s is retired and ignored: delete it.", found[0].Where(), file)
	}
	return fmt.Sprintf("%d retired settings in %s are ignored: delete them.", len(found), file)
}
