package settings

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestRemoveRetiredKeepsEverythingElse(t *testing.T) {
	repo := t.TempDir()
	path := filepath.Join(t.TempDir(), "config.yaml")
	before := `# segwi's settings, written by hand
segwi:
  # which Claude Code
  claude:
    path: /opt/claude # pinned
  # the old sandbox
  permissions:
    allow: ["Bash(*)"]
  allowUnsandboxed: true # retired, on its line
  runs:
    maxConcurent: 2 # misspelt, stays
  repositories:
    - name: web
      path: REPO
      # the registry
      allowedDomains: [registry.npmjs.org]
      remote: upstream
  # the trailing one
  branchPrefixes: [segwi/]
# end of file
`
	if err := os.WriteFile(path, []byte(strings.ReplaceAll(before, "REPO", repo)), 0o640); err != nil {
		t.Fatal(err)
	}
	removed, err := RemoveRetired(path)
	if err != nil {
		t.Fatalf("RemoveRetired: %v", err)
	}
	if got, want := retiredKeys(removed), []string{"segwi.allowUnsandboxed", "segwi.branchPrefixes", "segwi.permissions",
		`segwi.repositories[0].allowedDomains (repository "web")`}; !cmp.Equal(got, want) {
		t.Errorf("removed %v, want %v", got, want)
	}
	after, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	want := `# segwi's settings, written by hand
segwi:
  # which Claude Code
  claude:
    path: /opt/claude # pinned
  # the old sandbox
  runs:
    maxConcurent: 2 # misspelt, stays
  repositories:
    - name: web
      path: REPO
      # the registry
      remote: upstream
  # the trailing one
# end of file
`
	if diff := cmp.Diff(strings.ReplaceAll(want, "REPO", repo), string(after)); diff != "" {
		t.Errorf("the file after (-want +got):\n%s", diff)
	}
	res, err := Load(path)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Retired) != 0 || res.Settings.Claude.Path != "/opt/claude" || res.Settings.Repositories[0].Remote != "upstream" ||
		!cmp.Equal(res.Unknown, []string{"segwi.runs.maxConcurent"}) {
		t.Errorf("after: retired %v, claude %q, repositories %v, unknown %v; want no retired key and the rest as it was",
			res.Retired, res.Settings.Claude.Path, res.Settings.Repositories, res.Unknown)
	}
	if fi, err := os.Stat(path); err != nil || fi.Mode().Perm() != 0o640 {
		t.Errorf("mode after: %v, %v; want 0640 kept", fi.Mode().Perm(), err)
	}
}

func TestRemoveRetiredLeavesOtherFilesAlone(t *testing.T) {
	dir := t.TempDir()
	clean := filepath.Join(dir, "config.yaml")
	body := "segwi:\n  runs: {maxConcurrent: 2}   # flow style kept\n"
	if err := os.WriteFile(clean, []byte(body), 0o600); err != nil {
		t.Fatal(err)
	}
	if removed, err := RemoveRetired(clean); err != nil || len(removed) != 0 {
		t.Errorf("RemoveRetired on a file without retired keys = %v, %v; want nothing", removed, err)
	}
	if got, _ := os.ReadFile(clean); string(got) != body {
		t.Errorf("a file without retired keys was rewritten:\n%s", got)
	}
	toml := filepath.Join(dir, "config.toml")
	if err := os.WriteFile(toml, []byte("[segwi]\nbranchPrefixes = [\"a/\"]\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := RemoveRetired(toml); err == nil || !strings.Contains(err.Error(), "edit this TOML file by hand") {
		t.Errorf("RemoveRetired on TOML = %v, want a refusal saying to edit it by hand", err)
	}
}
