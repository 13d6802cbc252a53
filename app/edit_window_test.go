package app

import (
	"slices"
	"strings"
	"testing"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/test"
	"github.com/google/go-cmp/cmp"

	"github.com/segwi/segwi/settings"
)

// answers counts the person's answers in a guarded-edit window.
type answers struct{ applied, kept int }

func (n *answers) show(a fyne.App, e settings.GuardedEdit) *editWindow {
	return showGuardedEdit(a, warningsFile, e, func() { n.applied++ }, func() { n.kept++ })
}

// editWindowOpen reports whether a guarded-edit window is open on a.
func editWindowOpen(a fyne.App) bool {
	editWindows.Lock()
	defer editWindows.Unlock()
	return editWindows.m[a] != nil
}

// attackEdit is the edit a run's agent made in the attack: the token's host moved to its own
// server, the approval page turned on, and trusted commands added.
func attackEdit() settings.GuardedEdit {
	old := settings.GuardedOf(settings.Default())
	old.Trusted = []string{"git status", "go test ./..."}
	e := settings.GuardedEdit{Old: old, New: old}
	e.New.Trusted = []string{"go test ./...", "rm", "curl"}
	e.New.APIURL = "https://127.0.0.1:8443/api/v3"
	e.New.RemoteEnabled = true
	return e
}

func TestGuardedEditWindow(t *testing.T) {
	e := attackEdit()

	t.Run("it shows each setting's old and new value, marks what was added and removed, and applies on a click", func(t *testing.T) {
		a := newSettingsTestApp(t)
		var n answers
		ew := n.show(a, e)
		want := []string{
			"Your settings file " + warningsFile + " changed, and not in segwi's settings window. These settings " +
				"widen what a run, or someone on your tailnet, can do, and a run's agent can write that file, so segwi " +
				"keeps the old values until you choose.",
			"3 settings changed. Apply only what you changed yourself.",
		}
		if diff := cmp.Diff(want, settingsLabels(ew.win.Content())); diff != "" {
			t.Errorf("texts (-want +got):\n%s", diff)
		}
		wantView := strings.Join([]string{
			"segwi.approvals.trusted",
			"  a run's commands that start with one of these run without asking you",
			"  old (in force):",
			"    − git status",
			"      go test ./...",
			"  new (in the file):",
			"      go test ./...",
			"    + rm",
			"    + curl",
			"",
			"segwi.github.apiURL",
			"  segwi sends the GitHub token to this host",
			"  old (in force):    https://api.github.com",
			"  new (in the file): https://127.0.0.1:8443/api/v3",
			"",
			"segwi.remote.enabled",
			"  true lets approvals be answered from the tailnet",
			"  old (in force):    false",
			"  new (in the file): true",
		}, "\n")
		if diff := cmp.Diff(wantView, ew.view.text()); diff != "" {
			t.Errorf("the changes shown (-want +got):\n%s", diff)
		}
		if n := a.notifications(); len(n) != 0 {
			t.Errorf("the window sent the notifications %v; the tray process sends them", n)
		}
		assertMarkup(t, "guarded_edit.xml", ew.win.Canvas())

		ew.apply.TypedKey(&fyne.KeyEvent{Name: fyne.KeySpace})
		if n.applied != 0 {
			t.Fatal("a key press applied the new values; only a click may")
		}
		test.Tap(ew.apply)
		if n != (answers{applied: 1}) || editWindowOpen(a) {
			t.Errorf("after Apply: %+v, window open %v; want one apply and the window closed", n, editWindowOpen(a))
		}
	})

	t.Run("keeping the old values, or closing the window, keeps them", func(t *testing.T) {
		a := newSettingsTestApp(t)
		var n answers
		test.Tap(n.show(a, e).keep)
		if n != (answers{kept: 1}) || editWindowOpen(a) {
			t.Errorf("after Keep: %+v, window open %v; want one keep and the window closed", n, editWindowOpen(a))
		}
		n.show(a, e).win.Close()
		if n != (answers{kept: 2}) {
			t.Errorf("after closing the window: %+v, want a second keep", n)
		}
	})

	t.Run("a newer edit replaces the one shown, in the same window", func(t *testing.T) {
		a := newSettingsTestApp(t)
		var first, second answers
		ew := first.show(a, e)
		newer := settings.GuardedEdit{Old: e.Old, New: e.Old}
		newer.New.Trusted = append(slices.Clone(e.Old.Trusted), "make")
		if again := second.show(a, newer); again.win != ew.win {
			t.Fatal("a newer edit opened a second window")
		}
		if got := settingsLabels(ew.win.Content()); !slices.Contains(got, "1 setting changed. Apply only what you changed yourself.") ||
			!strings.Contains(ew.view.text(), "    + make") {
			t.Errorf("the window says %q and %q, want the newer edit", got, ew.view.text())
		}
		test.Tap(ew.apply)
		if first != (answers{}) || second != (answers{applied: 1}) {
			t.Errorf("Apply answered %+v and %+v; want only the newer edit applied", first, second)
		}
	})

	t.Run("when the edit no longer waits, the window closes without an answer", func(t *testing.T) {
		a := newSettingsTestApp(t)
		var n answers
		n.show(a, e)
		CloseGuardedEdit(a)
		if n != (answers{}) || editWindowOpen(a) {
			t.Errorf("after CloseGuardedEdit: %+v, window open %v; want no answer and the window closed", n, editWindowOpen(a))
		}
	})

	t.Run("the longest values an agent can write show at once", func(t *testing.T) {
		a := newSettingsTestApp(t)
		long := settings.GuardedEdit{Old: e.Old, New: e.Old}
		for i := 0; i < settings.MaxTrusted; i++ {
			long.New.Trusted = append(long.New.Trusted, strings.Repeat(string(rune('a'+i%26)), settings.MaxTrustedBytes))
		}
		long.New.ClaudePath = "/" + strings.Repeat("x", 4000)
		start := time.Now()
		var n answers
		ew := n.show(a, long)
		test.Tap(ew.keep)
		if d := time.Since(start); d > 5*time.Second {
			t.Errorf("showing %d trusted commands of %d bytes took %s", settings.MaxTrusted, settings.MaxTrustedBytes, d)
		}
	})
}
