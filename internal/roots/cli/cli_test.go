package cli

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/segwi/segwi/settings"
	"github.com/segwi/segwi/settings/token/keyring"
)

// result is what one run of segwi printed and returned.
type result struct {
	code           int
	stdout, stderr string
}

// segwi runs the command line with args and stdin, isolated from the person's own
// settings, and returns what it printed.
func segwi(t *testing.T, stdin string, args ...string) result {
	t.Helper()
	return segwiWith(t, Options{}, stdin, args...)
}

// segwiWith is segwi with opts; its streams and tray are the test's.
func segwiWith(t *testing.T, opts Options, stdin string, args ...string) result {
	t.Helper()
	var out, errOut bytes.Buffer
	opts.Stdin, opts.Stdout, opts.Stderr = strings.NewReader(stdin), &out, &errOut
	opts.Tray = func(context.Context, *Env) error { t.Error("the tray was opened"); return nil }
	code := run(context.Background(), args, opts)
	return result{code, out.String(), errOut.String()}
}

// isolate points every settings location at a temp dir for the test.
func isolate(t *testing.T) string {
	t.Helper()
	home := t.TempDir()
	t.Setenv("HOME", home)
	t.Setenv("XDG_CONFIG_HOME", filepath.Join(home, "config"))
	t.Setenv("XDG_STATE_HOME", filepath.Join(home, "state"))
	t.Setenv("XDG_DATA_HOME", filepath.Join(home, "data")) // where run worktrees go
	t.Setenv("SEGWI_CONFIG", "")
	return home
}

