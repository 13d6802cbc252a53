package desktop

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/godbus/dbus/v5"

	"github.com/segwi/segwi/internal/testing/await"
	"github.com/segwi/segwi/internal/testing/sessionbus"
	"github.com/segwi/segwi/internal/testing/sockdir"
	segwitray "github.com/segwi/segwi/tray"
)

// The tray process's notifications, without Fyne, against a real notification daemon
// (dunst) on a session bus of the test's own, so that the other tests' notifications do
// not reach it. It sets the process's DBUS_SESSION_BUS_ADDRESS (t.Setenv), so it is not
// parallel: it runs alone, before the package's other tests.
func TestNotificationsFromTheTrayProcess(t *testing.T) {
	need(t, os.Getenv("DISPLAY") != "", "no X display (DISPLAY)")
	for _, tool := range []string{"dbus-daemon", "dunst", "xdotool"} {
		_, err := exec.LookPath(tool)
		need(t, err == nil, tool+" is not installed")
	}
	addr := sessionbus.Private(t)
	t.Setenv("DBUS_SESSION_BUS_ADDRESS", addr)

	t.Run("with no notification daemon they are dropped, and that is logged once", func(t *testing.T) {
		logs := &lines{}
		n := segwitray.NewNotifier(logs.printf)
		defer n.Close()
		if withdraw := n.Notify(segwitray.Note{Title: "web · Fix the login", Body: "Bash touch approved.txt", Open: func() {}}); withdraw != nil {
			t.Error("a notification that was not shown can be withdrawn")
		}
		n.Notify(segwitray.Note{Title: "web · Fix the login", Body: "Bash rm approved.txt"})
		got := logs.all()
		if len(got) != 1 || !strings.Contains(got[0], "no notification daemon runs on the session bus") {
			t.Errorf("logged %q; want one line saying no notification daemon runs", got)
		}
	})

	t.Run("with no session bus they are dropped, and that is logged once", func(t *testing.T) {
		t.Setenv("DBUS_SESSION_BUS_ADDRESS", "unix:path="+filepath.Join(sockdir.New(t), "no-bus"))
		logs := &lines{}
		n := segwitray.NewNotifier(logs.printf)
		defer n.Close()
		n.Notify(segwitray.Note{Title: "web", Body: "one"})
		n.Notify(segwitray.Note{Title: "web", Body: "two"})
		if got := logs.all(); len(got) != 1 || !strings.Contains(got[0], "no session bus") {
			t.Errorf("logged %q; want one line saying there is no session bus", got)
		}
	})

	t.Run("a click on the notification opens the run window", func(t *testing.T) {
		startDunst(t, addr)
		logs := &lines{}
		n := segwitray.NewNotifier(logs.printf)
		defer n.Close()
		opened := make(chan struct{}, 1)
		n.Notify(segwitray.Note{Title: "web · Fix the login", Body: "Bash touch approved.txt", Open: func() { opened <- struct{}{} }})
		win := waitForWindow(t, "^Dunst$", 10*time.Second)
		if shots := os.Getenv("SEGWI_SCREENSHOTS"); shots != "" {
			screenshot(t, shots, "notification")
		}
		if out, err := xdotool(t, "mousemove", "--window", win, "20", "20", "click", "1"); err != nil {
			t.Fatalf("clicking the notification: %v: %s", err, out)
		}
		select {
		case <-opened:
		case <-time.After(10 * time.Second):
			t.Fatalf("clicking the notification did not open the run window; logged %q", logs.all())
		}
		if got := logs.all(); len(got) != 0 {
			t.Errorf("logged %q with a daemon running", got)
		}
	})

	// An approval's notification lasts while the request waits, and goes the moment it
	// ends: withdrawn, the daemon closes it (reason 3: closed by CloseNotification), not
	// its own timeout or the person.
	t.Run("a lasting notification stays until it is withdrawn, then the daemon closes it", func(t *testing.T) {
		startDunst(t, addr)
		closed := closedNotifications(t, addr)
		logs := &lines{}
		n := segwitray.NewNotifier(logs.printf)
		defer n.Close()
		withdraw := n.Notify(segwitray.Note{Title: "web · Fix the login", Body: "The build run in web wants to use Bash: touch approved.txt.", Lasting: true})
		if withdraw == nil {
			t.Fatalf("the notification was not shown; logged %q", logs.all())
		}
		waitForWindow(t, "^Dunst$", 10*time.Second)
		withdraw()
		if reason := closed.next(t); reason != 3 {
			t.Errorf("the daemon closed the notification for reason %d, want 3 (CloseNotification)", reason)
		}
		windowGone(t, "^Dunst$", 10*time.Second)
		withdraw() // a second time: nothing to close, nothing said
		if got := logs.all(); len(got) != 0 {
			t.Errorf("logged %q", got)
		}
	})

	t.Run("closing the notifier withdraws the lasting notifications", func(t *testing.T) {
		startDunst(t, addr)
		closed := closedNotifications(t, addr)
		n := segwitray.NewNotifier(t.Logf)
		n.Notify(segwitray.Note{Title: "web · Fix the login", Body: "Claude Code finished its turn and waits for your reply.", Lasting: true})
		waitForWindow(t, "^Dunst$", 10*time.Second)
		n.Close()
		if reason := closed.next(t); reason != 3 {
			t.Errorf("the daemon closed the notification for reason %d, want 3 (CloseNotification)", reason)
		}
		windowGone(t, "^Dunst$", 10*time.Second)
		// One still on its way as segwi quits would outlive what it announces.
		if withdraw := n.Notify(segwitray.Note{Title: "web · Fix the login", Body: "late", Lasting: true}); withdraw != nil {
			t.Error("a notification was shown after Close")
		}
	})
}

