package app

import (
	"context"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/driver/desktop"

	"github.com/segwi/segwi/runs"
	"github.com/segwi/segwi/settings"
)

// trayEvery is how often the tray menu is rebuilt for the elapsed times, besides on each
// change of a run's state or of the pending approvals.
const trayEvery = 30 * time.Second

// trayCore is what the tray needs of the core.
type trayCore interface {
	Live() []liveRun
	Settings() settings.Settings
	SubscribeStates() (<-chan runs.Event, func())
}

// tray keeps the tray icon and menu up to date. Its methods run on Fyne's goroutine,
// except watch.
type tray struct {
	desk    desktop.App // nil when the driver has no tray
	core    trayCore
	pending func() int
	acts    trayActions
	canary  bool
	now     func() time.Time

	menu *fyne.Menu
	look trayLook
	set  bool // the icon was set at least once
}

// snapshot takes what the tray shows now.
func (t *tray) snapshot() traySnapshot {
	repos := t.core.Settings().Repositories
	s := traySnapshot{Pending: t.pending(), Now: t.now(), Canary: t.canary}
	for _, r := range t.core.Live() {
		s.Runs = append(s.Runs, trayRunOf(r.Info(), repos))
	}
	return s
}

// refresh rebuilds the menu and sets the icon when its look changed. On Fyne's goroutine.
func (t *tray) refresh() {
	s := t.snapshot()
	t.menu = trayMenu(s, t.acts)
	look := trayLookOf(s)
	if t.desk == nil {
		t.look, t.set = look, true
		return
	}
	t.desk.SetSystemTrayMenu(t.menu)
	if !t.set || look != t.look {
		t.desk.SetSystemTrayIcon(look.icon())
	}
	t.look, t.set = look, true
}

// watch refreshes the tray on every run state change and every trayEvery, until ctx is
// done. On its own goroutine.
func (t *tray) watch(ctx context.Context) {
	states, cancel := t.core.SubscribeStates()
	defer cancel()
	tick := time.NewTicker(trayEvery)
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case _, ok := <-states:
			if !ok {
				return
			}
			// Take what else came at once, so a burst of changes is one rebuild.
			drain(states)
		case <-tick.C:
		}
		if ctx.Err() != nil {
			return // the app is quitting: the Fyne loop may be gone
		}
		onUI(t.refresh)
	}
}

// drain takes the values already waiting in ch without blocking.
func drain[T any](ch <-chan T) {
	for {
		select {
		case _, ok := <-ch:
			if !ok {
				return
			}
		default:
			return
		}
	}
}
