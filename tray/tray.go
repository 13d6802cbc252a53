package tray

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"

	"fyne.io/systray"
	"github.com/godbus/dbus/v5"
)

// RefreshEvery is how often the menu is refreshed for the elapsed times while a run's time
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
	quit    bool // Run is ending: systray's bus connection closes, nothing may be shown
}

// entry is one item of the systray menu. Its key (see keyOf) is what it is for its whole
// life, and so what a click on its id does: a change of label or state is made in place,
// keeping the id that a tray host showing the menu may be about to click. A run's line is
// kept for the run it shows until the run leaves; then its place is free (key runPlace)
// for a run that comes later.
type entry struct {
	key    string
	mi     *systray.MenuItem // nil for a separator
	item   Item              // what it shows; its Action is what a click does
	hidden bool
}

// Keys of the places that build keeps hidden for what may come without a rebuild.
const (
	runPlace  = "run:" // a run's line, free; a run's own is runPlace + its id
	notePlace = "note" // a line that only informs: "No runs going", the approval page
	sepKey    = "---"  // a separator, which cannot be hidden
	spareRuns = 8      // free run lines kept after the runs at each build
)

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
		// Not while Show changes the menu: systray closes its bus connection, and a
		// property set after that panics ("dbus: connection closed by user"), which
		// ended segwi with exit status 2 on SIGTERM as runs were ending.
		t.mu.Lock()
		t.quit = true
		t.mu.Unlock()
		systray.Quit()
	}()
	systray.Run(nil, nil)
	close(done)
	return nil
}

// Show makes the tray show s: the menu, the icon and the tooltip are changed only where
// they differ from what is shown. Once Run is ending it does nothing. Safe from any
// goroutine.
func (t *Tray) Show(s Snapshot) {
	items, look, tip := Menu(s), LookOf(s), Tooltip(s)
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.quit {
		return
	}
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

// update makes the menu show items. Where the items shown, hidden places included, can
// show them in place (see placeIn) their labels and states change, the items not wanted
// are hidden and those wanted again shown, so that every id keeps meaning what it meant:
// a tray host that read the menu a moment ago clicks what the person saw. Otherwise (a
// problem shown first, no free run line left) the menu is built anew. Called with t.mu
// held.
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
		e.key = wanted[j] // a free run line takes its run's key
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
	for i := range t.entries {
		e := &t.entries[i]
		if used[i] {
			continue
		}
		if e.item.Action.Verb == OpenRun {
			// The run has left the menu: its line is free for one that comes later. A
			// click on it meanwhile still opens the run that left.
			e.key = runPlace
		}
		if !e.hidden {
			e.mi.Hide()
			e.hidden = true
		}
	}
}

// build replaces the menu with items, and the hidden places of layout. Each item's clicks
// go to t.clicks; an item's goroutine ends when the item is removed (systray closes its
// channel). Called with t.mu held.
func (t *Tray) build(items []Item) {
	systray.ResetMenu()
	t.entries = t.entries[:0]
	for _, p := range layout(items) {
		it := p.item
		if it.Separator {
			systray.AddSeparator()
			t.entries = append(t.entries, entry{key: sepKey, item: it})
			continue
		}
		mi := systray.AddMenuItem(it.Label, "")
		if it.Disabled {
			mi.Disable()
		}
		if p.hidden {
			mi.Hide()
		}
		t.entries = append(t.entries, entry{key: p.key, mi: mi, item: it, hidden: p.hidden})
		if p.key == notePlace {
			continue // it only informs, for its whole life
		}
		go func() {
			for range mi.ClickedCh {
				act, ok := t.actionOf(mi)
				if !ok {
					continue
				}
				select {
				case t.clicks <- act:
				default: // a person clicking faster than the actions run: drop the click
				}
			}
		}()
	}
}

// actionOf is what a click on mi does now: a run's line may show another run than when
// it was built. A free place that never showed a run does nothing.
func (t *Tray) actionOf(mi *systray.MenuItem) (Action, bool) {
	t.mu.Lock()
	defer t.mu.Unlock()
	for _, e := range t.entries {
		if e.mi == mi {
			return e.item.Action, e.item.Action.Verb != NoVerb
		}
	}
	return Action{}, false
}

// place is one entry of the menu as build makes it: an item, or a hidden place kept for
// what may come later without a rebuild.
type place struct {
	key    string
	item   Item
	hidden bool
}

// layout is what build puts in the menu for items: the items, with hidden places kept
// where lines come and go as segwi works (a rebuild gives every item a new id, and a
// tray host that read the menu a moment before would click an id that is gone: systray
// drops that click). Kept: the "No runs going" line while runs are shown, spareRuns free
// lines after the runs, and the approval page's line (which opens the settings) after the
// approvals. A problem
// line, which comes with a separator, still rebuilds the menu: it is rare.
func layout(items []Item) []place {
	var out []place
	for j, it := range items {
		next := Item{Separator: true}
		if j+1 < len(items) {
			next = items[j+1]
		}
		if it.Separator && j > 0 && items[j-1].Action.Verb == NewRun {
			// The runs' section follows: its note first, then the runs, then spares.
			out = append(out, place{key: sepKey, item: it})
			if next.Action.Verb != NoVerb || next.Separator {
				out = append(out, place{key: notePlace, item: Item{Label: LabelNoRuns, Disabled: true}, hidden: true})
			}
			continue
		}
		out = append(out, place{key: keyOf(it), item: it})
		if it.Action.Verb == OpenRun || (it.Label == LabelNoRuns && it.Action.Verb == NoVerb) {
			if next.Action.Verb != OpenRun {
				for range spareRuns {
					out = append(out, place{key: runPlace, item: Item{Label: " "}, hidden: true})
				}
			}
		}
		if it.Action.Verb == RaiseApprovals && next.Action.Verb != ApprovalPage {
			page := Item{Label: " ", Action: Action{Verb: ApprovalPage}}
			out = append(out, place{key: keyOf(page), item: page, hidden: true})
		}
	}
	return out
}

// keyOf is what a menu item is for its life: a separator, a line that only informs (its
// text may change), a run's line, or its action (its label and state may change).
func keyOf(it Item) string {
	switch {
	case it.Separator:
		return sepKey
	case it.Action.Verb == NoVerb:
		return notePlace
	case it.Action.Verb == OpenRun:
		return runPlace + it.Action.Run
	}
	return fmt.Sprintf("%d %s", it.Action.Verb, it.Action.Kind)
}

// placeIn finds, for each key wanted, the entry of shown that shows it in place: at[j] is
// the index in shown for wanted[j], in increasing order. A run's line is its own entry, or
// a free run line (runPlace). Entries skipped are hidden, but a separator cannot be
// (systray gives no handle to one): ok is false when a wanted key has no entry after the
// one before it, or a separator would be skipped.
func placeIn(shown, wanted []string) (at []int, ok bool) {
	// own finds a run's own line in its section, from i: it keeps its place rather than
	// take a free one before it (where a click meant for a run that left would open it).
	own := func(i int, key string) int {
		for ; i < len(shown) && shown[i] != sepKey; i++ {
			if shown[i] == key {
				return i
			}
		}
		return -1
	}
	fits := func(have, want string) bool {
		return have == want || (have == runPlace && strings.HasPrefix(want, runPlace))
	}
	i := 0
	for _, key := range wanted {
		if strings.HasPrefix(key, runPlace) {
			if k := own(i, key); k >= 0 {
				i = k
			}
		}
		for i < len(shown) && !fits(shown[i], key) {
			if shown[i] == sepKey {
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
		if shown[i] == sepKey {
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
