package desktop

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/segwi/segwi/internal/testing/await"
	"github.com/segwi/segwi/internal/testing/claudetest"
	"github.com/segwi/segwi/internal/testing/records"
)

// A damaged run record (a run.json cut short, an events.jsonl that cannot be read or
// written) never stops the tray: it comes up, and a warning window names what is damaged.
func TestTrayStartsBesideDamagedRunRecords(t *testing.T) {
	t.Parallel() // one at a time on the test desktop: see desktopMu
	conn := needDesktop(t)
	shots := screenshotDir(t)
	bin := buildSegwi(t)
	env := claudetest.Env(t, "http://127.0.0.1:9") // no run starts: no model is asked
	stateDir := filepath.Join(env.Get("XDG_STATE_HOME"), "segwi")
	st := records.WriteDamaged(t, stateDir)

	app := launchTray(t, bin, env.Vars(), filepath.Join(shots, "segwi-damaged.log"))
	dest := fmt.Sprintf("org.kde.StatusNotifierItem-%d-1", app.cmd.Process.Pid)
	await.For(t, 30*time.Second, "the tray item, or segwi's exit", func() bool {
		select {
		case <-app.exited:
			return true
		default:
		}
		var has bool
		conn.BusObject().Call("org.freedesktop.DBus.NameHasOwner", 0, dest).Store(&has)
		return has
	})
	select {
	case <-app.exited:
		t.Fatalf("the tray app exited (%v) instead of starting; it wrote:\n%s", app.err, app.output())
	default:
	}

	waitForWindow(t, "segwi: damaged run records", windowWait)
	screenshot(t, shots, "damaged-records")
	for _, file := range []string{st.BadInfo, st.InterruptedEvents} {
		if out := app.output(); !strings.Contains(out, file) {
			t.Errorf("the tray app's log does not name the damaged %s; it wrote:\n%s", file, out)
		}
	}

	app.terminate(t)
}
