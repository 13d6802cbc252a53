package desktop

import (
	"bufio"
	"os"
	"os/exec"
	"strings"
	"sync"
	"testing"

	"github.com/godbus/dbus/v5"

	"github.com/segwi/segwi/internal/testing/sessionbus"
)

// The package's tests run side by side (t.Parallel), but for their use of the test
// desktop: the display, session bus, tray host and keyring that scripts/test.sh starts.
// There they find windows by title (a popup's "Approve Bash…" matches any run's), click
// at fixed points of the screen, take whole-screen pictures and measure an idle tray, so
// one test at a time holds it (needDesktop takes desktopMu until the test ends). A test
// that mostly waits, on the clock or on the real Claude Code, brings a desktop of its own
// (ownDesktop: its own display, bus and tray host; TestAnApprovalAnsweredLateInAPopupIsHeard,
// TestIdleCostOfTheTrayProcess, TestApprovalsOutliveTheWindowProcess, ...) and runs beside
// them instead.
var desktopMu sync.Mutex

// ownDesktop skips the test (see need) unless the X tools and the other tools named are
// there, then gives it a desktop of its own until it ends: an Xvfb display (ownDisplay), a
// session bus (sessionbus.Private) and a tray host on it, as scripts/test.sh starts the
// shared one, but without a keyring. The package's helpers use them for this test from then
// on (launchTray its bus, the X helpers its display); it returns a connection to the bus
// and the bus's address. Call it after t.Parallel: the test runs beside the others.
func ownDesktop(t *testing.T, tools ...string) (*dbus.Conn, string) {
	t.Helper()
	needTools(t, append([]string{"Xvfb", "dbus-daemon", "status-notifier-watcher"}, tools...)...)
	ownDisplay(t)
	addr := sessionbus.Private(t)
	startTrayHost(t, addr)
	conn, err := dbus.Connect(addr)
	if err != nil {
		t.Fatalf("connecting to the test's own session bus: %v", err)
	}
	t.Cleanup(func() { conn.Close() })
	name := t.Name()
	ownBuses.Store(name, addr)
	t.Cleanup(func() { ownBuses.Delete(name) })
	return conn, addr
}

// ownBuses maps a top-level test's name to the session bus of its own that ownDesktop
// started; every other test's tray uses the test desktop's, $DBUS_SESSION_BUS_ADDRESS.
var ownBuses sync.Map

// busFor returns the session bus address test t's tray uses: the one ownDesktop started for
// it or its parent test, else the test desktop's.
func busFor(t testing.TB) string {
	top, _, _ := strings.Cut(t.Name(), "/")
	if a, ok := ownBuses.Load(top); ok {
		return a.(string)
	}
	return os.Getenv("DBUS_SESSION_BUS_ADDRESS")
}

// holdDesktop gives the test the shared test desktop until it ends. Call it after
// t.Parallel: a test paused there must not hold it.
func holdDesktop(t testing.TB) {
	t.Helper()
	desktopMu.Lock()
	t.Cleanup(desktopMu.Unlock)
}

// ownDisplays maps a top-level test's name to the X display of its own that ownDisplay
// started; every other test uses the test desktop's, $DISPLAY.
var ownDisplays sync.Map

// ownDisplay starts an Xvfb display for the test (and its subtests) alone, as
// scripts/desktop-env.sh starts the shared one, stopped at the end of the test, and
// returns its name (":N"). The package's X helpers (xdotool, screenshot, launchTray) use
// it for this test from then on.
func ownDisplay(t *testing.T) string {
	t.Helper()
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	// -displayfd: Xvfb picks a free display and writes its number once it accepts
	// connections. -noreset: see TestTheDisplayOutlivesItsLastClient. -r: see
	// TestTheDisplayRepeatsNoKey.
	cmd := exec.Command("Xvfb", "-displayfd", "3", "-screen", "0", "1280x800x24", "-nolisten", "tcp", "-noreset", "-r")
	cmd.ExtraFiles = []*os.File{w}
	if err := cmd.Start(); err != nil {
		r.Close()
		w.Close()
		t.Fatalf("starting Xvfb: %v", err)
	}
	w.Close()
	t.Cleanup(func() {
		cmd.Process.Kill()
		cmd.Wait()
	})
	n, err := bufio.NewReader(r).ReadString('\n')
	r.Close()
	if err != nil {
		t.Fatalf("Xvfb named no display: %v", err)
	}
	display := ":" + strings.TrimSpace(n)
	name := t.Name()
	ownDisplays.Store(name, display)
	t.Cleanup(func() { ownDisplays.Delete(name) })
	return display
}

// displayFor returns the X display test t uses: the one ownDisplay started for it or its
// parent test, else the test desktop's.
func displayFor(t testing.TB) string {
	top, _, _ := strings.Cut(t.Name(), "/")
	if d, ok := ownDisplays.Load(top); ok {
		return d.(string)
	}
	return os.Getenv("DISPLAY")
}

// onDisplay returns cmd set to run on test t's display.
func onDisplay(t testing.TB, cmd *exec.Cmd) *exec.Cmd {
	cmd.Env = append(os.Environ(), "DISPLAY="+displayFor(t))
	return cmd
}

// A window id that names no window on the display is an error CloseWindow returns: Xlib's
// own handling of the X error ended the whole test process, whose cleanups then left its
// trays, Claude Code and displays running.
func TestClosingAWindowThatIsNotThereIsAnError(t *testing.T) {
	t.Parallel()
	needTools(t, "Xvfb")
	display := ownDisplay(t)
	err := CloseWindow(display, "4194303") // no client of a fresh display has this id
	if err == nil || !strings.Contains(err.Error(), "reported an error") {
		t.Fatalf("closing a window that is not there: %v, want the X server's error", err)
	}
}
