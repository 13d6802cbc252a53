package settings

import (
	"fmt"
	"sort"
	"strings"

	"github.com/segwi/segwi/migrate"
)

// section is a mapping of known keys, by lowercased name, to a leaf (nil), a nested
// section, or a list of sections.
type section map[string]any

// listOf is a list whose entries are sections (segwi.repositories).
type listOf struct{ entry section }

// anyKeys is a mapping whose keys are the person's to name (segwi.runtimes[].env).
type anyKeys struct{}

// schema lists every key segwi knows. A key not in it is unknown unless it is retired.
var schema = section{
	"segwi": section{
		"claude":   section{"path": nil, "model": nil},
		"runtimes": listOf{section{"name": nil, "command": nil, "env": anyKeys{}}},
		"repositories": listOf{section{"name": nil, "path": nil, "remote": nil, "worktree": nil,
			"setup": section{"copy": nil, "run": nil, "timeout": nil}}},
		"runs": section{
			"maxconcurrent": nil, "maxduration": nil, "idletimeout": nil,
			"stopgrace": nil, "passforgetokens": nil, "ports": nil,
			"budget": section{"cost": nil, "tokens": nil, "turns": nil},
		},
		"approvals":  section{"timeout": nil, "trusted": nil},
		"canary":     section{"guarddeny": nil},
		"github":     section{"apiurl": nil},
		"remote":     section{"enabled": nil, "port": nil, "owners": nil, "socket": nil},
		"provenance": section{"trailer": nil, "approvals": nil},
	},
}

// walker compares the raw file with the schema: it collects unknown keys, sections of the
// wrong shape, and the person's spelling of every known key.
type walker struct {
	file     string
	retired  []migrate.Retired
	written  map[string]string // lowercased key path -> key path as written
	unknown  []string
	problems []Problem
}

func (w *walker) walk(raw map[string]any, sec section, prefix string) {
	keys := make([]string, 0, len(raw))
	for k := range raw {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	seen := map[string]string{}
	for _, k := range keys {
		path := k
		if prefix != "" {
			path = prefix + "." + k
		}
		lower := strings.ToLower(k)
		if first, dup := seen[lower]; dup {
			w.problem(path, fmt.Sprintf("is written twice, as %q and %q: keep one", first, k))
			continue
		}
		seen[lower] = k
		child, known := sec[lower]
		if !known {
			if !migrate.IsRetired(w.retired, path) {
				w.unknown = append(w.unknown, path)
			}
			continue
		}
		w.written[strings.ToLower(path)] = path
		switch c := child.(type) {
		case section:
			switch m := raw[k].(type) {
			case map[string]any:
				w.walk(m, c, path)
			case nil: // "runs:" with nothing under it: all defaults
			default:
				w.problem(path, fmt.Sprintf("must be a mapping of settings, got a %s", kind(m)))
			}
		case listOf:
			list, ok := raw[k].([]any)
			if !ok {
				continue // the loader reports the wrong type
			}
			for i, e := range list {
				if m, ok := e.(map[string]any); ok {
					w.walk(m, c.entry, fmt.Sprintf("%s[%d]", path, i))
				}
			}
		}
	}
}

func (w *walker) problem(key, msg string) {
	w.problems = append(w.problems, Problem{File: w.file, Key: key, Message: msg})
}
