package settings

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// writeConfig writes body to a file called name in a new temp dir and returns its path.
func writeConfig(t *testing.T, name, body string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(p, []byte(body), 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

// load loads path and fails the test on a read or parse error.
func load(t *testing.T, path string) *Result {
	t.Helper()
	res, err := Load(path)
	if err != nil {
		t.Fatalf("Load(%s): %v", path, err)
	}
	return res
}

func TestDefaultGivesEveryDocumentedDefault(t *testing.T) {
	d := Default()
	tests := []struct {
		key       string
		got, want any
	}{
		{"segwi.claude.path", d.Claude.Path, "claude"},
		{"segwi.claude.model", d.Claude.Model, ""},
		{"segwi.repositories", len(d.Repositories), 0},
		{"segwi.runs.maxConcurrent", d.Runs.MaxConcurrent, 4},
		{"segwi.runs.maxDuration", d.Runs.MaxDuration, 2 * time.Hour},
		{"segwi.runs.idleTimeout", d.Runs.IdleTimeout, 30 * time.Minute},
		{"segwi.runs.stopGrace", d.Runs.StopGrace, 10 * time.Second},
		{"segwi.runs.passForgeTokens", d.Runs.PassForgeTokens, false},
		{"segwi.approvals.timeout", d.Approvals.Timeout, 10 * time.Minute},
		{"segwi.approvals.trusted", len(d.Approvals.Trusted), 0},
		{"segwi.canary.guardDeny", d.Canary.GuardDeny, ""},
		{"segwi.github.apiURL", d.GitHub.APIURL, "https://api.github.com"},
		{"segwi.remote.enabled", d.Remote.Enabled, false},
		{"segwi.remote.port", d.Remote.Port, 7717},
		{"segwi.remote.owners", len(d.Remote.Owners), 0},
		{"segwi.remote.socket", d.Remote.Socket, ""},
	}
	for _, tt := range tests {
		t.Run(tt.key+" defaults to "+strings.TrimSpace(show(tt.want)), func(t *testing.T) {
			if tt.got != tt.want {
				t.Errorf("got %v, want %v", tt.got, tt.want)
			}
		})
	}
	t.Run("a repository's remote defaults to origin", func(t *testing.T) {
		dir := t.TempDir()
		res := load(t, writeConfig(t, "config.yaml", "segwi:\n  repositories:\n    - name: web\n      path: "+dir+"\n"))
		if err := res.Err(); err != nil {
			t.Fatal(err)
		}
		if got := res.Settings.Repositories[0].Remote; got != "origin" {
			t.Errorf("got %q, want %q", got, "origin")
		}
	})
}

func TestLoadingAMissingFileGivesDefaults(t *testing.T) {
	p := filepath.Join(t.TempDir(), "config.yaml")
	res, err := Load(p)
	if err != nil {
		t.Fatalf("got error %v, want none", err)
	}
	if res.Found {
		t.Error("got Found true, want false")
	}
	if diff := cmp.Diff(Default(), res.Settings); diff != "" {
		t.Errorf("settings (-want +got):\n%s", diff)
	}
	if res.Err() != nil || len(res.Unknown) != 0 || len(res.Retired) != 0 {
		t.Errorf("got problems %v, unknown %v, retired %v; want none", res.Problems, res.Unknown, res.Retired)
	}
}

func TestAnEmptyFileGivesTheDefaults(t *testing.T) {
	for _, name := range []string{"config.yaml", "config.toml", "config.json"} {
		t.Run("an empty "+filepath.Ext(name)+" file", func(t *testing.T) {
			res := load(t, writeConfig(t, name, "\n"))
			if !res.Found || res.Err() != nil {
				t.Errorf("got found %v and problems %v, want a found file and none", res.Found, res.Err())
			}
			if diff := cmp.Diff(Default(), res.Settings); diff != "" {
				t.Errorf("settings (-want +got):\n%s", diff)
			}
		})
	}
}

func TestLoadReadsYAMLTOMLAndJSON(t *testing.T) {
	repo := t.TempDir()
	guard := filepath.Join(t.TempDir(), "guard.deny")
	if err := os.WriteFile(guard, []byte("rm -rf /\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	want := Settings{
		Claude:       Claude{Path: "/opt/claude/bin/claude", Model: "opus"},
		Repositories: []Repository{{Name: "web", Path: repo, Remote: "upstream"}},
		Runs:         Runs{MaxConcurrent: 2, MaxDuration: 90 * time.Minute, IdleTimeout: 5 * time.Minute, StopGrace: 3 * time.Second, PassForgeTokens: true, Ports: 10},
		Approvals:    Approvals{Timeout: 2 * time.Minute, Trusted: []string{"go test", "git status"}},
		Canary:       Canary{GuardDeny: guard},
		GitHub:       GitHub{APIURL: "https://ghe.example.com/api/v3"},
		Remote:       Remote{Enabled: true, Port: 8443, Owners: []string{"alice@example.com", "alice@github"}, Socket: "/run/tailscale/tailscaled.sock"},
		Provenance:   Provenance{Trailer: false, Approvals: false},
	}
	files := []struct{ name, body string }{
		{"config.yaml", `segwi:
  claude: {path: /opt/claude/bin/claude, model: opus}
  repositories:
    - {name: web, path: ` + repo + `, remote: upstream}
  runs: {maxConcurrent: 2, maxDuration: 1h30m, idleTimeout: 5m, stopGrace: 3s, passForgeTokens: true}
  approvals: {timeout: 2m, trusted: [go test, git status]}
  canary: {guardDeny: ` + guard + `}
  github: {apiURL: "https://ghe.example.com/api/v3"}
  remote: {enabled: true, port: 8443, owners: [alice@example.com, alice@github], socket: /run/tailscale/tailscaled.sock}
  provenance: {trailer: false, approvals: false}
`},
		{"config.yml", "segwi:\n  claude: {path: /opt/claude/bin/claude, model: opus}\n  repositories: [{name: web, path: " + repo + ", remote: upstream}]\n  runs: {maxConcurrent: 2, maxDuration: 90m, idleTimeout: 5m, stopGrace: 3s, passForgeTokens: true}\n  approvals: {timeout: 120s, trusted: [go test, git status]}\n  canary: {guardDeny: " + guard + "}\n  github: {apiURL: \"https://ghe.example.com/api/v3/\"}\n  remote: {enabled: true, port: 8443, owners: [alice@example.com, alice@github], socket: /run/tailscale/../tailscale/tailscaled.sock}\n  provenance: {trailer: false, approvals: false}\n"},
		{"config.toml", `[segwi.claude]
path = "/opt/claude/bin/claude"
model = "opus"

[[segwi.repositories]]
name = "web"
path = "` + repo + `"
remote = "upstream"

[segwi.runs]
maxConcurrent = 2
maxDuration = "1h30m"
idleTimeout = "5m"
stopGrace = "3s"
passForgeTokens = true

[segwi.approvals]
timeout = "2m"
trusted = ["go test", "git status"]

[segwi.canary]
guardDeny = "` + guard + `"

[segwi.github]
apiURL = "https://ghe.example.com/api/v3"

[segwi.remote]
enabled = true
port = 8443
owners = ["alice@example.com", "alice@github"]
socket = "/run/tailscale/tailscaled.sock"

[segwi.provenance]
trailer = false
approvals = false
`},
		{"config.json", `{"segwi": {
  "claude": {"path": "/opt/claude/bin/claude", "model": "opus"},
  "repositories": [{"name": "web", "path": "` + repo + `", "remote": "upstream"}],
  "runs": {"maxConcurrent": 2, "maxDuration": "1h30m", "idleTimeout": "5m", "stopGrace": "3s", "passForgeTokens": true},
  "approvals": {"timeout": "2m", "trusted": ["go test", "git status"]},
  "canary": {"guardDeny": "` + guard + `"},
  "github": {"apiURL": "https://ghe.example.com/api/v3"},
  "remote": {"enabled": true, "port": 8443, "owners": ["alice@example.com", "alice@github"], "socket": "/run/tailscale/tailscaled.sock"},
  "provenance": {"trailer": false, "approvals": false}
}}`},
	}
	for _, f := range files {
		t.Run("a "+filepath.Ext(f.name)+" file sets every key", func(t *testing.T) {
			res := load(t, writeConfig(t, f.name, f.body))
			if err := res.Err(); err != nil {
				t.Fatalf("got problems:\n%v", err)
			}
			if len(res.Unknown) != 0 {
				t.Errorf("got unknown keys %v, want none", res.Unknown)
			}
			if diff := cmp.Diff(want, res.Settings); diff != "" {
				t.Errorf("settings (-want +got):\n%s", diff)
			}
		})
	}
}

func TestLoadRefusesFilesItCannotRead(t *testing.T) {
	tests := []struct {
		name, file, body, want string
	}{
		{"a YAML syntax error names the file", "config.yaml", "segwi:\n  runs: [\n", "config.yaml: yaml: "},
		{"a TOML syntax error names the file", "config.toml", "[segwi\n", "config.toml: toml: "},
		{"a JSON syntax error names the file", "config.json", "{\"segwi\": ", "config.json: unexpected end of JSON input: fix the JSON syntax"},
		{"a list at the top says what is expected", "config.yaml", "- a\n", "the file must hold a mapping with a segwi section, not a list"},
		{"an unknown extension says which to use", "config.ini", "x=1", `cannot tell the file's format from its extension ".ini": name it .yaml, .toml or .json`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Load(writeConfig(t, tt.file, tt.body))
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("got error %v, want one containing %q", err, tt.want)
			}
		})
	}
}

func TestValidationNamesTheFileTheKeyAndTheProblem(t *testing.T) {
	home := t.TempDir()
	t.Setenv("HOME", home)
	notDir := filepath.Join(home, "notes.txt")
	if err := os.WriteFile(notDir, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(filepath.Join(home, "web"), 0o700); err != nil {
		t.Fatal(err)
	}
	long := strings.Repeat("x", 1025)
	var many strings.Builder
	for i := 0; i < 65; i++ {
		many.WriteString("      - cmd\n")
	}
	tests := []struct {
		name, body string
		want       []string // problems, without the "FILE: " prefix
	}{
		{"maxConcurrent of 0 is out of range", "segwi:\n  runs:\n    maxConcurrent: 0\n",
			[]string{"segwi.runs.maxConcurrent: must be between 1 and 64, got 0"}},
		{"maxConcurrent of 65 is out of range", "segwi:\n  runs:\n    maxConcurrent: 65\n",
			[]string{"segwi.runs.maxConcurrent: must be between 1 and 64, got 65"}},
		{"maxConcurrent as a word is not a number", "segwi:\n  runs:\n    maxConcurrent: four\n",
			[]string{`segwi.runs.maxConcurrent: must be a whole number between 1 and 64, got "four"`}},
		{"a duration in words is not a Go duration", "segwi:\n  runs:\n    maxDuration: 2 hours\n",
			[]string{`segwi.runs.maxDuration: "2 hours" is not a duration like 90s, 30m or 2h`}},
		{"a duration without a unit says to add one", "segwi:\n  runs:\n    idleTimeout: 30\n",
			[]string{"segwi.runs.idleTimeout: 30 is not a duration like 90s, 30m or 2h: write it with a unit"}},
		{"a zero duration is out of range", "segwi:\n  runs:\n    stopGrace: 0s\n",
			[]string{"segwi.runs.stopGrace: must be between 1s and 5m, got 0s"}},
		{"a week and a day is too long for a run", "segwi:\n  runs:\n    maxDuration: 192h\n",
			[]string{"segwi.runs.maxDuration: must be between 1m and 168h, got 192h"}},
		{"an approval timeout of 1s is too short", "segwi:\n  approvals:\n    timeout: 1s\n",
			[]string{"segwi.approvals.timeout: must be between 10s and 24h, got 1s"}},
		{"passForgeTokens must be a boolean", "segwi:\n  runs:\n    passForgeTokens: \"yes please\"\n",
			[]string{`segwi.runs.passForgeTokens: must be true or false, got "yes please"`}},
		{"an empty claude path is refused", "segwi:\n  claude:\n    path: \"\"\n",
			[]string{"segwi.claude.path: must not be empty: name the Claude Code binary, e.g. claude or /usr/local/bin/claude"}},
		{"a model must be a string", "segwi:\n  claude:\n    model: [a]\n",
			[]string{"segwi.claude.model: must be a string, got the list [a]"}},
		{"a repository without a name is refused", "segwi:\n  repositories:\n    - path: ~/web\n",
			[]string{"segwi.repositories[0].name: must not be empty: give the repository a name to pick it by"}},
		{"two repositories with one name are refused", "segwi:\n  repositories:\n    - {name: web, path: ~/web}\n    - {name: web, path: ~/web}\n",
			[]string{`segwi.repositories[1].name: "web" is already the name of segwi.repositories[0]: names must be unique`}},
		{"a repository path that does not exist is refused", "segwi:\n  repositories:\n    - {name: api, path: ~/api}\n",
			[]string{"segwi.repositories[0].path: " + filepath.Join(home, "api") + " does not exist: fix the path or create it"}},
		{"a repository path that is a file is refused", "segwi:\n  repositories:\n    - {name: notes, path: ~/notes.txt}\n",
			[]string{"segwi.repositories[0].path: " + notDir + " is not a directory: write the checkout's directory"}},
		{"a relative repository path is refused", "segwi:\n  repositories:\n    - {name: web, path: src/web}\n",
			[]string{`segwi.repositories[0].path: must be an absolute path or start with ~/, got "src/web"`}},
		{"an empty repository path is refused", "segwi:\n  repositories:\n    - {name: web}\n",
			[]string{"segwi.repositories[0].path: must not be empty: write the checkout's directory, e.g. ~/src/web"}},
		{"repositories must be a list", "segwi:\n  repositories: ~/web\n",
			[]string{`segwi.repositories: must be a list of repositories (each with name, path and remote), got "~/web"`}},
		{"a repository entry must be a mapping", "segwi:\n  repositories:\n    - ~/web\n",
			[]string{`segwi.repositories[0]: must be a mapping with name, path and remote, got "~/web"`}},
		{"more than 64 trusted prefixes are refused", "segwi:\n  approvals:\n    trusted:\n" + many.String(),
			[]string{"segwi.approvals.trusted: has 65 entries, at most 64 are allowed"}},
		{"a trusted prefix over 1 KiB is refused", "segwi:\n  approvals:\n    trusted: [" + long + "]\n",
			[]string{"segwi.approvals.trusted[0]: is 1025 bytes long, at most 1024 (1 KiB) are allowed"}},
		{"an empty trusted prefix is refused", "segwi:\n  approvals:\n    trusted: [go test, \" \"]\n",
			[]string{"segwi.approvals.trusted[1]: must not be empty: an empty prefix would trust every command"}},
		{"trusted must be a list", "segwi:\n  approvals:\n    trusted: go test\n",
			[]string{`segwi.approvals.trusted: must be a list of command prefixes, got "go test"`}},
		{"a guard deny file that does not exist is refused", "segwi:\n  canary:\n    guardDeny: ~/guard.deny\n",
			[]string{"segwi.canary.guardDeny: " + filepath.Join(home, "guard.deny") + " does not exist: fix the path or create it"}},
		{"a guard deny path that is a directory is refused", "segwi:\n  canary:\n    guardDeny: ~/web\n",
			[]string{"segwi.canary.guardDeny: " + filepath.Join(home, "web") + " is a directory: write the path of a file"}},
		{"a GitHub API URL must be a URL", "segwi:\n  github:\n    apiURL: api.github.com\n",
			[]string{`segwi.github.apiURL: must be an https URL like https://api.github.com (or https://HOST/api/v3 for GitHub Enterprise), got "api.github.com"`}},
		// The token is sent to the API URL, and push refuses plain HTTP: so does the check.
		{"a plain-http GitHub API URL is refused", "segwi:\n  github:\n    apiURL: http://ghe.example.com/api/v3\n",
			[]string{`segwi.github.apiURL: must be an https URL: segwi sends the GitHub token to it, and only over HTTPS; got "http://ghe.example.com/api/v3" (write https://ghe.example.com/api/v3)`}},
		{"a plain-http GitHub API URL on loopback is refused too", "segwi:\n  github:\n    apiURL: http://127.0.0.1:8080/api/v3\n",
			[]string{`segwi.github.apiURL: must be an https URL: segwi sends the GitHub token to it, and only over HTTPS; got "http://127.0.0.1:8080/api/v3" (write https://127.0.0.1:8080/api/v3)`}},
		{"the remote page's switch must be a boolean", "segwi:\n  remote:\n    enabled: on please\n",
			[]string{`segwi.remote.enabled: must be true or false, got "on please"`}},
		{"the remote page's port must be a TCP port", "segwi:\n  remote:\n    port: 70000\n",
			[]string{"segwi.remote.port: must be between 1 and 65535, got 70000"}},
		{"the remote page's port must be a number", "segwi:\n  remote:\n    port: web\n",
			[]string{`segwi.remote.port: must be a whole number between 1 and 65535, got "web"`}},
		{"owners must be a list", "segwi:\n  remote:\n    owners: alice@example.com\n",
			[]string{`segwi.remote.owners: must be a list of tailnet login names such as alice@example.com, got "alice@example.com"`}},
		{"an owner must be a login name", "segwi:\n  remote:\n    owners: [alice@example.com, alice]\n",
			[]string{"segwi.remote.owners[1]: \"alice\" is not a tailnet login name: write it as tailscale shows it, such as alice@example.com or alice@github " +
				"(`tailscale status --json` shows yours under User)"}},
		{"an owner must be a string", "segwi:\n  remote:\n    owners: [{login: alice@example.com}]\n",
			[]string{"segwi.remote.owners[0]: must be a string (a tailnet login name such as alice@example.com), got a mapping"}},
		{"a relative tailscaled socket is refused", "segwi:\n  remote:\n    socket: tailscaled.sock\n",
			[]string{`segwi.remote.socket: must be an absolute path or start with ~/, got "tailscaled.sock": write the path of tailscaled's socket, e.g. /var/run/tailscale/tailscaled.sock`}},
		{"a section must be a mapping", "segwi:\n  runs: 4\n",
			[]string{"segwi.runs: must be a mapping of settings, got a number"}},
		{"a key written twice in two spellings is refused", "segwi:\n  runs:\n    maxConcurrent: 2\n    maxconcurrent: 3\n",
			[]string{`segwi.runs.maxconcurrent: is written twice, as "maxConcurrent" and "maxconcurrent": keep one`}},
		{"the key is named with the person's own spelling", "Segwi:\n  Runs:\n    MaxConcurrent: 0\n",
			[]string{"Segwi.Runs.MaxConcurrent: must be between 1 and 64, got 0"}},
		{"several problems are all reported", "segwi:\n  runs:\n    maxConcurrent: 0\n    stopGrace: soon\n",
			[]string{"segwi.runs.maxConcurrent: must be between 1 and 64, got 0", `segwi.runs.stopGrace: "soon" is not a duration like 90s, 30m or 2h`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := writeConfig(t, "config.yaml", tt.body)
			res := load(t, p)
			var got []string
			for _, pr := range res.Problems {
				got = append(got, pr.Error())
			}
			var want []string
			for _, w := range tt.want {
				want = append(want, p+": "+w)
			}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("problems (-want +got):\n%s", diff)
			}
			if res.Err() == nil {
				t.Error("got Err() nil, want the problems")
			}
		})
	}
	t.Run("a bad value is left at its default", func(t *testing.T) {
		res := load(t, writeConfig(t, "config.yaml", "segwi:\n  runs:\n    maxConcurrent: 0\n    maxDuration: 1h\n"))
		if got := res.Settings.Runs.MaxConcurrent; got != 4 {
			t.Errorf("got maxConcurrent %d, want the default 4", got)
		}
		if got := res.Settings.Runs.MaxDuration; got != time.Hour {
			t.Errorf("got maxDuration %s, want the good value 1h", got)
		}
	})
}

// Tests' servers on loopback have no certificate; push accepts plain HTTP to them only with
// an explicit option, and so does Load.
func TestLoopbackHTTPAPIURLOnlyWithTheTestOption(t *testing.T) {
	for _, tt := range []struct {
		url  string
		want int // problems
	}{
		{"http://127.0.0.1:8080/api/v3", 0},
		{"http://localhost:8080/api/v3", 0},
		{"http://ghe.example.com/api/v3", 1},
	} {
		p := writeConfig(t, "config.yaml", "segwi:\n  github:\n    apiURL: "+tt.url+"\n")
		res, err := Load(p, AllowLoopbackHTTP())
		if err != nil {
			t.Fatal(err)
		}
		if len(res.Problems) != tt.want {
			t.Errorf("%s with AllowLoopbackHTTP: problems %v, want %d", tt.url, res.Problems, tt.want)
		}
		if tt.want == 0 && res.Settings.GitHub.APIURL != tt.url {
			t.Errorf("apiURL = %q, want %q", res.Settings.GitHub.APIURL, tt.url)
		}
	}
}

func TestRepositoryPathsExpandTheHomeDirectory(t *testing.T) {
	home := t.TempDir()
	t.Setenv("HOME", home)
	for _, dir := range []string{"src/web", "api"} {
		if err := os.MkdirAll(filepath.Join(home, dir), 0o700); err != nil {
			t.Fatal(err)
		}
	}
	guard := filepath.Join(home, "guard.deny")
	if err := os.WriteFile(guard, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	res := load(t, writeConfig(t, "config.yaml", `segwi:
  repositories:
    - {name: web, path: ~/src/web/}
    - {name: api, path: `+filepath.Join(home, "api")+`}
  canary:
    guardDeny: ~/guard.deny
`))
	if err := res.Err(); err != nil {
		t.Fatal(err)
	}
	want := []Repository{
		{Name: "web", Path: filepath.Join(home, "src", "web"), Remote: "origin"},
		{Name: "api", Path: filepath.Join(home, "api"), Remote: "origin"},
	}
	if diff := cmp.Diff(want, res.Settings.Repositories); diff != "" {
		t.Errorf("repositories (-want +got):\n%s", diff)
	}
	if got := res.Settings.Canary.GuardDeny; got != guard {
		t.Errorf("got guardDeny %q, want %q", got, guard)
	}
}

func TestUnknownKeysAreReportedAsWritten(t *testing.T) {
	tests := []struct {
		name, file, body string
		want             []string
	}{
		{"a misspelt key keeps its spelling", "config.yaml", "segwi:\n  runs:\n    maxConcurent: 2\n", []string{"segwi.runs.maxConcurent"}},
		{"a key outside segwi is unknown", "config.yaml", "runs:\n  maxConcurrent: 2\n", []string{"runs"}},
		{"an unknown section is named once", "config.yaml", "segwi:\n  sandbox:\n    enabled: true\n", []string{"segwi.sandbox"}},
		{"a key in a repository entry names its index", "config.yaml", "segwi:\n  repositories:\n    - {name: web, path: /, remtoe: origin}\n", []string{"segwi.repositories[0].remtoe"}},
		{"unknown keys in TOML are found", "config.toml", "[segwi.runs]\nmaxConcurent = 2\n[segwi.Claude]\nbinary = \"x\"\n", []string{"segwi.Claude.binary", "segwi.runs.maxConcurent"}},
		{"unknown keys in JSON are found", "config.json", `{"segwi": {"Approvals": {"timout": "1m"}}}`, []string{"segwi.Approvals.timout"}},
		{"known keys in odd capitalisation are not unknown", "config.yaml", "SEGWI:\n  Runs:\n    MAXCONCURRENT: 2\n", nil},
		{"retired keys are not unknown", "config.yaml", "segwi:\n  mcpPermissions: {allow: [x]}\n  repositories:\n    - {name: web, path: /, allowedDomains: [a.com]}\n", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res := load(t, writeConfig(t, tt.file, tt.body))
			if err := res.Err(); err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, res.Unknown); diff != "" {
				t.Errorf("unknown keys (-want +got):\n%s", diff)
			}
		})
	}
}

