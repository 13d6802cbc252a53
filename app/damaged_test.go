package app

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/test"
	"github.com/google/go-cmp/cmp"

	"github.com/segwi/segwi/internal/testing/await"
	"github.com/segwi/segwi/internal/testing/coretest"
	"github.com/segwi/segwi/internal/testing/records"
	"github.com/segwi/segwi/runs"
	"github.com/segwi/segwi/settings"
)

// What the tray app does at start with a state folder holding damaged records (app.Run:
// the core, then ShowDamagedRecords once Fyne has started): it starts, names each damaged
// file in a warning, lists the good runs in the history, and a run whose events cannot be
// read opens and says what is wrong with the file.
func TestTheAppStartsBesideDamagedRunRecordsAndNamesThem(t *testing.T) {
	state := t.TempDir()
	st := records.WriteDamaged(t, state)
	c, _ := coretest.New(t, "", coretest.Options{StateDir: state})
	a := newSettingsTestApp(t)

	t.Run("a warning names each damaged file and opens its folder", func(t *testing.T) {
		w := ShowDamagedRecords(a, c.Damaged())
		if w == nil {
			t.Fatal("no warning for two damaged records")
		}
		defer w.Close()
		texts := strings.Join(settingsLabels(w.Content()), "\n")
		for _, want := range []string{st.BadInfo, st.InterruptedEvents, "2 run records could not be read or updated.",
			"the run is left out: repair the file, or move its folder", "is a directory"} {
			if !strings.Contains(texts, want) {
				t.Errorf("the warning does not say %q:\n%s", want, texts)
			}
		}
		test.Tap(settingsButton(t, w, "Open folder"))
		await.For(t, 10*time.Second, "the damaged run's folder to be opened", func() error {
			if got := a.openedURLs(); len(got) != 1 || !strings.HasPrefix(got[0], "file://"+state) {
				return fmt.Errorf("opened %v, want the damaged run's folder under %s", got, state)
			}
			return nil
		})
	})

	t.Run("the history lists the good runs and names the damaged record", func(t *testing.T) {
		h := openHistory(t, a, state, func() []settings.Repository { return nil }, func(string) {})
		var ids []string
		note, _ := historyTexts(h)
		ui(func() {
			for _, r := range h.rows {
				ids = append(ids, r.sum.ID)
			}
		})
		if diff := cmp.Diff([]string{st.Interrupted, st.Unreadable, st.Good}, ids); diff != "" {
			t.Errorf("runs in the history (-want +got):\n%s", diff)
		}
		if !strings.Contains(note, st.BadInfo) || !strings.HasPrefix(note, "3 runs, the newest first.") {
			t.Errorf("the history's note is %q; want the 3 runs and the damaged %s", note, st.BadInfo)
		}
	})

	t.Run("a run whose events cannot be read opens and says why", func(t *testing.T) {
		info, err := runs.Load(state, st.Unreadable)
		if err != nil {
			t.Fatal(err)
		}
		var w *runWindow
		ui(func() {
			w = newRunWindow(runWindowDeps{app: a, stateDir: state, now: time.Now}, nil, info)
			w.Show()
		})
		defer ui(w.win.Close)
		await.For(t, 10*time.Second, "a row saying the events cannot be read", func() error {
			var texts []string
			for _, r := range onUIEntries(w) {
				if strings.HasPrefix(r, recordErrorMark+"|") && strings.Contains(r, st.UnreadableEvents) {
					return nil
				}
				texts = append(texts, r)
			}
			return errors.New(strings.Join(texts, "\n"))
		})
	})
}

// onUITimeline returns the window's timeline rows (mark|text), read on Fyne's goroutine.
// onUIEntries are the timeline's entries, each as "mark|text", its text whole however
// its rows break it.
func onUIEntries(w *runWindow) []string {
	var entries []string
	ui(func() {
		for _, e := range w.tl.entries {
			entries = append(entries, e.mark+"|"+e.text)
		}
	})
	return entries
}

func TestDamagedRecordsWindow(t *testing.T) {
	a := newSettingsTestApp(t)
	dir := "/home/ada/.local/state/segwi/runs/20250314-092653-abcdef"
	w := ShowDamagedRecords(a, []runs.Damaged{
		{Dir: dir, File: dir + "/run.json", Err: errors.New("unexpected end of JSON input")},
		{Dir: dir, File: dir + "/events.jsonl", Err: errors.New("permission denied")},
	})
	defer w.Close()
	w.Resize(fyne.NewSize(620, 420))
	assertMarkup(t, "warnings_damaged.xml", w.Canvas())
	if w := ShowDamagedRecords(a, nil); w != nil {
		t.Errorf("got window %q for no damaged records", w.Title())
	}
	if got := slices.Clone(a.notifications()); len(got) != 0 {
		t.Errorf("notifications %v; the warning is a window only", got)
	}
}