// closings are the NotificationClosed signals of a notification daemon: their reasons.
type closings chan uint32

// closedNotifications watches the bus at addr, as dbus-monitor does, for the notification
// daemon's NotificationClosed signals (dunst sends each only to the program whose
// notification it closed), until the test ends.
func closedNotifications(t *testing.T, addr string) closings {
	t.Helper()
	conn, err := dbus.Connect(addr)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	rule := "type='signal',interface='org.freedesktop.Notifications',member='NotificationClosed'"
	if err := conn.BusObject().Call("org.freedesktop.DBus.Monitoring.BecomeMonitor", 0, []string{rule}, uint32(0)).Err; err != nil {
		t.Fatalf("watching the bus: %v", err)
	}
	// From now on the connection only receives what it watches; its call's reply is in.
	messages := make(chan *dbus.Message, 16)
	conn.Eavesdrop(messages)
	out := make(closings, 16)
	go func() {
		for msg := range messages {
			if msg.Type == dbus.TypeSignal && len(msg.Body) == 2 {
				if reason, ok := msg.Body[1].(uint32); ok {
					out <- reason
				}
			}
		}
	}()
	return out
}

// next waits for the next notification the daemon closes, and returns why it closed it.
func (c closings) next(t *testing.T) uint32 {
	t.Helper()
	select {
	case reason := <-c:
		return reason
	case <-time.After(10 * time.Second):
		t.Fatal("the daemon closed no notification within 10 s")
		return 0
	}
}

// lines collects log lines.
type lines struct {
	mu  sync.Mutex
	got []string
}

func (l *lines) printf(format string, args ...any) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.got = append(l.got, fmt.Sprintf(format, args...))
}

func (l *lines) all() []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return append([]string(nil), l.got...)
}

// startDunst starts the dunst notification daemon on the bus at addr and the test's
// display, set so that a left click invokes a notification's default action, and waits
// until it owns the notification service's name.
func startDunst(t *testing.T, addr string) {
	t.Helper()
	config := filepath.Join(t.TempDir(), "dunstrc")
	writeFile(t, config, "[global]\n    origin = bottom-right\n    offset = 10x10\n    mouse_left_click = do_action, close_current\n")
	cmd := exec.Command("dunst", "-config", config)
	cmd.Env = append(onDisplay(t, cmd).Env, "DBUS_SESSION_BUS_ADDRESS="+addr)
	log, err := os.Create(filepath.Join(t.TempDir(), "dunst.log"))
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stdout, cmd.Stderr = log, log
	if err := cmd.Start(); err != nil {
		t.Fatalf("starting dunst: %v", err)
	}
	t.Cleanup(func() {
		cmd.Process.Kill()
		cmd.Wait()
		log.Close()
	})
	conn, err := dbus.Connect(addr)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	await.For(t, 10*time.Second, "dunst on the test's session bus", func() bool {
		var has bool
		conn.BusObject().Call("org.freedesktop.DBus.NameHasOwner", 0, "org.freedesktop.Notifications").Store(&has)
		return has
	})
}
