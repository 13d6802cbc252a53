package app

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/test"
	"github.com/google/go-cmp/cmp"

	"github.com/segwi/segwi/internal/testing/await"
	"github.com/segwi/segwi/migrate"
	"github.com/segwi/segwi/runs"
	"github.com/segwi/segwi/settings"
)

const warningsFile = "/home/ada/.config/segwi/config.yaml"

func TestRetiredWindowListsEachKeyOnce(t *testing.T) {
	a := newSettingsTestApp(t)
	top := migrate.Retired{Key: "segwi.permissions", Setting: "segwi.permissions"}
	web := migrate.Retired{Key: "segwi.repositories[0].allowedDomains", Repository: "web", Setting: "segwi.repositories[].allowedDomains"}
	api := migrate.Retired{Key: "segwi.repositories[1].allowedDomains", Repository: "api", Setting: "segwi.repositories[].allowedDomains"}
	w := ShowRetired(a, warningsFile, []migrate.Retired{top, web, api, web}, func() error { return nil })
	if w == nil {
		t.Fatal("no window for three retired keys")
	}
	defer w.Close()
	texts := strings.Join(settingsLabels(w.Content()), "\n")
	for _, r := range []migrate.Retired{top, web, api} {
		if n := strings.Count(texts, r.Where()); n != 1 {
			t.Errorf("%s is listed %d times, want once:\n%s", r.Where(), n, texts)
		}
	}
	for _, want := range []string{
		`segwi.repositories[0].allowedDomains (repository "web")`,
		"This setting is retired and has no effect (segwi no longer sandboxes runs or limits their network access): delete it.",
		"Your settings file " + warningsFile + " holds settings segwi no longer uses.",
	} {
		if !strings.Contains(texts, want) {
			t.Errorf("the window does not say %q:\n%s", want, texts)
		}
	}
	if n := a.notifications(); len(n) != 0 {
		t.Errorf("the window sent the notifications %v; the tray process sends them", n)
	}
	w.Resize(fyne.NewSize(560, 420))
	assertMarkup(t, "warnings_retired.xml", w.Canvas())
}

func TestRetiredWithNothingFoundShowsNothing(t *testing.T) {
	a := newSettingsTestApp(t)
	if w := ShowRetired(a, warningsFile, nil, nil); w != nil {
		t.Errorf("got window %q for no retired keys", w.Title())
	}
	if n := a.notifications(); len(n) != 0 {
		t.Errorf("got notifications %v for no retired keys", n)
	}
}

func TestSettingsProblemsWindow(t *testing.T) {
	problems := errors.Join(
		settings.Problem{File: warningsFile, Key: "segwi.runs.maxConcurrent", Message: "must be between 1 and 64, got 0"},
		settings.Problem{File: warningsFile, Key: "segwi.runs.idleTimeout", Message: `"2x" is not a duration like 90s, 30m or 2h`},
	)
	t.Run("at start-up it says segwi runs with the defaults", func(t *testing.T) {
		a := newSettingsTestApp(t)
		opened := 0
		w := ShowSettingsProblems(a, warningsFile, problems, AtStartup, func() { opened++ })
		want := []string{ // the list first: the header and footer are its border
			"segwi.runs.maxConcurrent: must be between 1 and 64, got 0",
			`segwi.runs.idleTimeout: "2x" is not a duration like 90s, 30m or 2h`,
			"There are 2 problems in your settings file " + warningsFile + ":",
			"segwi started with its default settings and keeps running; fix the file and segwi picks it up.",
		}
		if diff := cmp.Diff(want, settingsLabels(w.Content())); diff != "" {
			t.Errorf("texts (-want +got):\n%s", diff)
		}
		assertMarkup(t, "warnings_problems.xml", w.Canvas())
		test.Tap(settingsButton(t, w, "Open settings"))
		if opened != 1 {
			t.Errorf("Open settings called openSettings %d times, want 1", opened)
		}
		again := ShowSettingsProblems(a, warningsFile, problems, AtStartup, nil)
		if again == w {
			t.Fatal("Open settings left the problems window registered as open")
		}
		again.Close()
	})
	t.Run("after an edit it keeps the last good settings, in the same window", func(t *testing.T) {
		a := newSettingsTestApp(t)
		first := ShowSettingsProblems(a, warningsFile, problems, AtStartup, nil)
		parse := errors.New("reading settings: " + warningsFile + ": yaml: line 3: mapping values are not allowed in this context: fix the YAML syntax")
		w := ShowSettingsProblems(a, warningsFile, parse, AfterEdit, nil)
		if w != first {
			t.Error("a second finding opened a second window")
		}
		want := []string{
			parse.Error(),
			"There is a problem in your settings file " + warningsFile + ":",
			"segwi keeps the last good settings and keeps running; fix the file and segwi picks it up.",
		}
		if diff := cmp.Diff(want, settingsLabels(w.Content())); diff != "" {
			t.Errorf("texts (-want +got):\n%s", diff)
		}
		if settingsFindButton(w.Content(), "Open settings") != nil {
			t.Error("an Open settings button without a way to open them")
		}
		CloseSettingsProblems(a)
		if again := ShowSettingsProblems(a, warningsFile, parse, AfterEdit, nil); again == w {
			t.Error("CloseSettingsProblems left the window registered")
		} else {
			again.Close()
		}
	})
}

