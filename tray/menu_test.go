package tray

import (
	"bytes"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/segwi/segwi/assets"
	"github.com/segwi/segwi/runs"
	"github.com/segwi/segwi/runs/worktree"
	"github.com/segwi/segwi/settings"
)

var t0 = time.Date(2025, 3, 14, 9, 30, 0, 0, time.UTC)

// menuLines renders a menu as lines: "---" for a separator, "(off)" after a disabled item.
func menuLines(items []Item) []string {
	var out []string
	for _, it := range items {
		if it.Separator {
			out = append(out, "---")
			continue
		}
		l := it.Label
		if it.Disabled {
			l += " (off)"
		}
		out = append(out, l)
	}
	return out
}

func TestMenuItems(t *testing.T) {
	tests := []struct {
		name string
		snap Snapshot
		want []string
	}{
		{
			name: "idle with no canary shows no runs and disables approvals and canary",
			snap: Snapshot{Now: t0},
			want: []string{
				"New build run…", "New ready run…", "Ask…", "---",
				"No runs going (off)", "---",
				"Waiting approvals (0) (off)", "Run history…", "Usage…", "Settings…", "Run canary (off)", "---",
				"Quit",
			},
		},
		{
			name: "runs list each with its state and time, and what a waiting one waits for",
			snap: Snapshot{
				Now:     t0,
				Pending: 1,
				Canary:  true,
				Runs: []Run{
					{ID: "a", Name: "web", Kind: runs.KindBuild, State: runs.StateRunning, Since: t0.Add(-4*time.Minute - 20*time.Second)},
					{ID: "b", Name: "api", Kind: runs.KindAsk, State: runs.StateWaiting, Since: t0.Add(-75 * time.Minute)},
					{ID: "c", Name: "web", Kind: runs.KindReady, State: runs.StateQueued, Since: t0},
					{ID: "d", Name: "docs", Kind: runs.KindBuild, State: runs.StateWaiting, Waiting: runs.WaitReply, Since: t0.Add(-2 * time.Minute)},
				},
			},
			want: []string{
				"New build run…", "New ready run…", "Ask…", "---",
				"web · build · running 4m",
				"api · ask · ⚠ waiting for you 1h 15m",
				"web · ready · queued",
				"docs · build · ⚠ waiting for your reply 2m",
				"---",
				"Waiting approvals (1)", "Run history…", "Usage…", "Settings…", "Run canary", "---",
				"Quit",
			},
		},
		{
			name: "a problem comes first, marked, and does nothing when clicked",
			snap: Snapshot{Now: t0, Canary: true, Problem: "No window can open: segwi-windows is not installed"},
			want: []string{
				"⚠ No window can open: segwi-windows is not installed (off)", "---",
				"New build run…", "New ready run…", "Ask…", "---",
				"No runs going (off)", "---",
				"Waiting approvals (0) (off)", "Run history…", "Usage…", "Settings…", "Run canary", "---",
				"Quit",
			},
		},
		{
			name: "the approval page served says so, below the approvals, and opens the settings that say where",
			snap: Snapshot{Now: t0, Canary: true, Page: Page{URL: "http://machine.example.ts.net:7717/"}},
			want: []string{
				"New build run…", "New ready run…", "Ask…", "---",
				"No runs going (off)", "---",
				"Waiting approvals (0) (off)", "Approval page on the tailnet…",
				"Run history…", "Usage…", "Settings…", "Run canary", "---",
				"Quit",
			},
		},
		{
			name: "the approval page not served says so in a short line, which opens the settings that say why",
			snap: Snapshot{Now: t0, Canary: true, Page: Page{Problem: "tailscale: this machine is not logged in to a tailnet: run `tailscale up` and log in"}},
			want: []string{
				"New build run…", "New ready run…", "Ask…", "---",
				"No runs going (off)", "---",
				"Waiting approvals (0) (off)",
				"⚠ Approval page not served…",
				"Run history…", "Usage…", "Settings…", "Run canary", "---",
				"Quit",
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if diff := cmp.Diff(tt.want, menuLines(Menu(tt.snap))); diff != "" {
				t.Errorf("menu (-want +got):\n%s", diff)
			}
		})
	}
}

