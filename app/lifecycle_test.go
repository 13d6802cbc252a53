package app

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
	"time"

	"fyne.io/fyne/v2/test"

	"github.com/segwi/segwi/internal/roots/core"
	"github.com/segwi/segwi/internal/testing/await"
	"github.com/segwi/segwi/internal/testing/coretest"
	"github.com/segwi/segwi/runs"
	"github.com/segwi/segwi/settings"
)

// testCore builds the core over the settings file text (none when empty), as the tray
// process does; no approval is expected.
func testCore(t *testing.T, file string) (*core.Core, string) {
	t.Helper()
	return coretest.New(t, file, coretest.Options{})
}

// A settings file with one bad value makes segwi start with the defaults. The settings
// window must show the file's own values, so that fixing the bad field and pressing Save
// keeps the person's good keys.
func TestSavingAfterABadStartKeepsTheGoodKeys(t *testing.T) {
	settingsHome(t)
	c, path := testCore(t, "segwi:\n  repositories:\n    - name: web\n      path: ~/src/web\n"+
		"  approvals:\n    trusted: [go test]\n  runs:\n    maxDuration: two hours\n")
	rep := c.Report()
	if rep.Err == nil {
		t.Fatal("the sample should have a bad maxDuration")
	}
	// As the window process's desk.openSettings does with the report the hub sends it.
	_, w := openTestSettings(t, SettingsWindowConfig{Path: rep.File, Current: rep.FileSettings(), LoadErr: rep.Err})
	test.Tap(settingsButton(t, w.win, "Save"))
	w.settle() // the tray answers off the UI goroutine
	after, err := settings.Load(path)
	if err != nil {
		t.Fatal(err)
	}
	if len(after.Settings.Repositories) != 1 || len(after.Settings.Approvals.Trusted) != 1 {
		data, _ := os.ReadFile(path)
		t.Errorf("after Save: repositories %v, trusted %v; want web and [go test] kept. File:\n%s",
			after.Settings.Repositories, after.Settings.Approvals.Trusted, data)
	}
}

// A desktop run keeps its input open for follow-ups. Closing its window leaves the
// conversation going, as the window says: a window opened again (from the tray menu) still
// sends it a follow-up. Finish there ends the run after its turn, and a new run in that
// checkout starts at once.
func TestClosingARunsWindowLeavesTheConversationGoingAndFinishEndsIt(t *testing.T) {
	bin := filepath.Join(t.TempDir(), "claude")
	coretest.WriteFile(t, bin, "#!/bin/sh\nread line\n"+
		`echo '{"type":"system","subtype":"init","session_id":"s","model":"m","permissionMode":"auto"}'`+"\n"+
		`echo '{"type":"result","subtype":"success","is_error":false,"num_turns":1,"total_cost_usd":0.01,"result":"done"}'`+"\n"+
		"while read line; do\n"+
		`echo '{"type":"result","subtype":"success","is_error":false,"num_turns":1,"total_cost_usd":0.01,"result":"done"}'`+"\n"+
		"done\n")
	if err := os.Chmod(bin, 0o755); err != nil {
		t.Fatal(err)
	}
	cfg, _ := json.Marshal(bin)
	c, _ := testCore(t, "segwi:\n  claude:\n    path: "+string(cfg)+"\n  runs:\n    stopGrace: 1s\n")
	checkout := gitCheckout(t)
	r, err := c.Start(context.Background(), runs.Spec{Kind: runs.KindBuild, Checkout: checkout, Prompt: "do it", KeepOpen: true})
	if err != nil {
		t.Fatalf("Start: %v", err)
	}
	await.For(t, 10*time.Second, "the run to wait for a reply", func() bool { return waitsForReply(r.Info()) })

	a := test.NewTempApp(t)
	deps := runWindowDeps{app: a, stateDir: c.StateDir(), now: time.Now}
	ui(func() {
		w := newRunWindow(deps, r, runs.Info{})
		w.Show()
		w.win.Close() // the person closes it, to come back later
	})
	if err := r.Send("one more thing"); err != nil {
		t.Fatalf("a follow-up after the window closed: %v; want the conversation still going", err)
	}

	var again *runWindow
	ui(func() {
		again = newRunWindow(deps, r, runs.Info{}) // opened again from the tray menu
		again.Show()
	})
	t.Cleanup(func() { ui(again.win.Close) })
	ui(func() { test.Tap(again.finish) })
	await.For(t, 10*time.Second, "the run to end once Finish was pressed", func() bool { return r.Info().State.Final() })
	if st := r.Info().State; st != runs.StateSucceeded {
		t.Errorf("the run ended %s, want succeeded", st)
	}
	r2, err := c.Start(context.Background(), runs.Spec{Kind: runs.KindBuild, Checkout: checkout, Prompt: "q", KeepOpen: true})
	if err != nil {
		t.Fatalf("second Start: %v", err)
	}
	await.For(t, 10*time.Second, "a new run in the same checkout to start", func() bool { return r2.Info().State != runs.StateQueued })
}
