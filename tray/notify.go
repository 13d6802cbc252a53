package tray

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"time"

	"github.com/godbus/dbus/v5"

	"github.com/segwi/segwi/internal/lib/logger"
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
// without Fyne, and withdraws them (CloseNotification) once what they announce is over. It
// connects on the first notification, on a connection of its own (the tray item's
// connection stays the tray's). When there is no bus or no daemon, a notification is
// dropped and that is logged once, until one gets through again: the tray, the runs and
// the popups go on without them. Safe for concurrent use.
type Notifier struct {
	logf logger.Logf

	mu      sync.Mutex
	conn    *dbus.Conn
	actions bool              // the daemon supports actions
	open    map[uint32]func() // the action of each notification shown, by its id
	shown   map[uint32]bool   // the notifications shown and not closed since, by id: whether each is Lasting
	failing bool              // the last notification failed, and that was logged
	closed  bool              // Close was called: nothing more is shown
}

// NewNotifier returns a notifier on the session bus that logs a failure with logf.
func NewNotifier(logf logger.Logf) *Notifier {
	return &Notifier{logf: logf, open: make(map[uint32]func()), shown: make(map[uint32]bool)}
}

// Note is one desktop notification.
type Note struct {
	Title string // what it is about: the run, by its repository and task
	Body  string // what happened, and what to do
	// Open, when not nil, is what a click on the notification does, when the daemon
	// supports actions: it offers OpenLabel, and Open is called on a goroutine of its own.
	Open func()
	// Lasting keeps the notification until it is withdrawn, for something that waits for
	// the person (an approval, a reply); otherwise the daemon takes it away after its own
	// timeout.
	Lasting bool
}

// Notify shows note. It returns once the daemon has the notification, or after
// callTimeout, with the func that withdraws it: that asks the daemon to close it
// (CloseNotification, at most callTimeout), and does nothing once the person has closed
// it or it expired. It returns nil when the notification was not shown (no daemon, or
// the notifier closed).
func (n *Notifier) Notify(note Note) (withdraw func()) {
	n.mu.Lock()
	defer n.mu.Unlock()
	if n.closed {
		return nil
	}
	id, err := n.notify(note)
	if err != nil {
		if !n.failing {
			n.logf.Printf("segwi: desktop notifications are off: %v", err)
		}
		n.failing = true
		return nil
	}
	n.failing = false
	n.shown[id] = note.Lasting
	conn := n.conn
	return func() { n.withdraw(conn, id) }
}

// notify is Notify with n.mu held, so that a click's signal for the new id waits until
// its action is recorded. It returns the daemon's id of the notification.
func (n *Notifier) notify(note Note) (uint32, error) {
	if err := n.dial(); err != nil {
		return 0, err
	}
	var actions []string
	if note.Open != nil && n.actions {
		actions = []string{"default", OpenLabel}
	}
	hints := map[string]dbus.Variant{"desktop-entry": dbus.MakeVariant("segwi")}
	expire := int32(-1) // the daemon's own timeout
	if note.Lasting {
		expire = 0 // until withdrawn
	}
	ctx, cancel := context.WithTimeout(context.Background(), callTimeout)
	defer cancel()
	var id uint32
	call := n.conn.Object(notifyName, notifyPath).CallWithContext(ctx, notifyIface+".Notify", 0,
		"segwi", uint32(0), "", note.Title, note.Body, actions, hints, expire)
	if err := call.Store(&id); err != nil {
		var dbusErr dbus.Error
		if errors.As(err, &dbusErr) && dbusErr.Name == "org.freedesktop.DBus.Error.ServiceUnknown" {
			return 0, fmt.Errorf("no notification daemon runs on the session bus (%s is not provided)", notifyName)
		}
		return 0, fmt.Errorf("asking the notification daemon: %w", err)
	}
	if len(actions) > 0 {
		n.open[id] = note.Open
	}
	return id, nil
}

// withdraw asks the daemon to close notification id, shown over conn, unless it was
// closed already. A notification of a connection since closed is gone with it: daemons
// number their notifications afresh only when they restart, but the id may name another
// program's notification by then.
func (n *Notifier) withdraw(conn *dbus.Conn, id uint32) {
	n.mu.Lock()
	defer n.mu.Unlock()
	if _, shown := n.shown[id]; n.conn != conn || !shown {
		return
	}
	delete(n.shown, id)
	delete(n.open, id)
	ctx, cancel := context.WithTimeout(context.Background(), callTimeout)
	defer cancel()
	err := conn.Object(notifyName, notifyPath).CallWithContext(ctx, notifyIface+".CloseNotification", 0, id).Err
	if err != nil {
		n.logf.Printf("segwi: could not withdraw desktop notification %d: %v", id, err)
	}
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

// listen calls the action of each clicked notification and forgets closed ones (a click
// closes one too), until the connection closes.
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
		if sig.Name == notifyIface+".NotificationClosed" {
			delete(n.shown, id)
		}
		n.mu.Unlock()
		if sig.Name == notifyIface+".ActionInvoked" && open != nil {
			go open()
		}
	}
}

// Close withdraws the Lasting notifications still shown (what they wait for ends with
// segwi), then closes the notifier's connection. A notification asked for after Close
// (one on its way as segwi quits) is dropped: it would outlive what it announces.
func (n *Notifier) Close() {
	n.mu.Lock()
	defer n.mu.Unlock()
	n.closed = true
	if n.conn != nil {
		for id, lasting := range n.shown {
			if lasting {
				ctx, cancel := context.WithTimeout(context.Background(), callTimeout)
				n.conn.Object(notifyName, notifyPath).CallWithContext(ctx, notifyIface+".CloseNotification", 0, id) //nolint:errcheck // closing anyway
				cancel()
			}
		}
		n.conn.Close()
		n.conn = nil
		clear(n.shown)
		clear(n.open)
	}
}
