package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/segwi/segwi/internal/testing/claudetest"
	"github.com/segwi/segwi/internal/testing/fakeapi"
	"github.com/segwi/segwi/internal/testing/sockdir"
)

func TestCanaryCannotRunWithoutAGuardDenyFile(t *testing.T) {
	isolate(t)
	checkout := t.TempDir()
	empty := filepath.Join(t.TempDir(), "guard.deny")
	if err := os.WriteFile(empty, []byte("# nothing yet\n\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	missing := filepath.Join(t.TempDir(), "nothing-here.deny")
	tests := []struct {
		name      string
		guardDeny string
		want      []string // in stderr
	}{
		{"no segwi.canary.guardDeny fails, saying what to set", "",
			[]string{"segwi: canary: segwi.canary.guardDeny is not set: set it to the deny file your Claude Code guard hook reads", "(settings file: FILE)",
				"A guard hook is a Claude Code PreToolUse hook", "~/.claude/hooks/guard.sh"}},
		{"a missing deny file fails, naming it", missing,
			[]string{"segwi.canary.guardDeny: " + missing + " does not exist"}},
		{"a deny file without a command fails, naming it", empty,
			[]string{"the guard deny file " + empty + " (segwi.canary.guardDeny) lists no command"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			body := "segwi:\n  claude:\n    path: /bin/true\n"
			if tt.guardDeny != "" {
				body += "  canary:\n    guardDeny: " + tt.guardDeny + "\n"
			}
			cfg := writeConfig(t, body)
			r := segwi(t, "", "--config", cfg, "canary", "--checkout", checkout)
			if r.code != ExitError {
				t.Errorf("got exit %d, want %d; stderr:\n%s", r.code, ExitError, r.stderr)
			}
			for _, w := range tt.want {
				if w = strings.ReplaceAll(w, "FILE", cfg); !strings.Contains(r.stderr, w) {
					t.Errorf("stderr lacks %q:\n%s", w, r.stderr)
				}
			}
			if r.stdout != "" {
				t.Errorf("got stdout %q, want no report", r.stdout)
			}
		})
	}
	t.Run("an argument is a usage error", func(t *testing.T) {
		r := segwi(t, "", "canary", "now")
		if r.code != ExitUsage || !strings.Contains(r.stderr, "usage: segwi canary") {
			t.Errorf("got exit %d and stderr %q, want %d and a usage line", r.code, r.stderr, ExitUsage)
		}
	})
}

// TestCanaryExitStatus runs segwi canary with the real Claude Code against the fake model
// server: exit 0 when the guard hook refuses the guard command, 1 when there is none.
func TestCanaryExitStatus(t *testing.T) {
	tests := []struct {
		name     string
		guard    bool
		wantCode int
		want     string // in stdout
	}{
		{"every check passes: exit 0", true, ExitOK, "segwi canary PASSED: 9 of 9 checks passed"},
		{"no guard hook: exit 1, naming the failed check", false, ExitError, "FAIL guard refusal"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			claude := claudetest.Binary(t)
			checkout := claudetest.Checkout(t)
			read := fakeapi.ToolUse("Read", fakeapi.Input{"file_path": filepath.Join(checkout, "README.md")})
			log := fakeapi.ToolUse("Bash", fakeapi.Input{"command": "git log -1 --oneline"})
			push := fakeapi.ToolUse("Bash", fakeapi.Input{"command": "git push"})
			srv := fakeapi.New(t, fakeapi.Turns(
				fakeapi.Say(fakeapi.Text("Three steps."), read),
				fakeapi.Say(log),
				fakeapi.Say(push),
				fakeapi.Say(fakeapi.Text("Done.")),
			))
			env := claudetest.Env(t, srv.URL)
			deny := claudetest.WriteDenyFile(t, t.TempDir(), "git push")
			s := claudetest.Settings{}
			if tt.guard {
				s.Hooks = map[string][]claudetest.HookMatcher{"PreToolUse": {env.GuardHook(t, deny)}}
			}
			env.WriteSettings(t, s)
			// segwi runs Claude Code with its own environment: the sealed one.
			for _, kv := range env.Vars() {
				k, v, _ := strings.Cut(kv, "=")
				t.Setenv(k, v)
			}
			t.Setenv("SEGWI_CONFIG", "")
			if os.Getenv("DBUS_SESSION_BUS_ADDRESS") == "" {
				// segwi reads the keyring when a run starts; with no session bus at all,
				// godbus would launch a dbus-daemon that outlives the test.
				t.Setenv("DBUS_SESSION_BUS_ADDRESS", "unix:path="+filepath.Join(sockdir.New(t), "no-bus"))
			}
			cfg := writeConfig(t, "segwi:\n  claude:\n    path: "+claude+"\n  canary:\n    guardDeny: "+deny+"\n")

			r := segwi(t, "", "--config", cfg, "canary", "--checkout", checkout)

			if r.code != tt.wantCode {
				t.Errorf("got exit %d, want %d", r.code, tt.wantCode)
			}
			if !strings.Contains(r.stdout, tt.want) {
				t.Errorf("stdout lacks %q:\n%s\nstderr:\n%s", tt.want, r.stdout, r.stderr)
			}
			if !strings.Contains(r.stderr, "refused") && tt.guard {
				t.Errorf("stderr does not show the run's refusal event as it happened:\n%s", r.stderr)
			}
		})
	}
}
