package settings

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

func TestSaveChangesOnlyManagedKeys(t *testing.T) {
	home := t.TempDir()
	t.Setenv("HOME", home)
	for _, d := range []string{"src/web", "src/api", "src/docs"} {
		if err := os.MkdirAll(filepath.Join(home, d), 0o700); err != nil {
			t.Fatal(err)
		}
	}
	p := writeConfig(t, "config.yaml", `# my segwi settings
Segwi:
  mcpPermissions: {allow: [x]} # retired, still here
  futureKey: keep me
  Runs:
    MaxConcurrent: 2 # two at a time
    maxDuration: 120m
  repositories:
    - name: web
      path: ~/src/web
      permissions: keep
    - name: api
      path: ~/src/api
other: top-level stays
`)
	before := load(t, p)
	if err := before.Err(); err != nil {
		t.Fatal(err)
	}

	s := before.Settings
	s.Runs.MaxConcurrent = 6
	s.Runs.StopGrace = 20 * time.Second
	s.Claude.Model = "opus"
	s.Approvals.Trusted = []string{"go test"}
	s.Repositories = []Repository{
		{Name: "web", Path: filepath.Join(home, "src/web"), Remote: "origin"},
		{Name: "docs", Path: filepath.Join(home, "src/docs"), Remote: "upstream"},
	}
	if err := Save(p, s); err != nil {
		t.Fatal(err)
	}

	if testing.Verbose() {
		data, _ := os.ReadFile(p)
		t.Logf("saved:\n%s", data)
	}
	after := load(t, p)
	if err := after.Err(); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(s, after.Settings); diff != "" {
		t.Errorf("reloaded settings (-saved +got):\n%s", diff)
	}
	if diff := cmp.Diff(before.Unknown, after.Unknown); diff != "" {
		t.Errorf("unknown keys (-before +after):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"Segwi.mcpPermissions", `Segwi.repositories[0].permissions (repository "web")`}, retiredKeys(after.Retired)); diff != "" {
		t.Errorf("retired keys after save (-want +got):\n%s", diff)
	}
	data, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	text := string(data)
	for _, want := range []string{
		"# my segwi settings", "# retired, still here", "MaxConcurrent: 6 # two at a time",
		"maxDuration: 120m", "path: ~/src/web", "futureKey: keep me", "other: top-level stays",
		"stopGrace: 20s", "model: opus", "remote: upstream", "path: ~/src/docs",
	} {
		if !strings.Contains(text, want) {
			t.Errorf("saved file lacks %q:\n%s", want, text)
		}
	}
	for _, gone := range []string{"api", "idleTimeout", "apiURL"} {
		if strings.Contains(text, gone) {
			t.Errorf("saved file has %q, want it absent:\n%s", gone, text)
		}
	}
}

func TestSaveToANewFileWritesOnlyWhatDiffersFromTheDefaults(t *testing.T) {
	p := filepath.Join(t.TempDir(), "segwi", "config.yaml")
	s := Default()
	s.Runs.PassForgeTokens = true
	if err := Save(p, s); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := string(data), "segwi:\n  runs:\n    passForgeTokens: true\n"; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
	if fi, err := os.Stat(p); err != nil || fi.Mode().Perm() != 0o600 {
		t.Errorf("got mode %v (%v), want 0600", fi.Mode().Perm(), err)
	}
	if diff := cmp.Diff(s, load(t, p).Settings); diff != "" {
		t.Errorf("reloaded (-want +got):\n%s", diff)
	}
}

func TestSaveRefusesFilesItCannotWriteFaithfully(t *testing.T) {
	tests := []struct{ name, file, body, want string }{
		{"a TOML file", "config.toml", "", "only YAML files can be written; edit this TOML file by hand"},
		{"a YAML syntax error", "config.yaml", "segwi: [\n", "fix the YAML syntax first"},
		{"a section that is not a mapping", "config.yaml", "segwi:\n  runs: 4\n", "segwi.runs is not a mapping: fix it before saving"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := writeConfig(t, tt.file, tt.body)
			s := Default()
			s.Runs.MaxConcurrent = 9
			err := Save(p, s)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("got %v, want an error containing %q", err, tt.want)
			}
			if data, _ := os.ReadFile(p); string(data) != tt.body {
				t.Errorf("the file changed to %q", data)
			}
		})
	}
}