// Keys are read whatever their case, as they are matched against the known keys, and only
// as written: a key with a dot in its name is one unknown key, not a path.
func TestKeysAreReadWhateverTheirCase(t *testing.T) {
	dir := t.TempDir()
	tests := []struct {
		name, file, body string
		check            func(Settings) string
	}{
		{"YAML", "config.yaml", "SEGWI:\n  Runs:\n    MAXCONCURRENT: 7\n  repositories:\n    - {NAME: web, Path: " + dir + ", REMOTE: upstream}\n",
			func(s Settings) string {
				if s.Runs.MaxConcurrent != 7 || len(s.Repositories) != 1 || !cmp.Equal(s.Repositories[0], Repository{Name: "web", Path: dir, Remote: "upstream"}) {
					return fmt.Sprintf("maxConcurrent %d, repositories %+v", s.Runs.MaxConcurrent, s.Repositories)
				}
				return ""
			}},
		{"TOML", "config.toml", "[Segwi.approvals]\nTimeOut = \"3m\"\n",
			func(s Settings) string {
				if s.Approvals.Timeout != 3*time.Minute {
					return fmt.Sprintf("approvals timeout %s", s.Approvals.Timeout)
				}
				return ""
			}},
		{"JSON", "config.json", `{"segwi": {"REMOTE": {"Port": 9999}}}`,
			func(s Settings) string {
				if s.Remote.Port != 9999 {
					return fmt.Sprintf("remote port %d", s.Remote.Port)
				}
				return ""
			}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res := load(t, writeConfig(t, tt.file, tt.body))
			if err := res.Err(); err != nil {
				t.Fatal(err)
			}
			if got := tt.check(res.Settings); got != "" {
				t.Errorf("got %s, want the values written", got)
			}
		})
	}
	t.Run("a key with a dot in its name is unknown and not read", func(t *testing.T) {
		res := load(t, writeConfig(t, "config.yaml", "segwi:\n  runs.maxConcurrent: 7\n"))
		if diff := cmp.Diff([]string{"segwi.runs.maxConcurrent"}, res.Unknown); diff != "" {
			t.Errorf("unknown keys (-want +got):\n%s", diff)
		}
		if got := res.Settings.Runs.MaxConcurrent; got != Default().Runs.MaxConcurrent {
			t.Errorf("got maxConcurrent %d, want the default %d: an unknown key is ignored", got, Default().Runs.MaxConcurrent)
		}
	})
	t.Run("of a key written twice, the one the problem names is read", func(t *testing.T) {
		for range 20 { // Go's map order differs from one load to the next
			res := load(t, writeConfig(t, "config.yaml", "segwi:\n  runs:\n    maxconcurrent: 3\n    maxConcurrent: 2\n"))
			if got := res.Settings.Runs.MaxConcurrent; got != 2 {
				t.Fatalf("got maxConcurrent %d, want 2, the value of maxConcurrent (the problem names maxconcurrent as the second)", got)
			}
		}
	})
}

