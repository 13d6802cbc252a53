package desktop

import (
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/godbus/dbus/v5"

	"github.com/segwi/segwi/internal/testing/await"
)

// trayItem is one entry of the tray menu as the tray host sees it over D-Bus.
type trayItem struct {
	ID      int32
	Label   string
	Enabled bool
}

// menuLayout is com.canonical.dbusmenu's (ia{sv}av) layout node.
type menuLayout struct {
	ID       int32
	Props    map[string]dbus.Variant
	Children []dbus.Variant
}

// tray reads and clicks the StatusNotifierItem menu of one process, as a tray host does.
type tray struct {
	conn *dbus.Conn
	dest string
}

// waitForTray waits until the process pid has registered its tray item on the session bus,
// its properties readable, and returns how long that took from since.
func waitForTray(t testing.TB, conn *dbus.Conn, pid int, since time.Time, within time.Duration) (*tray, time.Duration) {
	t.Helper()
	dest := fmt.Sprintf("org.kde.StatusNotifierItem-%d-1", pid)
	await.For(t, within, fmt.Sprintf("segwi (pid %d) to register its tray item %s", pid, dest), func() error {
		var has bool
		if err := conn.BusObject().Call("org.freedesktop.DBus.NameHasOwner", 0, dest).Store(&has); err != nil {
			return fmt.Errorf("asking the bus: %w", err)
		}
		if !has {
			return errors.New("the name has no owner on the bus")
		}
		// fyne.io/systray takes the name before it exports the item's properties: the
		// item is there once they can be read.
		item := conn.Object(dest, "/StatusNotifierItem")
		if _, err := item.GetProperty("org.kde.StatusNotifierItem.Id"); err != nil {
			return fmt.Errorf("the item's properties cannot be read yet: %w", err)
		}
		return nil
	})
	return &tray{conn: conn, dest: dest}, time.Since(since)
}

// items returns the menu's top-level entries as a tray host shows them: separators and
// hidden entries left out.
func (tr *tray) items(t testing.TB) []trayItem {
	t.Helper()
	var revision uint32
	var root menuLayout
	obj := tr.conn.Object(tr.dest, "/StatusNotifierMenu")
	call := obj.Call("com.canonical.dbusmenu.GetLayout", 0, int32(0), int32(-1), []string{})
	if err := call.Store(&revision, &root); err != nil {
		t.Fatalf("reading the tray menu of %s: %v", tr.dest, err)
	}
	var out []trayItem
	for _, child := range root.Children {
		var node menuLayout
		if err := dbus.Store([]any{child.Value()}, &node); err != nil {
			t.Fatalf("reading a tray menu item: %v", err)
		}
		if typ, ok := node.Props["type"]; ok && typ.Value() == "separator" {
			continue
		}
		if v, ok := node.Props["visible"]; ok && v.Value() == false {
			continue // a place the tray keeps for a line to come, as a tray host hides it
		}
		item := trayItem{ID: node.ID, Enabled: true}
		if v, ok := node.Props["label"]; ok {
			item.Label, _ = v.Value().(string)
		}
		if v, ok := node.Props["enabled"]; ok {
			item.Enabled, _ = v.Value().(bool)
		}
		out = append(out, item)
	}
	return out
}

// item returns the entry labelled label, waiting a while for it: a menu being built (at
// start, or with a problem line) may be caught half built.
func (tr *tray) item(t testing.TB, label string) trayItem {
	t.Helper()
	var found trayItem
	await.For(t, 10*time.Second, fmt.Sprintf("the tray menu item %q", label), func() error {
		items := tr.items(t)
		for _, it := range items {
			if it.Label == label {
				found = it
				return nil
			}
		}
		return fmt.Errorf("the menu has %v", items)
	})
	return found
}

// click clicks the entry labelled label, as a person would in the tray host's menu.
func (tr *tray) click(t testing.TB, label string) {
	t.Helper()
	it := tr.item(t, label)
	obj := tr.conn.Object(tr.dest, "/StatusNotifierMenu")
	call := obj.Call("com.canonical.dbusmenu.Event", 0, it.ID, "clicked", dbus.MakeVariant(""), uint32(time.Now().Unix()))
	if call.Err != nil {
		t.Fatalf("clicking %q in the tray menu: %v", label, call.Err)
	}
}
