package app

import (
	"os/exec"
	"strings"
	"testing"
)

// The window process holds no core: it asks the tray for everything the core does (runs,
// approvals, settings, the keyring's token, pushes). Its package must not even import the
// core, the hub or the tray process, nor the tray icon's package (tray), which it once
// imported only to ask whether there is a display. (It imports runs for the runs' types and to read
// their records, and settings/token for the token's state and errors as the tray reports them.)
// Nor does it link what only the tray uses: the keyring (settings/token/keyring, go-keyring)
// and the pty Claude Code runs in.
func TestTheWindowProcessHoldsNoCore(t *testing.T) {
	out, err := exec.Command("go", "list", "-deps", "github.com/segwi/segwi/app").CombinedOutput()
	if err != nil {
		t.Fatalf("go list: %v\n%s", err, out)
	}
	deps := strings.Fields(string(out))
	for _, forbidden := range []string{
		"github.com/segwi/segwi/internal/roots/core",
		"github.com/segwi/segwi/internal/roots/hub",
		"github.com/segwi/segwi/internal/roots/trayproc",
		"github.com/segwi/segwi/tray",
		"github.com/segwi/segwi/settings/token/keyring",
		"github.com/zalando/go-keyring",
		"github.com/creack/pty",
	} {
		for _, d := range deps {
			if d == forbidden {
				t.Errorf("package app imports %s", forbidden)
			}
		}
	}
	// The check reads the right list: the channel's client is there.
	if !strings.Contains(string(out), "github.com/segwi/segwi/control\n") {
		t.Errorf("go list -deps does not list package control; is the check reading the right package?\n%s", out)
	}
}
