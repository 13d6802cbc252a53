package app

import (
	"strings"
	"testing"
	"time"

	"fyne.io/fyne/v2"
	"github.com/google/go-cmp/cmp"

	"github.com/segwi/segwi/runs"
	"github.com/segwi/segwi/settings"
)

var trayT0 = time.Date(2025, 3, 14, 9, 30, 0, 0, time.UTC)

// menuLines renders a menu as lines: "---" for a separator, "(off)" after a disabled
// item, "(quit)" after the quit item.
func menuLines(m *fyne.Menu) []string {
	var out []string
	for _, it := range m.Items {
		if it.IsSeparator {
			out = append(out, "---")
			continue
		}
		l := it.Label
		if it.Disabled {
			l += " (off)"
		}
		if it.IsQuit {
			l += " (quit)"
		}
		out = append(out, l)
	}
	return out
}

// failingActions are tray actions that fail the test when called.
func failingActions(t *testing.T) trayActions {
	fail := func(what string) func() { return func() { t.Errorf("unexpected %s", what) } }
	return trayActions{
		NewRun:         func(k runs.Kind) { t.Errorf("unexpected new %s run", k) },
		OpenRun:        func(id string) { t.Errorf("unexpected open of run %s", id) },
		RaiseApprovals: fail("raise of the approvals"),
		History:        fail("history"),
		Settings:       fail("settings"),
		Canary:         fail("canary"),
		Quit:           fail("quit"),
	}
}

func TestTrayMenuItems(t *testing.T) {
	tests := []struct {
		name string
		snap traySnapshot
		want []string
	}{
		{
			name: "idle with no canary shows no runs and disables approvals and canary",
			snap: traySnapshot{Now: trayT0},
			want: []string{
				"New build run…", "New ready run…", "Ask…", "---",
				"No runs going (off)", "---",
				"Waiting approvals (0) (off)", "Run history…", "Settings…", "Run canary (off)", "---",
				"Quit (quit)",
			},
		},
		{
			name: "two runs, one waiting for a person, list each with its state and time",
			snap: traySnapshot{
				Now:     trayT0,
				Pending: 1,
				Canary:  true,
				Runs: []trayRun{
					{ID: "a", Name: "web", Kind: runs.KindBuild, State: runs.StateRunning, Since: trayT0.Add(-4*time.Minute - 20*time.Second)},
					{ID: "b", Name: "api", Kind: runs.KindAsk, State: runs.StateWaiting, Since: trayT0.Add(-75 * time.Minute)},
					{ID: "c", Name: "web", Kind: runs.KindReady, State: runs.StateQueued, Since: trayT0},
				},
			},
			want: []string{
				"New build run…", "New ready run…", "Ask…", "---",
				"web · build · running 4m",
				"api · ask · ⚠ waiting for you 1h 15m",
				"web · ready · queued",
				"---",
				"Waiting approvals (1)", "Run history…", "Settings…", "Run canary", "---",
				"Quit (quit)",
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := menuLines(trayMenu(tt.snap, failingActions(t)))
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("menu (-want +got):\n%s", diff)
			}
		})
	}
}

func TestTrayMenuActions(t *testing.T) {
	var got []string
	acts := trayActions{
		NewRun:         func(k runs.Kind) { got = append(got, "new "+string(k)) },
		OpenRun:        func(id string) { got = append(got, "open "+id) },
		RaiseApprovals: func() { got = append(got, "raise") },
		History:        func() { got = append(got, "history") },
		Settings:       func() { got = append(got, "settings") },
		Canary:         func() { got = append(got, "canary") },
		Quit:           func() { got = append(got, "quit") },
	}
	snap := traySnapshot{Now: trayT0, Pending: 2, Canary: true, Runs: []trayRun{
		{ID: "r1", Name: "web", Kind: runs.KindBuild, State: runs.StateRunning, Since: trayT0},
		{ID: "r2", Name: "api", Kind: runs.KindAsk, State: runs.StateStarting, Since: trayT0},
	}}
	for _, it := range trayMenu(snap, acts).Items {
		if it.Action != nil {
			it.Action()
		}
	}
	want := []string{"new build", "new ready", "new ask", "open r1", "open r2", "raise", "history", "settings", "canary", "quit"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("actions (-want +got):\n%s", diff)
	}
}

func TestTrayLook(t *testing.T) {
	running := trayRun{State: runs.StateRunning}
	tests := []struct {
		name string
		snap traySnapshot
		want trayLook
		icon fyne.Resource
	}{
		{"no runs is idle", traySnapshot{}, lookIdle, iconIdle},
		{"a queued run is busy", traySnapshot{Runs: []trayRun{{State: runs.StateQueued}}}, lookBusy, iconBusy},
		{"a running run is busy", traySnapshot{Runs: []trayRun{running}}, lookBusy, iconBusy},
		{"a waiting run wins over a running one", traySnapshot{Runs: []trayRun{running, {State: runs.StateWaiting}}}, lookWaiting, iconWaiting},
		{"a pending popup is waiting", traySnapshot{Pending: 1}, lookWaiting, iconWaiting},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := trayLookOf(tt.snap)
			if got != tt.want {
				t.Errorf("look = %d, want %d", got, tt.want)
			}
			if got.icon() != tt.icon {
				t.Errorf("icon = %s, want %s", got.icon().Name(), tt.icon.Name())
			}
		})
	}
}

func TestTrayRunNames(t *testing.T) {
	repos := []settings.Repository{{Name: "web", Path: "/home/ada/src/web-app"}}
	info := runs.Info{ID: "x", Kind: runs.KindBuild, Checkout: "/home/ada/src/web-app/", State: runs.StateRunning,
		Created: trayT0, Start: trayT0.Add(time.Minute)}
	if got := trayRunOf(info, repos); got.Name != "web" || !got.Since.Equal(info.Start) {
		t.Errorf("trayRunOf = %+v, want the repository's name and the start time", got)
	}
	info.Checkout, info.Start = "/tmp/scratch", time.Time{}
	if got := trayRunOf(info, repos); got.Name != "scratch" || !got.Since.Equal(trayT0) {
		t.Errorf("trayRunOf = %+v, want the folder's name and the queue time", got)
	}
}

func TestShortElapsed(t *testing.T) {
	for d, want := range map[time.Duration]string{
		10 * time.Second:                "<1m",
		4*time.Minute + 59*time.Second:  "4m",
		2*time.Hour + 3*time.Minute + 1: "2h 03m",
	} {
		if got := shortElapsed(d); got != want {
			t.Errorf("shortElapsed(%s) = %q, want %q", d, got, want)
		}
	}
	if !strings.Contains(runLabel(trayRun{Name: "w", Kind: runs.KindAsk, State: runs.StateStopping}, trayT0), "stopping") {
		t.Error("a stopping run's label does not say so")
	}
}
