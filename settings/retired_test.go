package settings

import (
	"bytes"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/segwi/segwi/migrate"
)

// allSeven holds every retired key, with values that would matter if they were read.
const allSeven = `segwi:
  permissions:
    allow: ["Bash(*)"]
  mcpPermissions:
    allow: ["mcp__*"]
  branchPrefixes: [segwi/, agent/]
  allowUnsandboxed: true
  allowedDomains: [example.com]
  repositories:
    - name: web
      path: REPO
      permissions: {deny: ["Bash(rm:*)"]}
      allowedDomains: [registry.npmjs.org]
`

func retiredKeys(rs []migrate.Retired) []string {
	var out []string
	for _, r := range rs {
		out = append(out, r.Where())
	}
	return out
}

func TestRetiredSettingsLoadAndChangeNothing(t *testing.T) {
	repo := t.TempDir()
	valid := "  runs:\n    maxConcurrent: 2\n  claude:\n    model: opus\n"
	tests := []struct {
		name, file, body string
		want             []string
	}{
		{"all seven alone", "config.yaml", strings.ReplaceAll(allSeven, "REPO", repo), []string{
			"segwi.allowUnsandboxed", "segwi.allowedDomains", "segwi.branchPrefixes", "segwi.mcpPermissions", "segwi.permissions",
			`segwi.repositories[0].allowedDomains (repository "web")`, `segwi.repositories[0].permissions (repository "web")`,
		}},
		{"all seven mixed with valid settings", "config.yaml", strings.ReplaceAll(allSeven, "REPO", repo) + valid, []string{
			"segwi.allowUnsandboxed", "segwi.allowedDomains", "segwi.branchPrefixes", "segwi.mcpPermissions", "segwi.permissions",
			`segwi.repositories[0].allowedDomains (repository "web")`, `segwi.repositories[0].permissions (repository "web")`,
		}},
		{"one alone", "config.yaml", "segwi:\n  mcpPermissions: {}\n", []string{"segwi.mcpPermissions"}},
		{"several repositories", "config.yaml", "segwi:\n  repositories:\n    - {name: web, path: " + repo + "}\n    - {name: api, path: " + repo + ", permissions: x}\n    - {name: docs, path: " + repo + ", allowedDomains: [a], permissions: y}\n", []string{
			`segwi.repositories[1].permissions (repository "api")`,
			`segwi.repositories[2].allowedDomains (repository "docs")`, `segwi.repositories[2].permissions (repository "docs")`,
		}},
		{"odd capitalisation keeps the person's spelling", "config.yaml", "Segwi:\n  MCPPERMISSIONS: x\n  AllowUnSandboxed: true\n  Repositories:\n    - {Name: web, Path: " + repo + ", AllowedDomains: [a]}\n", []string{
			"Segwi.AllowUnSandboxed", "Segwi.MCPPERMISSIONS", `Segwi.Repositories[0].AllowedDomains (repository "web")`,
		}},
		{"in TOML", "config.toml", "[segwi]\nbranchPrefixes = [\"a/\"]\n[[segwi.repositories]]\nname = \"web\"\npath = \"" + repo + "\"\npermissions = \"x\"\n", []string{
			"segwi.branchPrefixes", `segwi.repositories[0].permissions (repository "web")`,
		}},
		{"in JSON", "config.json", `{"segwi": {"allowedDomains": ["a"], "repositories": [{"name": "web", "path": "` + repo + `", "allowedDomains": []}]}}`, []string{
			"segwi.allowedDomains", `segwi.repositories[0].allowedDomains (repository "web")`,
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res := load(t, writeConfig(t, tt.file, tt.body))
			if err := res.Err(); err != nil {
				t.Fatalf("got problems, want none:\n%v", err)
			}
			if diff := cmp.Diff(tt.want, retiredKeys(res.Retired)); diff != "" {
				t.Errorf("retired keys (-want +got):\n%s", diff)
			}
			if len(res.Unknown) != 0 {
				t.Errorf("got unknown keys %v, want none: retired keys are not unknown", res.Unknown)
			}
		})
	}
}

func TestRetiredValuesChangeNothingInTheSettings(t *testing.T) {
	repo := t.TempDir()
	valid := "segwi:\n  runs:\n    maxConcurrent: 2\n  repositories:\n    - name: web\n      path: " + repo + "\n"
	withRetired := strings.ReplaceAll(allSeven, "REPO", repo) + "  runs:\n    maxConcurrent: 2\n"
	plain := load(t, writeConfig(t, "config.yaml", valid))
	retired := load(t, writeConfig(t, "config.yaml", withRetired))
	if len(retired.Retired) != 7 {
		t.Fatalf("got %d retired keys, want 7", len(retired.Retired))
	}
	if diff := cmp.Diff(plain.Settings, retired.Settings); diff != "" {
		t.Errorf("settings with retired keys differ from settings without them (-without +with):\n%s", diff)
	}
	onlyRetired := load(t, writeConfig(t, "config.yaml", "segwi:\n  permissions: {allow: [x]}\n  mcpPermissions: x\n  branchPrefixes: [a/]\n  allowUnsandboxed: true\n  allowedDomains: [a]\n"))
	if diff := cmp.Diff(Default(), onlyRetired.Settings); diff != "" {
		t.Errorf("a file of only retired keys gives other settings than the defaults (-want +got):\n%s", diff)
	}
}

func TestRetiredKeysAreWarnedOnceAcrossReloads(t *testing.T) {
	repo := t.TempDir()
	p := writeConfig(t, "config.yaml", strings.ReplaceAll(allSeven, "REPO", repo))
	w := migrate.NewWarner()
	var out bytes.Buffer
	warn := func() string {
		t.Helper()
		out.Reset()
		w.Warn(&out, p, load(t, p).Retired)
		return out.String()
	}

	first := warn()
	for _, key := range []string{"segwi.permissions", "segwi.mcpPermissions", "segwi.branchPrefixes", "segwi.allowUnsandboxed", "segwi.allowedDomains", "segwi.repositories[0].permissions", "segwi.repositories[0].allowedDomains"} {
		if n := strings.Count(first, key+" "); n != 1 {
			t.Errorf("first load: %s warned %d times, want once; output:\n%s", key, n, first)
		}
	}
	if n := strings.Count(first, "\n"); n != 7 {
		t.Errorf("first load: got %d warning lines, want 7:\n%s", n, first)
	}
	if again := warn(); again != "" {
		t.Errorf("reload: got warnings %q, want none", again)
	}
	body := strings.ReplaceAll(allSeven, "REPO", repo) + "    - name: api\n      path: " + repo + "\n      permissions: x\n"
	if err := writeFile(p, body); err != nil {
		t.Fatal(err)
	}
	want := "warning: " + p + `: segwi.repositories[1].permissions (repository "api") is retired and has no effect (runs follow your own Claude Code permission settings and hooks): delete it` + "\n"
	if got := warn(); got != want {
		t.Errorf("reload with a new retired key: got %q, want %q", got, want)
	}
	if again := warn(); again != "" {
		t.Errorf("second reload: got warnings %q, want none", again)
	}
}
