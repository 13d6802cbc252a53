package app

import (
	"slices"
	"testing"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/test"
	"github.com/google/go-cmp/cmp"

	"github.com/segwi/segwi/settings"
)

// answers counts the person's answers in a trusted-change window.
type answers struct{ applied, kept int }

func (n *answers) show(a fyne.App, ch settings.TrustedChange) *trustedWindow {
	return showTrustedChange(a, warningsFile, ch, func() { n.applied++ }, func() { n.kept++ })
}

// trustedWindowOpen reports whether a trusted-change window is open on a.
func trustedWindowOpen(a fyne.App) bool {
	trustedWindows.Lock()
	defer trustedWindows.Unlock()
	return trustedWindows.m[a] != nil
}

func TestTrustedChangeWindow(t *testing.T) {
	ch := settings.TrustedChange{Old: []string{"git status", "go test ./..."}, New: []string{"go test ./...", "rm", "curl"}}

	t.Run("it shows both lists, marks what was added and removed, and applies on a click", func(t *testing.T) {
		a := newSettingsTestApp(t)
		var n answers
		tw := n.show(a, ch)
		want := []string{ // the lists first: the text above and below is their border
			"Old list (in force)", "− git status", "  go test ./...",
			"New list (in the file)", "  go test ./...", "+ rm", "+ curl",
			"The trusted commands in your settings file " + warningsFile + " changed, and not in segwi's settings " +
				"window. segwi runs a trusted command without asking you, and a run's agent can write that file, " +
				"so segwi keeps the old list until you choose.",
			"2 commands added (marked +), 1 removed (marked −).",
		}
		if diff := cmp.Diff(want, settingsLabels(tw.win.Content())); diff != "" {
			t.Errorf("texts (-want +got):\n%s", diff)
		}
		if n := a.notifications(); len(n) != 0 {
			t.Errorf("the window sent the notifications %v; the tray process sends them", n)
		}
		assertMarkup(t, "trusted_change.xml", tw.win.Canvas())

		tw.apply.TypedKey(&fyne.KeyEvent{Name: fyne.KeySpace})
		if n.applied != 0 {
			t.Fatal("a key press applied the new list; only a click may")
		}
		test.Tap(tw.apply)
		if n != (answers{applied: 1}) || trustedWindowOpen(a) {
			t.Errorf("after Apply: %+v, window open %v; want one apply and the window closed", n, trustedWindowOpen(a))
		}
	})

	t.Run("keeping the old list, or closing the window, keeps it", func(t *testing.T) {
		a := newSettingsTestApp(t)
		var n answers
		test.Tap(n.show(a, ch).keep)
		if n != (answers{kept: 1}) || trustedWindowOpen(a) {
			t.Errorf("after Keep: %+v, window open %v; want one keep and the window closed", n, trustedWindowOpen(a))
		}
		n.show(a, ch).win.Close()
		if n != (answers{kept: 2}) {
			t.Errorf("after closing the window: %+v, want a second keep", n)
		}
	})

	t.Run("a newer change replaces the one shown, in the same window", func(t *testing.T) {
		a := newSettingsTestApp(t)
		var first, second answers
		tw := first.show(a, ch)
		newer := settings.TrustedChange{Old: ch.Old, New: append(append([]string{}, ch.Old...), "make")}
		if again := second.show(a, newer); again.win != tw.win {
			t.Fatal("a newer change opened a second window")
		}
		if got := settingsLabels(tw.win.Content()); !slices.Contains(got, "+ make") || !slices.Contains(got, "1 command added (marked +).") {
			t.Errorf("the window says %q, want the newer change", got)
		}
		test.Tap(tw.apply)
		if first != (answers{}) || second != (answers{applied: 1}) {
			t.Errorf("Apply answered %+v and %+v; want only the newer change applied", first, second)
		}
	})

	t.Run("when the change no longer waits, the window closes without an answer", func(t *testing.T) {
		a := newSettingsTestApp(t)
		var n answers
		n.show(a, ch)
		CloseTrustedChange(a)
		if n != (answers{}) || trustedWindowOpen(a) {
			t.Errorf("after CloseTrustedChange: %+v, window open %v; want no answer and the window closed", n, trustedWindowOpen(a))
		}
	})
}