func TestMenuActions(t *testing.T) {
	var got []string
	acts := Actions{
		NewRun:         func(k runs.Kind) { got = append(got, "new "+string(k)) },
		OpenRun:        func(id string) { got = append(got, "open "+id) },
		RaiseApprovals: func() { got = append(got, "raise") },
		History:        func() { got = append(got, "history") },
		Usage:          func() { got = append(got, "usage") },
		Settings:       func() { got = append(got, "settings") },
		Canary:         func() { got = append(got, "canary") },
		Quit:           func() { got = append(got, "quit") },
		ApprovalPage:   func() { got = append(got, "page") },
	}
	snap := Snapshot{Now: t0, Pending: 2, Canary: true, Page: Page{Problem: "tailscaled is not running"}, Runs: []Run{
		{ID: "r1", Name: "web", Kind: runs.KindBuild, State: runs.StateRunning, Since: t0},
		{ID: "r2", Name: "api", Kind: runs.KindAsk, State: runs.StateStarting, Since: t0},
	}}
	for _, it := range Menu(snap) {
		acts.Do(it.Action)
	}
	want := []string{"new build", "new ready", "new ask", "open r1", "open r2", "raise", "page", "history", "usage", "settings", "canary", "quit"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("actions (-want +got):\n%s", diff)
	}
	Actions{}.Do(Action{Verb: Quit}) // a missing callback does nothing
}

// A tray host draws the menu as wide as its longest line: a long problem or repository
// name is cut short, and the approval page's details (a URL, a sentence on what to do)
// are left to the settings window the line opens.
func TestMenuLinesStayShortWhateverTheyShow(t *testing.T) {
	long := strings.Repeat("a-very-long-repository-name-", 4)
	snap := Snapshot{Now: t0, Canary: true,
		Problem: "No window can open: " + strings.Repeat("/a/very/long/path/to/segwi-windows", 4) + " is not installed",
		Page:    Page{Problem: "tailscale: tailscaled refused segwi's request (access denied): run `sudo tailscale set --operator=$USER`"},
		Runs:    []Run{{ID: "a", Name: long, Kind: runs.KindBuild, State: runs.StateWaiting, Waiting: runs.WaitReply, Since: t0.Add(-3 * time.Hour)}},
	}
	const most = 72
	for _, it := range Menu(snap) {
		if n := len([]rune(it.Label)); n > most {
			t.Errorf("menu line %q is %d characters, want at most %d", it.Label, n, most)
		}
	}
	lines := menuLines(Menu(snap))
	if !strings.HasPrefix(lines[0], "⚠ No window can open: /a/very") || !strings.Contains(lines[0], "…") {
		t.Errorf("the problem line is %q, want it cut short with …", lines[0])
	}
	if want := clip(long, maxNameRunes) + " · build · ⚠ waiting for your reply 3h 00m"; !slices.Contains(lines, want) {
		t.Errorf("menu %q lacks the run's line %q", lines, want)
	}
}

func TestLook(t *testing.T) {
	running := Run{State: runs.StateRunning}
	tests := []struct {
		name string
		snap Snapshot
		want Look
		icon []byte
	}{
		{"no runs is idle", Snapshot{}, LookIdle, assets.TrayIdle},
		{"a queued run is busy", Snapshot{Runs: []Run{{State: runs.StateQueued}}}, LookBusy, assets.TrayBusy},
		{"a running run is busy", Snapshot{Runs: []Run{running}}, LookBusy, assets.TrayBusy},
		{"a waiting run wins over a running one", Snapshot{Runs: []Run{running, {State: runs.StateWaiting}}}, LookWaiting, assets.TrayWaiting},
		{"a pending approval is waiting", Snapshot{Pending: 1}, LookWaiting, assets.TrayWaiting},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := LookOf(tt.snap)
			if got != tt.want {
				t.Errorf("look = %d, want %d", got, tt.want)
			}
			if !bytes.Equal(got.Icon(), tt.icon) {
				t.Errorf("look %d has the wrong icon", got)
			}
		})
	}
}

