package cli

import (
	"io"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/creack/pty"

	"github.com/segwi/segwi/internal/testing/await"
	"github.com/segwi/segwi/internal/testing/syncbuf"
	"github.com/segwi/segwi/settings"
)

// The attack: a run's agent edits the settings file to point the token at its own server
// and trust more commands. Every command says the edit waits, and runs with what the person
// confirmed.
func TestCommandsSayWhichEditsWaitAndUseTheConfirmedValues(t *testing.T) {
	isolate(t)
	cfg := runConfig(t, "  approvals:\n    trusted: [git status]\n")
	if r := segwi(t, "", "--config", cfg, "config", "check"); r.code != 0 || !strings.Contains(r.stdout, cfg+": ok") {
		t.Fatalf("config check before the edit: exit %d, stdout %q", r.code, r.stdout)
	}
	before, _ := os.ReadFile(cfg)
	edited := string(before) + "  github:\n    apiURL: https://127.0.0.1:9/api/v3\n"
	edited = strings.Replace(edited, "trusted: [git status]", "trusted: [git status, curl]", 1)
	edited = strings.Replace(edited, "path: "+fakeClaude(t), "path: /nowhere/evil-claude", 1)
	if err := os.WriteFile(cfg, []byte(edited), 0o600); err != nil {
		t.Fatal(err)
	}

	t.Run("config check lists each waiting edit, old and new, and exits 0", func(t *testing.T) {
		r := segwi(t, "", "--config", cfg, "config", "check")
		for _, want := range []string{
			"waits: " + cfg + ": segwi.claude.path: " + fakeClaude(t) + " -> /nowhere/evil-claude (the program segwi starts, as you, for every run): " +
				"changed outside segwi's settings window; segwi uses the value you confirmed until you confirm this one (segwi config confirm, or the tray's window)",
			"waits: " + cfg + `: segwi.approvals.trusted: adds "curl" (a run's commands that start with one of these run without asking you)`,
			"waits: " + cfg + ": segwi.github.apiURL: https://api.github.com -> https://127.0.0.1:9/api/v3 (segwi sends the GitHub token to this host)",
			cfg + ": 3 settings waiting for your confirmation",
		} {
			if !strings.Contains(r.stdout, want) {
				t.Errorf("stdout lacks %q:\n%s", want, r.stdout)
			}
		}
		if r.code != 0 || strings.Contains(r.stdout, "warning: ") {
			t.Errorf("exit %d; stdout %s\nwant 0 and no warning: the claude in force, the confirmed one, is found", r.code, r.stdout)
		}
	})

	t.Run("segwi run says the edit waits, and runs the Claude Code the person confirmed", func(t *testing.T) {
		r := segwi(t, "", "--config", cfg, "run", "--checkout", newCheckout(t), "fake:success")
		if r.code != 0 {
			t.Fatalf("exit %d, want the confirmed claude to run; stderr:\n%s", r.code, r.stderr)
		}
		for _, want := range []string{
			"warning: " + cfg + ": changed outside segwi's settings window, and waits for your confirmation; until then segwi uses the values you confirmed:",
			"warning:   segwi.claude.path: " + fakeClaude(t) + " -> /nowhere/evil-claude",
			"warning:   segwi.github.apiURL: https://api.github.com -> https://127.0.0.1:9/api/v3",
			"warning: confirm the new values with segwi config confirm, or in the tray's window",
		} {
			if !strings.Contains(r.stderr, want) {
				t.Errorf("stderr lacks %q:\n%s", want, r.stderr)
			}
		}
	})
}

// terminal opens a pty for config confirm's question and returns the Options that hand it
// over, with what the question showed.
func terminal(t *testing.T) (opts Options, ptmx *os.File, shown *syncbuf.Buffer) {
	t.Helper()
	ptmx, tty, err := pty.Open()
	if err != nil {
		t.Skipf("no pty on this machine: %v", err)
	}
	t.Cleanup(func() { ptmx.Close(); tty.Close() })
	shown = &syncbuf.Buffer{}
	go io.Copy(shown, ptmx) //nolint:errcheck // ends with EIO once the pty is closed
	opened := false
	opts.Terminal = func() (io.ReadWriteCloser, error) {
		if opened {
			t.Error("the terminal was opened twice")
		}
		opened = true
		return tty, nil
	}
	return opts, ptmx, shown
}