// Saving segwi.remote (the settings window has its fields) changes only what changed:
// the person's comments, the flow style of an unchanged list and keys segwi does not know
// stay in the section.
func TestSaveWritesTheRemoteSection(t *testing.T) {
	home := t.TempDir()
	t.Setenv("HOME", home)
	p := writeConfig(t, "config.yaml", `segwi:
  remote:
    enabled: false # until the phone is set up
    owners: [alice@example.com] # me
    futurePageKey: keep me
`)
	before := load(t, p)
	if err := before.Err(); err != nil {
		t.Fatal(err)
	}
	s := before.Settings
	s.Remote.Enabled = true
	s.Remote.Port = 8443
	s.Remote.Socket = filepath.Join(home, ".local/share/tailscale/tailscaled.sock")
	if err := Save(p, s); err != nil {
		t.Fatal(err)
	}
	after := load(t, p)
	if err := after.Err(); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(s.Remote, after.Settings.Remote); diff != "" {
		t.Errorf("segwi.remote reloaded (-saved +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"segwi.remote.futurePageKey"}, after.Unknown); diff != "" {
		t.Errorf("unknown keys after save (-want +got):\n%s", diff)
	}
	data, _ := os.ReadFile(p)
	for _, want := range []string{"enabled: true # until the phone is set up", "owners: [alice@example.com] # me",
		"futurePageKey: keep me", "port: 8443", "socket: ~/.local/share/tailscale/tailscaled.sock"} {
		if !strings.Contains(string(data), want) {
			t.Errorf("the saved file lacks %q:\n%s", want, data)
		}
	}

	// Back to the defaults: the page is off and its owners go; the file says so.
	s.Remote = Default().Remote
	if err := Save(p, s); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(Default().Remote, load(t, p).Settings.Remote); diff != "" {
		t.Errorf("segwi.remote back to the defaults (-want +got):\n%s", diff)
	}
}

// SaveGuardDeny sets the one key and leaves the rest of the file as the person wrote it,
// a guarded key's edit that waits for confirmation included: Save of the settings in force
// would have put the confirmed value back over it.
func TestSaveGuardDenyChangesOnlyThatKey(t *testing.T) {
	p := filepath.Join(t.TempDir(), "config.yaml")
	const file = "# mine\nsegwi:\n  claude:\n    path: /opt/claude/bin/claude # waits for confirmation\n  runs:\n    maxDuration: 2h\n"
	if err := os.WriteFile(p, []byte(file), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := SaveGuardDeny(p, "/home/ada/.claude/guard.deny"); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	want := file + "  canary:\n    guardDeny: /home/ada/.claude/guard.deny\n"
	if string(data) != want {
		t.Errorf("the file became\n%s\nwant\n%s", data, want)
	}
}

// The provenance switches are on by default: turning one off writes it, turning it on
// again keeps the file's own spelling of the key.
func TestSaveWritesTheProvenanceSwitches(t *testing.T) {
	p := filepath.Join(t.TempDir(), "config.yaml")
	s := Default()
	if !s.Provenance.Trailer || !s.Provenance.Approvals {
		t.Fatalf("the provenance switches are %+v by default, want both on", s.Provenance)
	}
	s.Provenance.Approvals = false
	if err := Save(p, s); err != nil {
		t.Fatal(err)
	}
	data, _ := os.ReadFile(p)
	if got, want := string(data), "segwi:\n  provenance:\n    approvals: false\n"; got != want {
		t.Errorf("the file is %q, want %q", got, want)
	}
	if diff := cmp.Diff(s.Provenance, load(t, p).Settings.Provenance); diff != "" {
		t.Errorf("reloaded (-saved +got):\n%s", diff)
	}
	s.Provenance = Default().Provenance
	if err := Save(p, s); err != nil {
		t.Fatal(err)
	}
	if got := load(t, p).Settings.Provenance; !got.Approvals || !got.Trailer {
		t.Errorf("back on, the file gives %+v", got)
	}
}
