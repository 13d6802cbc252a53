package tray

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"time"

	"fyne.io/systray"
	"github.com/godbus/dbus/v5"
)

// RefreshEvery is how often the menu is rebuilt for the elapsed times while a run's time
// is shown, besides on each change.
const RefreshEvery = 30 * time.Second

// Tray is the tray icon and menu on the desktop. One process has at most one: systray
// keeps its state in package globals and runs once.
type Tray struct {
	acts   Actions
	clicks chan Action   // from the items' goroutines to the one that calls acts
	every  time.Duration // RefreshEvery; tests shorten it

	mu    sync.Mutex
	items []Item // the menu shown
	look  Look
	tip   string
	shown bool // the icon and tooltip were set once
}

// New returns a tray whose menu items call acts. Nothing shows until Run.
func New(acts Actions) *Tray {
	return &Tray{acts: acts, clicks: make(chan Action, 16), every: RefreshEvery}
}

// Run shows the tray item with the menu, icon and tooltip of first, and calls the
// Actions of the items a person clicks, one at a time, on a goroutine of its own. It
// returns when ctx is done, once the item is gone from the bus. It fails at once when
// there is no session bus to show it on. Call it once per process.
func (t *Tray) Run(ctx context.Context, first Snapshot) error {
	// systray logs and carries on without a bus, then panics when it quits: check first.
	if _, err := dbus.SessionBus(); err != nil {
		return fmt.Errorf("tray: no session bus to show the tray icon on: %w", err)
	}
	// Set before systray exports the item, so that its Id and Title are "segwi" (not a
	// made-up systray_PID) and a tray host never sees it without its menu or icon.
	systray.SetTitle(Title)
	t.Show(first)

	done := make(chan struct{})
	go func() {
		for {
			select {
			case act := <-t.clicks:
				t.acts.Do(act)
			case <-done:
				return
			}
		}
	}()
	go func() {
		<-ctx.Done()
		systray.Quit()
	}()
	systray.Run(nil, nil)
	close(done)
	return nil
}

// Show makes the tray show s: the menu is rebuilt, the icon and tooltip set, only where
// they differ from what is shown. Safe from any goroutine.
func (t *Tray) Show(s Snapshot) {
	items, look, tip := Menu(s), LookOf(s), Tooltip(s)
	t.mu.Lock()
	defer t.mu.Unlock()
	if !t.shown || look != t.look {
		systray.SetIcon(look.Icon())
	}
	if !t.shown || tip != t.tip {
		systray.SetTooltip(tip)
	}
	if !t.shown || !slices.Equal(items, t.items) {
		t.build(items)
	}
	t.items, t.look, t.tip, t.shown = items, look, tip, true
}

// build replaces the menu with items. Each item's clicks go to t.clicks; an item's
// goroutine ends when the next build removes it (systray closes its channel).
func (t *Tray) build(items []Item) {
	systray.ResetMenu()
	for _, it := range items {
		if it.Separator {
			systray.AddSeparator()
			continue
		}
		mi := systray.AddMenuItem(it.Label, "")
		if it.Disabled {
			mi.Disable()
		}
		if it.Action.Verb == NoVerb {
			continue
		}
		act := it.Action
		go func() {
			for range mi.ClickedCh {
				select {
				case t.clicks <- act:
				default: // a person clicking faster than the actions run: drop the click
				}
			}
		}()
	}
}

// Follow shows snapshot() on t now, again after each value from changes (a burst of
// values is one refresh), and every RefreshEvery while the menu shows a run's elapsed
// time, until ctx is done or changes is closed. An idle tray has no timer: it wakes only
// on a change.
func Follow[T any](ctx context.Context, t *Tray, changes <-chan T, snapshot func() Snapshot) {
	var timer *time.Timer
	defer func() {
		if timer != nil {
			timer.Stop()
		}
	}()
	for {
		s := snapshot()
		t.Show(s)
		var tick <-chan time.Time
		if showsElapsed(s) {
			if timer == nil {
				timer = time.NewTimer(t.every)
			} else {
				timer.Reset(t.every)
			}
			tick = timer.C
		}
		select {
		case <-ctx.Done():
			return
		case _, ok := <-changes:
			if !ok {
				return
			}
			drain(changes)
		case <-tick:
		}
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