func writeConfig(t *testing.T, body string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "config.yaml")
	if err := os.WriteFile(p, []byte(body), 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestConfigCheck(t *testing.T) {
	isolate(t)
	// The default segwi.claude.path, claude, is found in PATH: the stand-in's folder.
	t.Setenv("PATH", filepath.Dir(fakeClaude(t))+string(os.PathListSeparator)+os.Getenv("PATH"))
	repo := newCheckout(t)
	plain := t.TempDir()
	allSeven := "segwi:\n  permissions: {allow: [x]}\n  mcpPermissions: x\n  branchPrefixes: [a/]\n  allowUnsandboxed: true\n  allowedDomains: [a.com]\n" +
		"  repositories:\n    - name: web\n      path: " + repo + "\n      permissions: x\n      allowedDomains: [b.com]\n"
	tests := []struct {
		name     string
		body     string // "" for no file
		wantCode int
		want     []string // lines expected in stdout, FILE replaced by the path
	}{
		{"a missing file uses the defaults and passes", "", 0, []string{"FILE does not exist: segwi uses the defaults"}},
		{"a clean file passes", "segwi:\n  runs:\n    maxConcurrent: 2\n", 0, []string{"FILE: ok"}},
		{"an invalid value fails", "segwi:\n  runs:\n    maxConcurrent: 0\n", 1, []string{
			"error: FILE: segwi.runs.maxConcurrent: must be between 1 and 64, got 0", "FILE: 1 error"}},
		{"a plain-http GitHub API URL fails, naming the key", "segwi:\n  github:\n    apiURL: http://ghe.example.com/api/v3\n", 1, []string{
			`error: FILE: segwi.github.apiURL: must be an https URL: segwi sends the GitHub token to it, and only over HTTPS; got "http://ghe.example.com/api/v3" (write https://ghe.example.com/api/v3)`, "FILE: 1 error"}},
		{"an unknown key is listed but passes", "segwi:\n  runs:\n    maxConcurent: 2\n", 0, []string{
			"unknown: FILE: segwi.runs.maxConcurent: " + settings.UnknownHint, "FILE: 1 unknown key"}},
		{"a syntax error fails", "segwi:\n  runs: [\n", 1, []string{"error: reading settings: FILE: yaml: "}},
		{"all seven retired keys are named and pass", allSeven, 0, []string{
			"retired: FILE: segwi.allowUnsandboxed is retired",
			"retired: FILE: segwi.allowedDomains is retired",
			"retired: FILE: segwi.branchPrefixes is retired",
			"retired: FILE: segwi.mcpPermissions is retired",
			"retired: FILE: segwi.permissions is retired",
			`retired: FILE: segwi.repositories[0].allowedDomains (repository "web") is retired`,
			`retired: FILE: segwi.repositories[0].permissions (repository "web") is retired`,
			"FILE: 7 retired keys",
		}},
		{"the remote page off asks nothing of tailscaled", "segwi:\n  remote:\n    socket: /nonexistent/tailscaled.sock\n", 0, []string{"FILE: ok"}},
		{"the remote page on says when tailscaled is not running", "segwi:\n  remote:\n    enabled: true\n    socket: /nonexistent/tailscaled.sock\n", 1, []string{
			"error: FILE: segwi.remote.enabled is true, but the approval page cannot be served: tailscale: tailscaled is not running: " +
				"there is no socket at /nonexistent/tailscaled.sock: install Tailscale and start tailscaled, or set segwi.remote.socket to the socket it listens on",
			"FILE: 1 error"}},
		{"errors, unknown and retired keys are all counted", "segwi:\n  mcpPermissions: x\n  claude:\n    pth: x\n  runs:\n    stopGrace: soon\n", 1, []string{
			"FILE: 1 error, 1 unknown key, 1 retired key"}},
		{"a repository path that is not a git checkout is warned about but passes",
			"segwi:\n  repositories:\n    - {name: web, path: " + repo + "}\n    - {name: notes, path: " + plain + "}\n", 0, []string{
				`warning: segwi.repositories (repository "notes"): ` + plain + " is not a git checkout (it has no .git)", "FILE: 1 warning"}},
		{"a claude.path that finds nothing is warned about but passes", "segwi:\n  claude:\n    path: /nowhere/claude\n", 0, []string{
			`warning: claude not found at "/nowhere/claude" (settings key segwi.claude.path): install Claude Code and log in to it`, "FILE: 1 warning"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "config.yaml")
			if tt.body != "" {
				path = writeConfig(t, tt.body)
			}
			r := segwi(t, "", "--config", path, "config", "check")
			if r.code != tt.wantCode {
				t.Errorf("got exit %d, want %d; stdout:\n%s\nstderr:\n%s", r.code, tt.wantCode, r.stdout, r.stderr)
			}
			for _, w := range tt.want {
				if w = strings.ReplaceAll(w, "FILE", path); !strings.Contains(r.stdout, w) {
					t.Errorf("stdout lacks %q:\n%s", w, r.stdout)
				}
			}
			if r.stderr != "" {
				t.Errorf("got stderr %q, want none", r.stderr)
			}
			if !strings.Contains(tt.name, "warned") && strings.Contains(r.stdout, "warning") {
				t.Errorf("got a warning, want none:\n%s", r.stdout)
			}
		})
	}
	t.Run("with no file, a claude missing from PATH is warned about", func(t *testing.T) {
		t.Setenv("PATH", t.TempDir())
		r := segwi(t, "", "--config", filepath.Join(t.TempDir(), "config.yaml"), "config", "check")
		if want := `warning: claude not found at "claude" (settings key segwi.claude.path)`; r.code != 0 || !strings.Contains(r.stdout, want) {
			t.Errorf("got exit %d, stdout:\n%s\nwant 0 and %q", r.code, r.stdout, want)
		}
	})
	t.Run("each of the seven retired keys is named exactly once", func(t *testing.T) {
		path := writeConfig(t, allSeven)
		r := segwi(t, "", "--config", path, "config", "check")
		if got := strings.Count(r.stdout, "retired: "); got != 7 {
			t.Errorf("got %d retired lines, want 7:\n%s", got, r.stdout)
		}
		for _, key := range []string{"segwi.permissions ", "segwi.mcpPermissions ", "segwi.branchPrefixes ", "segwi.allowUnsandboxed ",
			"segwi.allowedDomains ", "segwi.repositories[0].permissions ", "segwi.repositories[0].allowedDomains "} {
			if n := strings.Count(r.stdout, key); n != 1 {
				t.Errorf("%s named %d times, want once:\n%s", key, n, r.stdout)
			}
		}
	})
}

