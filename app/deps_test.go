package app

import (
	"os/exec"
	"strings"
	"testing"
)

// The window process holds no core: it asks the tray for everything the core does (runs,
// approvals, settings, the keyring's token, pushes). Its program must not even link the
// core, the hub or the tray process, nor the tray icon's package (tray), which app once
// imported only to ask whether there is a display. Nor does it link what only the tray
// uses: the keyring (settings/token/keyring, go-keyring), the pty Claude Code runs in, and
// the loopback MCP server that Claude Code asks for approvals (approvals/mcpserver, the MCP
// SDK); it shows requests and answers with package approvals, which holds no server. Nor
// viper, which segwi no longer uses: it once came in with the settings checks the settings
// window makes.
//
// Nor the engine that makes runs: it shows them. What it shows of a run (its record, read
// back, and its words) is package runs/record, a leaf; so it links neither runs (the
// Manager, processes, reaper, limits, cgroups) nor the packages that work a run's git
// (runs/changes, runs/worktree, runs/push, and gitcmd under them), nor a runtime, nor the
// canary, which drives runs (it shows the guard hook's help and setup from canary/guard).
// It once linked them all because control re-used their types.
func TestTheWindowProcessHoldsNoCore(t *testing.T) {
	out, err := exec.Command("go", "list", "-deps", "github.com/segwi/segwi/cmd/segwi-windows").CombinedOutput()
	if err != nil {
		t.Fatalf("go list: %v\n%s", err, out)
	}
	deps := strings.Fields(string(out))
	for _, forbidden := range []struct {
		path  string
		under bool // every package under it is forbidden too
	}{
		{"github.com/segwi/segwi/internal/roots/core", true},
		{"github.com/segwi/segwi/internal/roots/hub", true},
		{"github.com/segwi/segwi/internal/roots/trayproc", true},
		{"github.com/segwi/segwi/tray", true},
		{"github.com/segwi/segwi/settings/token/keyring", true},
		{"github.com/zalando/go-keyring", true},
		{"github.com/creack/pty", true},
		{"github.com/segwi/segwi/approvals/mcpserver", true},
		{"github.com/modelcontextprotocol/go-sdk", true},
		{"github.com/spf13/viper", true},
		{"github.com/segwi/segwi/runs", false}, // runs/record is the leaf it shows runs with
		{"github.com/segwi/segwi/runs/changes", true},
		{"github.com/segwi/segwi/runs/worktree", true},
		{"github.com/segwi/segwi/runs/push", true},
		{"github.com/segwi/segwi/runs/claude", true},
		{"github.com/segwi/segwi/runs/acp", true},
		{"github.com/segwi/segwi/internal/lib/gitcmd", true},
		{"github.com/segwi/segwi/canary", false}, // canary/guard is the leaf of its help
	} {
		for _, d := range deps {
			if d == forbidden.path || forbidden.under && strings.HasPrefix(d, forbidden.path+"/") {
				t.Errorf("segwi-windows links %s", d)
			}
		}
	}
	// The check reads the right list: the window package and the channel's client are there.
	for _, want := range []string{"github.com/segwi/segwi/app", "github.com/segwi/segwi/control", "github.com/segwi/segwi/runs/record"} {
		if !strings.Contains(string(out), want+"\n") {
			t.Errorf("go list -deps does not list package %s; is the check reading the right program?\n%s", want, out)
		}
	}
}
