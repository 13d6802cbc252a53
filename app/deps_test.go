package app

import (
	"os/exec"
	"strings"
	"testing"
)

// The window process holds no core: it asks the tray for everything the core does (runs,
// approvals, settings, the keyring's token, pushes). Its program must not even link the
// core, the hub or the tray process, nor the tray icon's package (tray), which app once
// imported only to ask whether there is a display. (It links runs for the runs' types and to
// read their records, and settings/token for the token's state and errors as the tray
// reports them.) Nor does it link what only the tray uses: the keyring
// (settings/token/keyring, go-keyring), the pty Claude Code runs in, and the loopback MCP
// server that Claude Code asks for approvals (approvals/mcpserver, the MCP SDK); it shows
// requests and answers with package approvals, which holds no server. Nor viper, which
// segwi no longer uses: it once came in with the settings checks the settings window makes.
func TestTheWindowProcessHoldsNoCore(t *testing.T) {
	out, err := exec.Command("go", "list", "-deps", "github.com/segwi/segwi/cmd/segwi-windows").CombinedOutput()
	if err != nil {
		t.Fatalf("go list: %v\n%s", err, out)
	}
	deps := strings.Fields(string(out))
	// Each is forbidden with every package under it.
	for _, forbidden := range []string{
		"github.com/segwi/segwi/internal/roots/core",
		"github.com/segwi/segwi/internal/roots/hub",
		"github.com/segwi/segwi/internal/roots/trayproc",
		"github.com/segwi/segwi/tray",
		"github.com/segwi/segwi/settings/token/keyring",
		"github.com/zalando/go-keyring",
		"github.com/creack/pty",
		"github.com/segwi/segwi/approvals/mcpserver",
		"github.com/modelcontextprotocol/go-sdk",
		"github.com/spf13/viper",
	} {
		for _, d := range deps {
			if d == forbidden || strings.HasPrefix(d, forbidden+"/") {
				t.Errorf("segwi-windows links %s", d)
			}
		}
	}
	// The check reads the right list: the window package and the channel's client are there.
	for _, want := range []string{"github.com/segwi/segwi/app", "github.com/segwi/segwi/control"} {
		if !strings.Contains(string(out), want+"\n") {
			t.Errorf("go list -deps does not list package %s; is the check reading the right program?\n%s", want, out)
		}
	}
}