func TestConfigPath(t *testing.T) {
	home := isolate(t)
	tests := []struct {
		name string
		env  string // SEGWI_CONFIG
		args []string
		want string
	}{
		{"by default it is under XDG_CONFIG_HOME", "", nil, filepath.Join(home, "config", "segwi", "config.yaml")},
		{"SEGWI_CONFIG overrides it", "/etc/segwi.toml", nil, "/etc/segwi.toml"},
		{"--config overrides SEGWI_CONFIG", "/etc/segwi.toml", []string{"--config", "~/my.json"}, filepath.Join(home, "my.json")},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Setenv("SEGWI_CONFIG", tt.env)
			r := segwi(t, "", append(tt.args, "config", "path")...)
			if r.code != 0 || r.stdout != tt.want+"\n" {
				t.Errorf("got exit %d, stdout %q; want 0, %q", r.code, r.stdout, tt.want+"\n")
			}
		})
	}
}

func TestTokenCommands(t *testing.T) {
	isolate(t)
	keyring.MockInit()
	const secret = "ghp_0123456789abcdef"
	steps := []struct {
		name, stdin string
		args        []string
		wantCode    int
		wantOut     string
		wantErr     string
	}{
		{"status with no token says not set", "", []string{"token", "status"}, 0, "GitHub token: not set; store one with segwi token set\n", ""},
		{"delete with no token says there was none", "", []string{"token", "delete"}, 0, "no GitHub token was stored; nothing to delete\n", ""},
		{"set refuses an empty stdin", "  \n", []string{"token", "set"}, 1, "", "segwi: no token given: paste it when asked, or pipe it in (segwi token set < token.txt)\n"},
		{"set refuses two lines", "a\nb\n", []string{"token", "set"}, 1, "", "segwi: the token contains spaces or several lines: give only the token\n"},
		{"set reads stdin and trims it, for the API in force", "\n  " + secret + "  \n", []string{"token", "set"}, 0,
			"GitHub token stored in the keyring (service segwi, item github-token), for api.github.com (pushes to github.com) (segwi.github.apiURL https://api.github.com)\n", ""},
		{"status says set, and for which host, without printing the token", "", []string{"token", "status"}, 0,
			"GitHub token: set for api.github.com (pushes to github.com), in the keyring (service segwi, item github-token)\n", ""},
		{"delete removes it", "", []string{"token", "delete"}, 0, "GitHub token deleted from the keyring (service segwi, item github-token)\n", ""},
		{"status after delete says not set", "", []string{"token", "status"}, 0, "GitHub token: not set; store one with segwi token set\n", ""},
	}
	for _, s := range steps {
		t.Run(s.name, func(t *testing.T) {
			r := segwi(t, s.stdin, s.args...)
			if r.code != s.wantCode || r.stdout != s.wantOut || r.stderr != s.wantErr {
				t.Errorf("got exit %d, stdout %q, stderr %q; want %d, %q, %q", r.code, r.stdout, r.stderr, s.wantCode, s.wantOut, s.wantErr)
			}
			if strings.Contains(r.stdout+r.stderr, secret) {
				t.Errorf("the token was printed: %q %q", r.stdout, r.stderr)
			}
		})
	}
	t.Run("set saves it for the API URL the person confirmed, not one an edit made since", func(t *testing.T) {
		cfg := writeConfig(t, "segwi:\n  github:\n    apiURL: https://ghe.example.com/api/v3\n")
		segwi(t, "", "--config", cfg, "config", "check") // taken as confirmed
		if err := os.WriteFile(cfg, []byte("segwi:\n  github:\n    apiURL: https://evil.example.com/api/v3\n"), 0o600); err != nil {
			t.Fatal(err)
		}
		r := segwi(t, secret+"\n", "--config", cfg, "token", "set")
		if r.code != 0 || !strings.Contains(r.stdout, ", for ghe.example.com (segwi.github.apiURL https://ghe.example.com/api/v3)") ||
			!strings.Contains(r.stderr, "segwi.github.apiURL: https://ghe.example.com/api/v3 -> https://evil.example.com/api/v3") {
			t.Errorf("got exit %d, stdout %q, stderr %q", r.code, r.stdout, r.stderr)
		}
		if st, _ := keyring.Status(context.Background()); st.APIHost != "ghe.example.com" {
			t.Errorf("saved for %q, want ghe.example.com", st.APIHost)
		}
	})
	t.Run("the stored token is the trimmed one", func(t *testing.T) {
		segwi(t, secret+"\n", "token", "set")
		if got, err := keyring.Get(context.Background()); got != secret || err != nil {
			t.Errorf("got %q, %v; want %q", got, err, secret)
		}
	})
	t.Run("a keyring that cannot be reached fails with what to do", func(t *testing.T) {
		keyring.MockInitWithError(errors.New("dbus: couldn't determine address of session bus"))
		t.Cleanup(keyring.MockInit)
		for _, verb := range []string{"set", "status", "delete"} {
			r := segwi(t, secret, "token", verb)
			if r.code != 1 || !strings.Contains(r.stderr, "no Secret Service reachable") || !strings.Contains(r.stderr, "gnome-keyring") {
				t.Errorf("token %s: got exit %d, stderr %q; want 1 and a message saying what to start", verb, r.code, r.stderr)
			}
		}
	})
}