// Each Open button opens what it names: the settings file, a damaged run's folder.
func TestOpenButtonsOpenWhatTheyName(t *testing.T) {
	file := filepath.Join(t.TempDir(), "config.yaml")
	if err := os.WriteFile(file, []byte("segwi: {}\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, tt := range openButtons(file) {
		t.Run(tt.name, func(t *testing.T) {
			a := newSettingsTestApp(t)
			w := tt.show(a)
			defer w.Close()
			test.Tap(settingsButton(t, w, tt.button))
			await.For(t, 10*time.Second, "it to be opened", func() bool {
				got := a.openedURLs()
				return len(got) == 1 && got[0] == "file://"+tt.path
			})
		})
	}
}

// openButtons are the Open buttons of the windows about the settings and the records, on
// the settings file file.
func openButtons(file string) []struct {
	name, button, what, path string
	show                     func(a fyne.App) fyne.Window
} {
	return []struct {
		name, button, what, path string
		show                     func(a fyne.App) fyne.Window
	}{
		{"the retired settings' Open file", "Open file", "the settings file", file, func(a fyne.App) fyne.Window {
			return ShowRetired(a, file, []migrate.Retired{{Key: "segwi.branchPrefixes", Setting: "segwi.branchPrefixes"}}, nil)
		}},
		{"the settings problems' Open file", "Open file", "the settings file", file, func(a fyne.App) fyne.Window {
			return ShowSettingsProblems(a, file, errors.New("bad"), AtStartup, nil)
		}},
		{"the settings warnings' Open file", "Open file", "the settings file", file, func(a fyne.App) fyne.Window {
			return ShowSettingsWarnings(a, file, []string{"segwi.x"}, nil, nil, nil)
		}},
		{"the damaged records' Open folder", "Open folder", "the folder", "/s/runs/r1", func(a fyne.App) fyne.Window {
			return ShowDamagedRecords(a, []runs.Damaged{{File: "/s/runs/r1/run.json", Dir: "/s/runs/r1", Err: errors.New("unexpected end of JSON input")}})
		}},
	}
}

// Without xdg-open (or with a broken one) each Open button says why nothing opened, in its
// window, and puts the path on the clipboard: the person would otherwise press it again
// and again.
func TestOpenButtonsSayWhyNothingOpened(t *testing.T) {
	noOpener := errors.New("xdg-open is not installed, and segwi opens files and folders with it")
	file := filepath.Join(t.TempDir(), "config.yaml")
	if err := os.WriteFile(file, []byte("segwi: {}\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, tt := range openButtons(file) {
		t.Run(tt.name, func(t *testing.T) {
			a := newSettingsTestApp(t)
			a.openErr = noOpener
			w := tt.show(a)
			defer w.Close()
			test.Tap(settingsButton(t, w, tt.button))
			want := "Could not open " + tt.what + " " + tt.path + ": " + noOpener.Error() + ". Its path is on the clipboard."
			awaitLabel(t, w, want)
			if got := a.Clipboard().Content(); got != tt.path {
				t.Errorf("the clipboard holds %q, want %q", got, tt.path)
			}
		})
	}
}

// awaitLabel waits until a label of w says want.
func awaitLabel(t *testing.T, w fyne.Window, want string) {
	t.Helper()
	var texts []string
	await.For(t, 10*time.Second, "the window to say "+want, func() error {
		ui(func() { texts = settingsLabels(w.Content()) })
		if strings.Contains(strings.Join(texts, "\n"), want) {
			return nil
		}
		return fmt.Errorf("it says:\n%s", strings.Join(texts, "\n"))
	})
}

func TestRetiredWindowRemovesTheKeysAndKeepsTheRest(t *testing.T) {
	path := filepath.Join(t.TempDir(), "config.yaml")
	body := "# mine\nsegwi:\n  # the model\n  claude:\n    model: opus # for now\n  branchPrefixes: [a/]\n  # runs\n  runs:\n    maxConcurrent: 2\n"
	if err := os.WriteFile(path, []byte(body), 0o600); err != nil {
		t.Fatal(err)
	}
	res, err := settings.Load(path)
	if err != nil || len(res.Retired) != 1 {
		t.Fatalf("Load = %v retired, %v; want one", res.Retired, err)
	}
	a := newSettingsTestApp(t)
	// The tray's RemoveRetired, which the window's remove asks for; the tray answers only
	// once released, as a busy tray would.
	release := make(chan struct{})
	w := ShowRetired(a, path, res.Retired, func() error {
		<-release
		_, err := settings.RemoveRetired(path)
		return err
	})
	defer w.Close()
	remove := settingsButton(t, w, "Remove them")
	test.Tap(remove) // returns while the tray has not answered: the window does not freeze
	if !remove.Disabled() {
		t.Error("Remove them is still enabled while the tray removes the keys")
	}
	close(release)
	removed := "Removed the retired settings from " + path
	await.For(t, 10*time.Second, "the window to say what it removed", func() bool {
		said := false
		onUIWait(func() { said = strings.Contains(strings.Join(settingsLabels(w.Content()), "\n"), removed) })
		return said
	})
	want := "# mine\nsegwi:\n  # the model\n  claude:\n    model: opus # for now\n  # runs\n  runs:\n    maxConcurrent: 2\n"
	if got, _ := os.ReadFile(path); string(got) != want {
		t.Errorf("the file after Remove them:\n%s\nwant:\n%s", got, want)
	}
	if !remove.Disabled() {
		t.Error("Remove them is still enabled with nothing left to remove")
	}
}
