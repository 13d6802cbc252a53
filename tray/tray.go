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

	mu      sync.Mutex
	items   []Item  // the menu shown
	entries []entry // its systray items, hidden ones included, in their order
	look    Look
	tip     string
	shown   bool // the icon and tooltip were set once
}

// entry is one item of the systray menu. Its key (see keyOf) is what it is for its whole
// life, and so what a click on its id does: a change of label or state is made in place,
// keeping the id that a tray host showing the menu may be about to click.
type entry struct {
	key    string
	mi     *systray.MenuItem // nil for a separator
	item   Item              // what it shows
	hidden bool
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
		t.update(items)
	}
	t.items, t.look, t.tip, t.shown = items, look, tip, true
}

// update makes the menu show items. Where the items shown can show them in place (no
// new key, none out of order) their labels and states change and the items not wanted are
// hidden, so that every id keeps meaning what it meant: a tray host that read the menu a
// moment ago clicks what the person saw. Otherwise (a new run, a problem shown first) the
// menu is built anew. Called with t.mu held.
func (t *Tray) update(items []Item) {
	shown := make([]string, len(t.entries))
	for i, e := range t.entries {
		shown[i] = e.key
	}
	wanted := make([]string, len(items))
	for j, it := range items {
		wanted[j] = keyOf(it)
	}
	at, ok := placeIn(shown, wanted)
	if !ok {
		t.build(items)
		return
	}
	used := make([]bool, len(t.entries))
	for j, i := range at {
		used[i] = true
		e, it := &t.entries[i], items[j]
		if e.mi != nil {
			if it.Label != e.item.Label {
				e.mi.SetTitle(it.Label)
			}
			if it.Disabled && !e.item.Disabled {
				e.mi.Disable()
			} else if !it.Disabled && e.item.Disabled {
				e.mi.Enable()
			}
			if e.hidden {
				e.mi.Show()
				e.hidden = false
			}
		}
		e.item = it
	}
	kept := t.entries[:0]
	for i, e := range t.entries {
		switch {
		case used[i]:
		case e.item.Action.Verb == OpenRun: // the run has left the menu, for good
			e.mi.Remove()
			continue
		case !e.hidden:
			e.mi.Hide()
			e.hidden = true
		}
		kept = append(kept, e)
	}
	t.entries = kept
}

// build replaces the menu with items. Each item's clicks go to t.clicks; an item's
// goroutine ends when the item is removed (systray closes its channel). Called with t.mu
// held.
func (t *Tray) build(items []Item) {
	systray.ResetMenu()
	t.entries = t.entries[:0]
	for _, it := range items {
		if it.Separator {
			systray.AddSeparator()
			t.entries = append(t.entries, entry{key: keyOf(it), item: it})
			continue
		}
		mi := systray.AddMenuItem(it.Label, "")
		if it.Disabled {
			mi.Disable()
		}
		t.entries = append(t.entries, entry{key: keyOf(it), mi: mi, item: it})
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

// keyOf is what a menu item is for its life: a separator, a line that only informs (its
// text may change), or its action (its label and state may change).
func keyOf(it Item) string {
	switch {
	case it.Separator:
		return "---"
	case it.Action.Verb == NoVerb:
		return "note"
	}
	return fmt.Sprintf("%d %s %s", it.Action.Verb, it.Action.Kind, it.Action.Run)
}

// placeIn finds, for each key wanted, the entry of shown that shows it in place: at[j] is
// the index in shown for wanted[j], in increasing order. Entries skipped are hidden, but a
// separator cannot be (systray gives no handle to one): ok is false when a wanted key has
// no entry after the one before it, or a separator would be skipped.
func placeIn(shown, wanted []string) (at []int, ok bool) {
	i := 0
	for _, key := range wanted {
		for i < len(shown) && shown[i] != key {
			if shown[i] == "---" {
				return nil, false
			}
			i++
		}
		if i == len(shown) {
			return nil, false
		}
		at = append(at, i)
		i++
	}
	for ; i < len(shown); i++ {
		if shown[i] == "---" {
			return nil, false
		}
	}
	return at, true
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