func TestUsageErrorsExit2WithAUsageLine(t *testing.T) {
	isolate(t)
	tests := []struct {
		name string
		args []string
		want []string // in stderr
	}{
		{"an unknown command", []string{"frobnicate"}, []string{`segwi: unknown command "frobnicate" for "segwi"`, "usage: segwi [<command>] [flags]"}},
		{"a misspelt command gets a suggestion", []string{"confg"}, []string{"did you mean config?"}},
		{"an unknown flag", []string{"--frob"}, []string{"segwi: unknown flag: --frob", "usage: segwi [<command>] [flags]"}},
		{"an unknown flag on a subcommand", []string{"config", "check", "--frob"}, []string{"unknown flag: --frob", "usage: segwi config check [flags]"}},
		{"--config without a value", []string{"config", "path", "--config"}, []string{"flag needs an argument: --config"}},
		{"config without a subcommand", []string{"config"}, []string{"segwi config needs a command: check, confirm, path", "usage: segwi config <command> [flags]"}},
		{"an unknown config subcommand", []string{"config", "chek"}, []string{`unknown command "chek" for "segwi config"`, "did you mean check?"}},
		{"token without a subcommand", []string{"token"}, []string{"segwi token needs a command: delete, set, status"}},
		{"an argument to token set", []string{"token", "set", "ghp_x"}, []string{`unknown command "ghp_x" for "segwi token set"`, "usage: segwi token set [flags]"}},
		{"an argument to version", []string{"version", "x"}, []string{"usage: segwi version [flags]"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := segwi(t, "", tt.args...)
			if r.code != ExitUsage {
				t.Errorf("got exit %d, want %d; stderr %q", r.code, ExitUsage, r.stderr)
			}
			for _, w := range tt.want {
				if !strings.Contains(r.stderr, w) {
					t.Errorf("stderr lacks %q:\n%s", w, r.stderr)
				}
			}
			if strings.Contains(r.stderr, "ghp_x") && !strings.Contains(tt.name, "token set") {
				t.Errorf("unexpected: %s", r.stderr)
			}
		})
	}
	t.Run("--help is not an error", func(t *testing.T) {
		r := segwi(t, "", "--help")
		if r.code != 0 || !strings.Contains(r.stdout, "config") || !strings.Contains(r.stdout, "token") {
			t.Errorf("got exit %d, stdout %q; want 0 and the commands", r.code, r.stdout)
		}
	})
}

func TestVersion(t *testing.T) {
	tests := []struct{ version, want string }{{"dev", "segwi dev\n"}, {"v1.2.3", "segwi v1.2.3\n"}}
	for _, tt := range tests {
		t.Run("version "+tt.version+" is printed", func(t *testing.T) {
			old := Version
			Version = tt.version
			t.Cleanup(func() { Version = old })
			if r := segwi(t, "", "version"); r.code != 0 || r.stdout != tt.want {
				t.Errorf("got exit %d, stdout %q; want 0, %q", r.code, r.stdout, tt.want)
			}
		})
	}
}