func TestTooltipNamesTheRunsGoingAndWaiting(t *testing.T) {
	tests := []struct {
		snap Snapshot
		want string
	}{
		{Snapshot{}, "segwi: no runs going"},
		{Snapshot{Runs: []Run{{State: runs.StateQueued}}}, "segwi: 1 run going"},
		{Snapshot{Pending: 2, Runs: []Run{{State: runs.StateRunning}, {State: runs.StateWaiting}, {State: runs.StateWaiting}}},
			"segwi: 3 runs going, 2 waiting for you (2 approvals)"},
		{Snapshot{Runs: []Run{{State: runs.StateWaiting, Waiting: runs.WaitReply}, {State: runs.StateWaiting, Waiting: runs.WaitApproval}}},
			"segwi: 2 runs going, 1 waiting for you, 1 waiting for your reply"},
		// A run at its budget waits for a raise, not for an answer: the tooltip says so.
		{Snapshot{Runs: []Run{{State: runs.StateWaiting, Waiting: runs.WaitBudget}, {State: runs.StateWaiting, Waiting: runs.WaitApproval}}},
			"segwi: 2 runs going, 1 waiting for you, budget reached for 1"},
		// Today's spend, only when runs were created today.
		{Snapshot{Today: runs.UsageRow{Key: "2026-12-04", Runs: 4, Usage: runs.Usage{CostUSD: 1.2345}}},
			"segwi: no runs going\ntoday: $1.2345 over 4 runs"},
		{Snapshot{Runs: []Run{{State: runs.StateRunning}}, Today: runs.UsageRow{Key: "2026-12-04", Runs: 1, Usage: runs.Usage{CostUSD: 0.5}}},
			"segwi: 1 run going\ntoday: $0.50 over 1 run"},
		{Snapshot{Today: runs.UsageRow{Key: "2026-12-04"}}, "segwi: no runs going"},
		{Snapshot{Page: Page{URL: "http://machine.example.ts.net:7717/"}}, "segwi: no runs going"},
		{Snapshot{Page: Page{Problem: "tailscale: tailscaled refused segwi's request (access denied): run `sudo tailscale set --operator=$USER`"}},
			"segwi: no runs going\nThe approval page on the tailnet is not served: tailscale: tailscaled refused segwi's request (access denied): run `sudo tailscale set --operator=$USER`"},
	}
	for _, tt := range tests {
		if got := Tooltip(tt.snap); got != tt.want {
			t.Errorf("Tooltip = %q, want %q", got, tt.want)
		}
	}
}

func TestRunNames(t *testing.T) {
	repos := []settings.Repository{{Name: "web", Path: "/home/ada/src/web-app"}}
	info := runs.Info{ID: "x", Kind: runs.KindBuild, Checkout: "/home/ada/src/web-app/", State: runs.StateRunning,
		Created: t0, Start: t0.Add(time.Minute)}
	if got := RunOf(info, repos); got.Name != "web" || !got.Since.Equal(info.Start) {
		t.Errorf("RunOf = %+v, want the repository's name and the start time", got)
	}
	info.State, info.Waiting = runs.StateWaiting, runs.WaitReply
	if got := RunOf(info, repos); got.State != runs.StateWaiting || got.Waiting != runs.WaitReply {
		t.Errorf("RunOf = %+v, want it waiting for your reply", got)
	}
	info.Checkout, info.Start = "/tmp/scratch", time.Time{}
	if got := RunOf(info, repos); got.Name != "scratch" || !got.Since.Equal(t0) {
		t.Errorf("RunOf = %+v, want the folder's name and the queue time", got)
	}
	info.Checkout = "/home/ada/.local/share/segwi/worktrees/web/20250314-092653-d0e5f1"
	info.Worktree = &worktree.Worktree{Path: info.Checkout, Branch: "segwi/fix-d0e5f1", Repository: "/home/ada/src/web-app"}
	if got := RunOf(info, repos); got.Name != "web" {
		t.Errorf("RunOf of a run in a worktree = %+v, want the repository's name", got)
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
	if !strings.Contains(runLabel(Run{Name: "w", Kind: runs.KindAsk, State: runs.StateStopping}, t0), "stopping") {
		t.Error("a stopping run's label does not say so")
	}
}
