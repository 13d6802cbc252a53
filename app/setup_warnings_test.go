package app

import (
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/test"

	"github.com/segwi/segwi/internal/testing/await"
	"github.com/segwi/segwi/settings"
)

func TestSettingsWarningsWindow(t *testing.T) {
	a := newSettingsTestApp(t)
	checks := []string{`claude not found at "claude" (settings key segwi.claude.path): install Claude Code and log in to it, or set segwi.claude.path to the full path of its claude binary`}
	w := ShowSettingsWarnings(a, warningsFile, []string{"segwi.runs.idelTimeout"}, checks, nil, nil)
	if w == nil {
		t.Fatal("no window")
	}
	defer w.Close()
	w.Resize(fyne.NewSize(600, 420))
	assertMarkup(t, "warnings_settings.xml", w.Canvas())
}

// On the first launch there is no settings file: Open file offers to create one (the
// tray writes it, every key at its default) and opens it; Cancel creates nothing. Without
// a way to create it, the window says how to write one.
func TestSettingsWarningsOfferToCreateTheMissingFile(t *testing.T) {
	file := filepath.Join(t.TempDir(), "segwi", "config.yaml")
	checks := []string{`claude not found at "claude" (settings key segwi.claude.path): install Claude Code`}
	var created atomic.Int32
	create := func() error {
		created.Add(1)
		return settings.CreateStarter(file)
	}
	a := newSettingsTestApp(t)
	w := ShowSettingsWarnings(a, file, nil, checks, nil, create)
	defer w.Close()

	test.Tap(settingsButton(t, w, "Open file"))
	test.Tap(dialogButton(t, w, "Cancel"))
	if created.Load() != 0 || len(a.openedURLs()) != 0 {
		t.Fatalf("Cancel: %d files created, opened %v; want nothing", created.Load(), a.openedURLs())
	}
	test.Tap(settingsButton(t, w, "Open file"))
	if texts := strings.Join(settingsLabels(w.Canvas().Overlays().Top()), "\n"); !strings.Contains(texts, "There is no settings file at "+file+" yet") {
		t.Errorf("the question says:\n%s", texts)
	}
	test.Tap(dialogButton(t, w, "Create and open"))
	await.For(t, 10*time.Second, "the new file to be opened", func() bool {
		got := a.openedURLs()
		return len(got) == 1 && got[0] == "file://"+file
	})
	if res, err := settings.Load(file); err != nil || len(res.Problems)+len(res.Unknown) > 0 {
		t.Errorf("the file created: %v, %+v", err, res)
	}
	test.Tap(settingsButton(t, w, "Open file")) // it is there now: opened at once
	await.For(t, 10*time.Second, "the file to be opened again", func() bool { return len(a.openedURLs()) == 2 })
	if created.Load() != 1 {
		t.Errorf("created %d times, want once", created.Load())
	}

	b := newSettingsTestApp(t)
	missing := filepath.Join(t.TempDir(), "config.yaml")
	v := ShowSettingsWarnings(b, missing, nil, checks, nil, nil)
	defer v.Close()
	test.Tap(settingsButton(t, v, "Open file"))
	awaitLabel(t, v, "There is no settings file at "+missing+" yet: Save in the settings window writes one.")
}

func TestSettingsWarningsWithNothingShowNothing(t *testing.T) {
	a := newSettingsTestApp(t)
	if w := ShowSettingsWarnings(a, warningsFile, nil, nil, nil, nil); w != nil {
		t.Errorf("got window %q for nothing", w.Title())
	}
}
