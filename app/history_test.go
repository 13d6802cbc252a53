package app

import (
	"testing"
	"time"

	"fyne.io/fyne/v2/test"

	"github.com/segwi/segwi/internal/testing/records"
	"github.com/segwi/segwi/runs"
	"github.com/segwi/segwi/settings"
)

func TestHistoryListsRunsNewestFirstAndOpensOne(t *testing.T) {
	a := test.NewTempApp(t)
	state := t.TempDir()
	web := "/home/ada/src/web"
	repos := func() []settings.Repository { return []settings.Repository{{Name: "web", Path: web}} }
	older := runs.Info{ID: "r1", Kind: runs.KindBuild, Checkout: web, Prompt: "fix the login\nand the tests",
		State: runs.StateSucceeded, Created: time.Date(2026, 3, 14, 9, 26, 0, 0, time.Local), CostUSD: 0.12}
	newer := runs.Info{ID: "r2", Kind: runs.KindAsk, Checkout: "/tmp/elsewhere", Prompt: "what is this?",
		State: runs.StateFailed, Created: time.Date(2026, 3, 15, 10, 0, 0, 0, time.Local)}

	var opened []string
	h := newHistoryWindow(a, state, repos, func(info runs.Info) { opened = append(opened, info.ID) })
	t.Cleanup(h.win.Close)
	if got, want := h.note.Text, "No runs yet. Start one from the tray menu."; got != want {
		t.Errorf("with no runs the note says %q, want %q", got, want)
	}

	records.WriteRun(t, state, older)
	records.WriteRun(t, state, newer)
	test.Tap(settingsButton(t, h.win, "Refresh"))
	if got, want := h.note.Text, "2 runs, the newest first. Click one to see it."; got != want {
		t.Errorf("note = %q, want %q", got, want)
	}
	wantLines := []string{
		"2026-03-15 10:00 · elsewhere · ask · failed · what is this?",
		"2026-03-14 09:26 · web · build · succeeded · $0.1200 · fix the login…",
	}
	for i, want := range wantLines {
		if got := historyLine(h.infos[i], repos()); got != want {
			t.Errorf("line %d = %q, want %q", i, got, want)
		}
	}
	h.list.Select(1)
	if len(opened) != 1 || opened[0] != "r1" {
		t.Errorf("clicking the second line opened %v, want [r1]", opened)
	}
}