// TestHeadlessOnlyForCommands: a command is started by Options.Headless (where main.go
// releases the main thread the tray keeps), the tray never.
func TestHeadlessOnlyForCommands(t *testing.T) {
	isolate(t)
	path := writeConfig(t, "segwi: {}\n")
	for _, tt := range []struct {
		args     []string
		headless int
	}{
		{[]string{"--config", path}, 0},
		{[]string{"--config", path, "version"}, 1},
		{[]string{"version", "--config", path}, 1},
		{[]string{"--config", path, "runs", "list"}, 1},
	} {
		headless, trays := 0, 0
		var errOut bytes.Buffer
		code := run(context.Background(), tt.args, Options{Stdin: strings.NewReader(""), Stdout: &bytes.Buffer{}, Stderr: &errOut,
			Tray: func(context.Context, *Env) error {
				if headless != 0 {
					t.Errorf("%q: the tray opened after Headless", tt.args)
				}
				trays++
				return nil
			},
			Headless: func() { headless++ },
		})
		if code != 0 || headless != tt.headless || trays != 1-tt.headless {
			t.Errorf("%q: got exit %d, Headless called %d times and %d trays; want 0, %d and %d; stderr %q",
				tt.args, code, headless, trays, tt.headless, 1-tt.headless, errOut.String())
		}
	}
}

func TestNoSubcommandOpensTheTray(t *testing.T) {
	isolate(t)
	path := writeConfig(t, "segwi:\n  mcpPermissions: x\n  runs:\n    maxConcurrent: 3\n")
	t.Run("the tray gets the settings through Env, with retired keys warned once", func(t *testing.T) {
		var errOut bytes.Buffer
		opened := 0
		code := run(context.Background(), []string{"--config", path}, Options{
			Stdin: strings.NewReader(""), Stdout: &bytes.Buffer{}, Stderr: &errOut,
			Tray: func(ctx context.Context, env *Env) error {
				opened++
				for i := 0; i < 2; i++ { // a reload must not warn again
					res, _, err := env.LoadSettings()
					if err != nil {
						return err
					}
					if res.Settings.Runs.MaxConcurrent != 3 {
						t.Errorf("got maxConcurrent %d, want 3", res.Settings.Runs.MaxConcurrent)
					}
				}
				return nil
			},
		})
		if code != 0 || opened != 1 {
			t.Errorf("got exit %d and %d trays, want 0 and 1; stderr %q", code, opened, errOut.String())
		}
		if n := strings.Count(errOut.String(), "segwi.mcpPermissions is retired"); n != 1 {
			t.Errorf("got %d warnings about segwi.mcpPermissions, want 1:\n%s", n, errOut.String())
		}
	})
	t.Run("a tray error exits 1 with the message", func(t *testing.T) {
		var errOut bytes.Buffer
		code := run(context.Background(), nil, Options{Stdin: strings.NewReader(""), Stdout: &bytes.Buffer{}, Stderr: &errOut,
			Tray: func(context.Context, *Env) error { return errors.New("opening the tray: no display") }})
		if code != 1 || errOut.String() != "segwi: opening the tray: no display\n" {
			t.Errorf("got exit %d, stderr %q", code, errOut.String())
		}
	})
	t.Run("invalid settings reach the tray as an error", func(t *testing.T) {
		bad := writeConfig(t, "segwi:\n  runs:\n    maxConcurrent: 0\n")
		var errOut bytes.Buffer
		code := run(context.Background(), []string{"--config", bad}, Options{Stdin: strings.NewReader(""), Stdout: &bytes.Buffer{}, Stderr: &errOut,
			Tray: func(_ context.Context, env *Env) error { _, _, err := env.LoadSettings(); return err }})
		if code != 1 || !strings.Contains(errOut.String(), bad+": segwi.runs.maxConcurrent: must be between 1 and 64, got 0") {
			t.Errorf("got exit %d, stderr %q", code, errOut.String())
		}
	})
}

func TestSIGTERMCancelsTheCommandsContext(t *testing.T) {
	isolate(t)
	var errOut bytes.Buffer
	code := Main(nil, Options{Stdin: strings.NewReader(""), Stdout: &bytes.Buffer{}, Stderr: &errOut,
		Tray: func(ctx context.Context, _ *Env) error {
			if err := syscall.Kill(os.Getpid(), syscall.SIGTERM); err != nil {
				return err
			}
			select {
			case <-ctx.Done():
				return nil // the tray quits cleanly when asked to
			case <-time.After(10 * time.Second):
				return errors.New("the context was not cancelled by SIGTERM within 10s")
			}
		}})
	if code != 0 {
		t.Errorf("got exit %d, stderr %q; want 0", code, errOut.String())
	}
}
