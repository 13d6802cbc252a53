package hub_test

import (
	"context"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/segwi/segwi/control"
	"github.com/segwi/segwi/internal/roots/core"
	"github.com/segwi/segwi/internal/testing/await"
	"github.com/segwi/segwi/internal/testing/claudetest"
	"github.com/segwi/segwi/settings"
)

// At start the tray says what stops a run (a claude that is not there, a repository that
// is not a git checkout) and which keys it ignores, in a window and a notification, before
// the person presses Start; a reload shows only what is new.
func TestSettingsWarningsShowOnceEachAtStartAndOnReload(t *testing.T) {
	plain := t.TempDir()
	file := "segwi:\n  claude:\n    path: /nowhere/claude\n  runs:\n    idelTimeout: 5m\n" +
		"  repositories:\n    - {name: web, path: " + claudetest.Checkout(t) + "}\n    - {name: notes, path: " + plain + "}\n"
	h := newHarness(t, file, options{watch: true, checks: core.Checks})
	w := h.windows.window(t, 1)
	s := w.nextShow(t)
	if s.Window != control.ShowSettingsWarnings {
		t.Fatalf("the window process was asked to show %s, want the settings warnings", s.Window)
	}
	if !slices.Equal(s.Unknown, []string{"segwi.runs.idelTimeout"}) {
		t.Errorf("unknown keys shown %q, want segwi.runs.idelTimeout", s.Unknown)
	}
	checks := strings.Join(s.Checks, "\n")
	for _, want := range []string{`claude not found at "/nowhere/claude" (settings key segwi.claude.path)`,
		`segwi.repositories (repository "notes"): ` + plain + " is not a git checkout"} {
		if !strings.Contains(checks, want) {
			t.Errorf("the checks shown do not say %q:\n%s", want, checks)
		}
	}
	if len(s.Checks) != 2 {
		t.Errorf("%d checks shown, want 2 (web is a git checkout):\n%s", len(s.Checks), checks)
	}
	await.For(t, within, "the notification", func() bool {
		return slices.Contains(h.notes.all(), "Check your settings: Something in your settings stops runs, and some keys are ignored: see the window.")
	})

	// An edit that adds an unknown key shows that key alone; what was shown stays shown.
	if err := os.WriteFile(h.path, []byte(file+"  canary:\n    gardDeny: x\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	s = w.nextShow(t)
	if s.Window != control.ShowSettingsWarnings || !slices.Equal(s.Unknown, []string{"segwi.canary.gardDeny"}) || len(s.Checks) != 0 {
		t.Errorf("after the edit the window process was asked to show %+v, want segwi.canary.gardDeny alone", s)
	}
}

// Remove them in the retired-settings window is the tray's: it deletes the retired keys
// from its settings file and keeps the rest, comments included.
func TestRemoveRetiredDeletesTheRetiredKeysAndKeepsTheRest(t *testing.T) {
	h := newHarness(t, "# mine\nsegwi:\n  mcpPermissions: true # old\n  # the model\n  claude:\n    model: opus\n", options{})
	w := h.windows.window(t, 1)
	if s := w.nextShow(t); s.Window != control.ShowRetired {
		t.Fatalf("the window process was asked to show %s, want the retired keys", s.Window)
	}
	if err := w.client.RemoveRetired(context.Background()); err != nil {
		t.Fatalf("RemoveRetired: %v", err)
	}
	got, _ := os.ReadFile(h.path)
	if want := "# mine\nsegwi:\n  # the model\n  claude:\n    model: opus\n"; string(got) != want {
		t.Errorf("the file after RemoveRetired:\n%s\nwant:\n%s", got, want)
	}
	if res, err := settings.Load(h.path); err != nil || len(res.Retired) != 0 || res.Settings.Claude.Model != "opus" {
		t.Errorf("the file loads as %+v, %v; want no retired key and the model kept", res, err)
	}
}
