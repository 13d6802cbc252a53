package main

import (
	"fmt"
	"maps"
	"os/exec"
	"slices"
	"strings"
	"testing"
)

// segwi's packages live in rooms, and no import runs back up (see the README's Layout):
//
//   - internal/lib/: leaves. They import nothing of segwi's outside internal/lib, so any
//     package may use them without pulling in more of segwi.
//   - internal/testing/: the test kit. Only tests and the kit itself import it: nothing
//     that ships links it.
//   - internal/roots/: the composition roots, which wire segwi together (cli, core, hub,
//     trayproc). Only main packages, other roots and the kit (coretest builds the core for
//     tests) import them.
//   - runs/ and below: a package under runs/ is a leaf that runs imports (record, the run's
//     record that the window program links instead of runs; changes, worktree), which
//     therefore cannot import runs; a leaf beside runs that builds on the record and never
//     imports runs (push); or a runtime that runs drives (claude), which imports runs to
//     implement runs.Runtime and is chosen by a root: only roots and the kit import it. A
//     package that merely uses runs (the canary) lives outside runs/.
//
// Tests may import anything: go list's Imports holds a package's own imports, not its
// tests'.
func TestImportsRunNoWayBackUp(t *testing.T) {
	pkgs := listPackages(t, "./...")
	if bad := layoutViolations(pkgs); len(bad) > 0 {
		t.Errorf("imports run back up; move the package to its room or the code to a leaf:\n%s", strings.Join(bad, "\n"))
	}
	// The check reads the right list: each room has its packages in it.
	for _, want := range []string{mod + "/internal/roots/core", mod + "/internal/lib/gitcmd", mod + "/internal/testing/await", mod + "/runs/claude", mod + "/runs/changes"} {
		if _, ok := pkgs[want]; !ok {
			t.Errorf("go list ./... does not list %s; is the check reading the right packages?", want)
		}
	}
}

// TestLayoutRulesCatchABackImport checks that each rule fails on the import it is there to
// refuse, on a copy of the real package list with that one import added.
func TestLayoutRulesCatchABackImport(t *testing.T) {
	all := listPackages(t, "./...")
	for _, tc := range []struct {
		name, from, to, want string
	}{
		{"a leaf imports the runs", "/internal/lib/gitcmd", "/runs", "a leaf"},
		{"a leaf imports a root", "/internal/lib/redact", "/internal/roots/core", "a leaf"},
		{"shipped code imports the test kit", "/runs", "/internal/testing/await", "the test kit"},
		{"a package that is not a main imports a root", "/app", "/internal/roots/hub", "a root"},
		{"a consumer of runs sits under runs/ (the canary before it moved)", "/app", "/runs/claude", "a runtime"},
		{"a package under runs/ is neither leaf nor runtime", "/runs/claude", "", "neither"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			pkgs := maps.Clone(all)
			if pkgs[mod+tc.from] == nil {
				t.Fatalf("no package %s", tc.from)
			}
			p := new(listedPackage)
			*p = *pkgs[mod+tc.from]
			pkgs[mod+tc.from] = p
			prefix := mod + tc.from + " imports " + mod + tc.to + ":"
			if tc.to == "" { // the case drops the import of runs instead
				p.imports = slices.DeleteFunc(slices.Clone(p.imports), func(s string) bool { return s == mod+"/runs" })
				prefix = mod + tc.from + " sits under runs/"
			} else {
				p.imports = append(slices.Clone(p.imports), mod+tc.to)
			}
			bad := layoutViolations(pkgs)
			if !slices.ContainsFunc(bad, func(s string) bool {
				return strings.HasPrefix(s, prefix) && strings.Contains(s, tc.want)
			}) {
				t.Errorf("with %s importing %s, violations = %q, want one naming the import and %q", tc.from, tc.to, bad, tc.want)
			}
		})
	}
}

const mod = "github.com/segwi/segwi"

type listedPackage struct {
	name    string   // the package clause: main for programs
	imports []string // its own imports (not its tests')
	deps    []string // everything it links
}

func listPackages(t *testing.T, patterns ...string) map[string]*listedPackage {
	t.Helper()
	args := append([]string{"list", "-f", "{{.ImportPath}}\t{{.Name}}\t{{join .Imports \" \"}}\t{{join .Deps \" \"}}"}, patterns...)
	out, err := exec.Command("go", args...).CombinedOutput()
	if err != nil {
		t.Fatalf("go list: %v\n%s", err, out)
	}
	pkgs := map[string]*listedPackage{}
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		f := strings.Split(line, "\t")
		if len(f) != 4 {
			t.Fatalf("go list: unexpected line %q", line)
		}
		pkgs[f[0]] = &listedPackage{name: f[1], imports: strings.Fields(f[2]), deps: strings.Fields(f[3])}
	}
	return pkgs
}

// in says whether path is the package dir or below it.
func in(path, dir string) bool {
	return path == mod+"/"+dir || strings.HasPrefix(path, mod+"/"+dir+"/")
}

// layoutViolations lists, one line each, the imports of segwi's packages that break a rule
// of TestImportsRunNoWayBackUp.
func layoutViolations(pkgs map[string]*listedPackage) []string {
	runsDeps := map[string]bool{}
	if r := pkgs[mod+"/runs"]; r != nil {
		for _, d := range r.deps {
			runsDeps[d] = true
		}
	}
	// runtime says whether path, under runs/, is a runtime: it imports runs.
	runtime := func(path string) bool {
		p := pkgs[path]
		return p != nil && slices.Contains(p.imports, mod+"/runs")
	}
	var bad []string
	for path, p := range pkgs {
		for _, imp := range p.imports {
			if imp != mod && !strings.HasPrefix(imp, mod+"/") {
				continue
			}
			var why string
			switch {
			case in(path, "internal/lib") && !in(imp, "internal/lib"):
				why = "a leaf (internal/lib) imports nothing of segwi's outside internal/lib"
			case in(imp, "internal/testing") && !in(path, "internal/testing"):
				why = "only tests and the test kit (internal/testing) import the test kit"
			case in(imp, "internal/roots") && p.name != "main" && !in(path, "internal/roots") && !in(path, "internal/testing"):
				why = "a root (internal/roots) is imported only by main packages, other roots and the test kit"
			case in(imp, "runs") && imp != mod+"/runs" && !runsDeps[imp] && runtime(imp) &&
				!in(path, "internal/roots") && !in(path, "internal/testing") && p.name != "main":
				why = "a package under runs/ that runs does not import is a runtime, chosen by a root: only roots and the test kit import it; a package that uses runs lives outside runs/"
			}
			if why != "" {
				bad = append(bad, fmt.Sprintf("%s imports %s: %s", path, imp, why))
			}
		}
		// Under runs/ there are leaves runs imports (which cannot import runs: Go refuses the
		// cycle), leaves beside runs that build on its record (they import runs/record, not
		// runs), and runtimes, which import runs; nothing else.
		if in(path, "runs") && path != mod+"/runs" && !runsDeps[path] && !runtime(path) &&
			!slices.Contains(p.imports, mod+"/runs/record") {
			bad = append(bad, fmt.Sprintf("%s sits under runs/: it is neither a leaf runs imports, nor a leaf beside it on its record (which imports runs/record), nor a runtime (which imports runs); move it out of runs/", path))
		}
	}
	slices.Sort(bad)
	return bad
}
