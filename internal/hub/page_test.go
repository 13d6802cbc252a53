package hub_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/segwi/segwi/internal/testing/await"
)

// TestTheTraySaysWhyTheApprovalPageIsNotServed turns segwi.remote.enabled on with no
// tailscaled to ask: the tray's menu says so, where it looked and what to do; a reload
// that turns it off takes the line away.
func TestTheTraySaysWhyTheApprovalPageIsNotServed(t *testing.T) {
	socket := filepath.Join(t.TempDir(), "tailscaled.sock")
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
