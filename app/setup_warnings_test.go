package app

import (
	"errors"
	"strings"
	"testing"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/test"
)

func TestSettingsWarningsWindow(t *testing.T) {
	a := newSettingsTestApp(t)
	a.openErr = errors.New(`exec: "xdg-open": executable file not found in $PATH`)
	checks := []string{`claude not found at "claude" (settings key segwi.claude.path): install Claude Code and log in to it, or set segwi.claude.path to the full path of its claude binary`}
	w := ShowSettingsWarnings(a, warningsFile, []string{"segwi.runs.idelTimeout"}, checks, nil)
	if w == nil {
		t.Fatal("no window")
	}
	defer w.Close()
	test.Tap(settingsButton(t, w, "Open file"))
	want := `Could not open the settings file: exec: "xdg-open": executable file not found in $PATH.`
	if texts := settingsLabels(w.Content()); !strings.Contains(strings.Join(texts, "\n"), want) {
		t.Errorf("after a failed Open file the window does not say %q:\n%s", want, strings.Join(texts, "\n"))
	}
	w.Resize(fyne.NewSize(600, 420))
	assertMarkup(t, "warnings_settings.xml", w.Canvas())
}

func TestSettingsWarningsWithNothingShowNothing(t *testing.T) {
	a := newSettingsTestApp(t)
	if w := ShowSettingsWarnings(a, warningsFile, nil, nil, nil); w != nil {
		t.Errorf("got window %q for nothing", w.Title())
	}
}