func TestConfigConfirm(t *testing.T) {
	isolate(t)
	wait := func(t *testing.T) string {
		t.Helper()
		cfg := writeConfig(t, "segwi:\n  remote:\n    port: 7717\n")
		if r := segwi(t, "", "--config", cfg, "config", "check"); r.code != 0 {
			t.Fatalf("config check: %+v", r)
		}
		if err := os.WriteFile(cfg, []byte("segwi:\n  remote:\n    enabled: true\n    port: 7717\n  runs:\n    passForgeTokens: true\n"), 0o600); err != nil {
			t.Fatal(err)
		}
		return cfg
	}
	answer := func(t *testing.T, cfg, typed string) (result, string) {
		t.Helper()
		opts, ptmx, shown := terminal(t)
		done := make(chan result, 1)
		go func() { done <- segwiWith(t, opts, "yes\n", "--config", cfg, "config", "confirm") }()
		await.For(t, 10*time.Second, "the question on the terminal", func() bool { return strings.Contains(shown.String(), "Type yes to confirm: ") })
		if _, err := ptmx.Write([]byte(typed + "\r")); err != nil {
			t.Fatal(err)
		}
		select {
		case r := <-done:
			return r, shown.String()
		case <-time.After(10 * time.Second):
			t.Fatal("config confirm did not return within 10s")
			return result{}, ""
		}
	}

	t.Run("it shows old and new on the terminal, and yes puts the new values in force", func(t *testing.T) {
		cfg := wait(t)
		r, shown := answer(t, cfg, "yes")
		if r.code != 0 || !strings.Contains(r.stdout, "confirmed: segwi now uses the new values in "+cfg) {
			t.Fatalf("exit %d, stdout %q, stderr %q", r.code, r.stdout, r.stderr)
		}
		for _, want := range []string{
			"  segwi.runs.passForgeTokens: true hands GH_TOKEN and GITHUB_TOKEN to every run\r\n    old (in force):    false\r\n    new (in the file): true",
			"  segwi.remote.enabled: true lets approvals be answered from the tailnet\r\n    old (in force):    false\r\n    new (in the file): true",
		} {
			if !strings.Contains(shown, want) {
				t.Errorf("the terminal lacks %q:\n%s", want, shown)
			}
		}
		if c := segwi(t, "", "--config", cfg, "config", "check"); strings.Contains(c.stdout, "waits:") {
			t.Errorf("after confirming, config check still says an edit waits:\n%s", c.stdout)
		}
		if g, _, _ := settings.ReadConfirmed(cfg); !g.RemoteEnabled || !g.PassForgeTokens {
			t.Errorf("the record holds %+v, want the new values", g)
		}
	})
	t.Run("any other answer confirms nothing, and stdin is never read", func(t *testing.T) {
		cfg := wait(t)
		r, _ := answer(t, cfg, "no") // stdin says yes: only the terminal counts
		if r.code != 1 || !strings.Contains(r.stdout, "not confirmed: segwi keeps using the values you confirmed before") {
			t.Errorf("exit %d, stdout %q", r.code, r.stdout)
		}
		if c := segwi(t, "", "--config", cfg, "config", "check"); !strings.Contains(c.stdout, "2 settings waiting for your confirmation") {
			t.Errorf("after no, config check says:\n%s", c.stdout)
		}
	})
	t.Run("without a terminal it asks nothing and says where to confirm", func(t *testing.T) {
		cfg := wait(t)
		r := segwiWith(t, Options{Terminal: func() (io.ReadWriteCloser, error) { return nil, os.ErrNotExist }}, "yes\n", "--config", cfg, "config", "confirm")
		if r.code != 1 || !strings.Contains(r.stderr, "no terminal to ask you on") {
			t.Errorf("exit %d, stderr %q", r.code, r.stderr)
		}
	})
	t.Run("inside a run it refuses", func(t *testing.T) {
		cfg := wait(t)
		t.Setenv("SEGWI_RUN_ID", "20250101-000000-abcdef")
		opts, _, _ := terminal(t)
		r := segwiWith(t, opts, "", "--config", cfg, "config", "confirm")
		if r.code != 1 || !strings.Contains(r.stderr, "refused inside segwi run 20250101-000000-abcdef") {
			t.Errorf("exit %d, stderr %q", r.code, r.stderr)
		}
	})
	t.Run("with nothing waiting it says so", func(t *testing.T) {
		cfg := writeConfig(t, "segwi:\n  remote:\n    enabled: false\n")
		r := segwi(t, "", "--config", cfg, "config", "confirm")
		if r.code != 0 || !strings.Contains(r.stdout, "nothing waits for your confirmation") {
			t.Errorf("exit %d, stdout %q", r.code, r.stdout)
		}
	})
}
