package tray

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"time"

	"github.com/godbus/dbus/v5"
)

// The freedesktop notification service (Desktop Notifications Specification 1.2).
const (
	notifyName  = "org.freedesktop.Notifications"
	notifyPath  = dbus.ObjectPath("/org/freedesktop/Notifications")
	notifyIface = "org.freedesktop.Notifications"
	// callTimeout bounds one call to the notification daemon.
	callTimeout = 5 * time.Second
)

// OpenLabel is the action a notification offers when it has one, under the "default" key
// that daemons also invoke on a click of the notification itself.
const OpenLabel = "Open the run window"

// Notifier shows desktop notifications through the session bus's notification daemon,
// without Fyne. It connects on the first notification, on a connection of its own (the
// tray item's connection stays the tray's). When there is no bus or no daemon, a
// notification is dropped and that is logged once, until one gets through again: the
// tray, the runs and the popups go on without them. Safe for concurrent use.
type Notifier struct {
	logf func(format string, args ...any)

	mu      sync.Mutex
	conn    *dbus.Conn
	actions bool              // the daemon supports actions
	open    map[uint32]func() // the action of each notification shown, by its id
	failing bool              // the last notification failed, and that was logged
}

// NewNotifier returns a notifier on the session bus that logs a failure with logf.
func NewNotifier(logf func(format string, args ...any)) *Notifier {
	return &Notifier{logf: logf, open: make(map[uint32]func())}
}

// Notify shows a notification with title and body. When open is not nil and the daemon
// supports actions, the notification offers OpenLabel, and open is called (on a goroutine
// of its own) when the person clicks it. It returns once the daemon has the notification,
// or after callTimeout.
func (n *Notifier) Notify(title, body string, open func()) {
	n.mu.Lock()
	defer n.mu.Unlock()
	if err := n.notify(title, body, open); err != nil {
		if !n.failing {
			n.logf("segwi: desktop notifications are off: %v", err)
		}
		n.failing = true
		return
	}
	n.failing = false
}

// notify is Notify with n.mu held, so that a click's signal for the new id waits until
// its action is recorded.
func (n *Notifier) notify(title, body string, open func()) error {
	if err := n.dial(); err != nil {
		return err
	}
	var actions []string
	if open != nil && n.actions {
		actions = []string{"default", OpenLabel}
	}
	hints := map[string]dbus.Variant{"desktop-entry": dbus.MakeVariant("segwi")}
	ctx, cancel := context.WithTimeout(context.Background(), callTimeout)
	defer cancel()
	var id uint32
	call := n.conn.Object(notifyName, notifyPath).CallWithContext(ctx, notifyIface+".Notify", 0,
		"segwi", uint32(0), "", title, body, actions, hints, int32(-1))
	if err := call.Store(&id); err != nil {
		var dbusErr dbus.Error
		if errors.As(err, &dbusErr) && dbusErr.Name == "org.freedesktop.DBus.Error.ServiceUnknown" {
			return fmt.Errorf("no notification daemon runs on the session bus (%s is not provided)", notifyName)
		}
		return fmt.Errorf("asking the notification daemon: %w", err)
	}
	if len(actions) > 0 {
		n.open[id] = open
	}
	return nil
}

// dial connects once, learns whether the daemon supports actions, and listens for the
// signals of clicked and closed notifications.
func (n *Notifier) dial() error {
	if n.conn != nil {
		return nil
	}
	conn, err := dbus.ConnectSessionBus()
	if err != nil {
		return fmt.Errorf("no session bus: %w", err)
	}
	for _, member := range []string{"ActionInvoked", "NotificationClosed"} {
		err := conn.AddMatchSignal(dbus.WithMatchObjectPath(notifyPath), dbus.WithMatchInterface(notifyIface), dbus.WithMatchMember(member))
		if err != nil {
			conn.Close()
			return fmt.Errorf("listening for notification clicks: %w", err)
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), callTimeout)
	defer cancel()
	var caps []string
	if err := conn.Object(notifyName, notifyPath).CallWithContext(ctx, notifyIface+".GetCapabilities", 0).Store(&caps); err == nil {
		n.actions = slices.Contains(caps, "actions")
	}
	signals := make(chan *dbus.Signal, 16)
	conn.Signal(signals)
	go n.listen(signals)
	n.conn = conn
	return nil
}

// listen calls the action of each clicked notification and forgets closed ones, until the
// connection closes.
func (n *Notifier) listen(signals <-chan *dbus.Signal) {
	for sig := range signals {
		if sig.Path != notifyPath || len(sig.Body) < 1 {
			continue
		}
		id, ok := sig.Body[0].(uint32)
		if !ok {
			continue
		}
		n.mu.Lock()
		open := n.open[id]
		delete(n.open, id)
		n.mu.Unlock()
		if sig.Name == notifyIface+".ActionInvoked" && open != nil {
			go open()
		}
	}
}

// Close closes the notifier's connection; later notifications connect again.
func (n *Notifier) Close() {
	n.mu.Lock()
	defer n.mu.Unlock()
	if n.conn != nil {
		n.conn.Close()
		n.conn = nil
	}
}

// WaitsForYou is the title of the notification of an approval request.
const WaitsForYou = "segwi: a run waits for you"