func TestPathAndStateDir(t *testing.T) {
	home := t.TempDir()
	tests := []struct {
		name                string
		env                 map[string]string
		wantPath, wantState string
	}{
		{"with no XDG variables both live in the home directory", map[string]string{"HOME": home},
			filepath.Join(home, ".config/segwi/config.yaml"), filepath.Join(home, ".local/state/segwi")},
		{"XDG variables move both", map[string]string{"HOME": home, "XDG_CONFIG_HOME": "/cfg", "XDG_STATE_HOME": "/state"},
			"/cfg/segwi/config.yaml", "/state/segwi"},
		{"relative XDG variables are ignored", map[string]string{"HOME": home, "XDG_CONFIG_HOME": "cfg", "XDG_STATE_HOME": "state"},
			filepath.Join(home, ".config/segwi/config.yaml"), filepath.Join(home, ".local/state/segwi")},
		{"SEGWI_CONFIG wins over XDG_CONFIG_HOME", map[string]string{"HOME": home, "XDG_CONFIG_HOME": "/cfg", "SEGWI_CONFIG": "~/segwi.toml"},
			filepath.Join(home, "segwi.toml"), filepath.Join(home, ".local/state/segwi")},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			for _, k := range []string{"SEGWI_CONFIG", "XDG_CONFIG_HOME", "XDG_STATE_HOME"} {
				t.Setenv(k, "")
			}
			for k, v := range tt.env {
				t.Setenv(k, v)
			}
			if got, err := Path(); err != nil || got != tt.wantPath {
				t.Errorf("Path() = %q, %v; want %q", got, err, tt.wantPath)
			}
			if got, err := StateDir(); err != nil || got != tt.wantState {
				t.Errorf("StateDir() = %q, %v; want %q", got, err, tt.wantState)
			}
		})
	}
}
