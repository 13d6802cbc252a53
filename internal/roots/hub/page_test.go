package hub_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/segwi/segwi/control"
	"github.com/segwi/segwi/internal/testing/await"
	"github.com/segwi/segwi/internal/testing/sockdir"
)

// TestTheTraySaysWhyTheApprovalPageIsNotServed turns segwi.remote.enabled on with no
// tailscaled to ask: the tray's menu says so, where it looked and what to do; a reload
// that turns it off takes the line away.
func TestTheTraySaysWhyTheApprovalPageIsNotServed(t *testing.T) {
	socket := filepath.Join(sockdir.New(t), "tailscaled.sock")
	h := newHarness(t, "segwi:\n  remote:\n    enabled: true\n    socket: "+socket+"\n", options{watch: true})
	await.For(t, within, "the tray to say the page is not served", func() bool {
		p := h.hub.Snapshot().Page
		return strings.Contains(p.Problem, "tailscaled is not running: there is no socket at "+socket) &&
			strings.Contains(p.Problem, "start tailscaled") && p.URL == ""
	})

	if err := os.WriteFile(h.path, []byte("segwi:\n  remote:\n    enabled: false\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	await.For(t, within, "the page's line to go once it is turned off", func() bool {
		p := h.hub.Snapshot().Page
		return p.Problem == "" && p.URL == ""
	})
}

// TestASaveFromTheSettingsWindowStartsAndStopsTheApprovalPage saves segwi.remote through
// the window's channel, as the settings window does: the reload of the file that follows
// turns the page on (here it says why it cannot serve, with no tailscaled to ask) and,
// saved off again, turns it off. The window process is told each time (PageStatus), for
// the settings window to say it.
func TestASaveFromTheSettingsWindowStartsAndStopsTheApprovalPage(t *testing.T) {
	socket := filepath.Join(sockdir.New(t), "tailscaled.sock")
	h := newHarness(t, "segwi:\n  runs:\n    maxConcurrent: 2 # keep\n", options{watch: true})
	ctx := context.Background()
	h.hub.Show(ctx, control.Show{Window: control.ShowSettings})
	w := h.windows.window(t, 1)
	w.nextShow(t)
	s := next[control.SettingsReport](t, w).Settings

	s.Remote.Enabled, s.Remote.Socket = true, socket
	if err := w.client.SaveSettings(ctx, s); err != nil {
		t.Fatalf("SaveSettings: %v", err)
	}
	await.For(t, within, "the tray to say why the page saved on is not served", func() bool {
		return strings.Contains(h.hub.Snapshot().Page.Problem, "there is no socket at "+socket)
	})
	nextPage(t, w, "the window to be told why the page is not served", func(p control.PageStatus) bool {
		return p.On && p.URL == "" && strings.Contains(p.Problem, "there is no socket at "+socket)
	})

	s.Remote.Enabled = false
	if err := w.client.SaveSettings(ctx, s); err != nil {
		t.Fatalf("SaveSettings: %v", err)
	}
	await.For(t, within, "the page's line to go once it is saved off", func() bool {
		p := h.hub.Snapshot().Page
		return p.Problem == "" && p.URL == ""
	})
	nextPage(t, w, "the window to be told the page is off", func(p control.PageStatus) bool {
		return p == control.PageStatus{}
	})
	if data, _ := os.ReadFile(h.path); !strings.Contains(string(data), "maxConcurrent: 2 # keep") {
		t.Errorf("the saves lost the file's comment:\n%s", data)
	}
}

// nextPage reads the approval page's statuses the window process was sent until one
// satisfies ok.
func nextPage(t *testing.T, w *fakeWindow, what string, ok func(control.PageStatus) bool) {
	t.Helper()
	var seen []control.PageStatus
	for range 20 {
		p := next[control.PageStatus](t, w)
		if ok(p) {
			return
		}
		seen = append(seen, p)
	}
	t.Fatalf("waiting for %s: the window process was sent %+v", what, seen)
}
