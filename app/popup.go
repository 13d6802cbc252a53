package app

import (
	"context"
	"errors"
	"sync"
	"time"

	"fyne.io/fyne/v2"

	"github.com/segwi/segwi/approvals"
)

// PopupDecider puts each pending request in front of the person as its own popup window,
// raised and focused, as an approvals.Decider: the window process calls Decide for each
// request the tray says waits, and sends the tray the answer. (The tray process sends the
// desktop notification.)
//
// A popup answers its request only through a click on one of its buttons; nothing answers
// on Enter or Space. Closing a popup's window with its close button denies the request,
// saying the person closed the window, so that no request is left waiting on a window the
// person can no longer see. When the request's context ends (it timed out, or its run
// ended) the popup closes without answering.
type PopupDecider struct {
	app   fyne.App
	clock popupClock
	// place moves a popup's window, just shown, to its step of the cascade (cascade
	// outside tests), so that two popups never lie exactly on top of each other.
	place func(w fyne.Window, step int)

	mu   sync.Mutex
	open []*popup // in the order they opened
}

// A popupClock tells the time and ticks; tests replace the real one to move time by hand.
type popupClock interface {
	Now() time.Time
	// Tick returns a channel that receives about every d, and a func that stops it.
	Tick(d time.Duration) (<-chan time.Time, func())
}

type wallClock struct{}

func (wallClock) Now() time.Time { return time.Now() }

func (wallClock) Tick(d time.Duration) (<-chan time.Time, func()) {
	t := time.NewTicker(d)
	return t.C, t.Stop
}

// countdownEvery is how often a popup refreshes the time left before its timeout.
const countdownEvery = time.Second

// NewPopupDecider returns a Decider that opens its popups in a.
func NewPopupDecider(a fyne.App) *PopupDecider {
	return newPopupDecider(a, wallClock{})
}

func newPopupDecider(a fyne.App, c popupClock) *PopupDecider {
	return &PopupDecider{app: a, clock: c, place: cascade}
}

// Pending returns how many requests wait for the person in a popup. Safe from any goroutine.
func (d *PopupDecider) Pending() int {
	d.mu.Lock()
	defer d.mu.Unlock()
	return len(d.open)
}

// RaiseAll shows and focuses every pending popup, the oldest last so that it ends on top
// (the tray's "Waiting approvals" item). Call it on Fyne's goroutine.
func (d *PopupDecider) RaiseAll() {
	ps := d.popups()
	for i := len(ps) - 1; i >= 0; i-- {
		ps[i].raise()
	}
}

// errQuitting is Decide's error when segwi is quitting: no popup can open any more, and
// the broker denies the request, saying so.
var errQuitting = errors.New("segwi is quitting, so no approval window can open")

// Decide opens a popup for req and blocks until the person answers it with a click, closes
// its window (a deny), or ctx is done, in which case the popup closes and Decide returns
// ctx.Err(). It must not be called on Fyne's goroutine: it waits for that goroutine to open
// the window.
func (d *PopupDecider) Decide(ctx context.Context, req approvals.Request) (approvals.Answer, error) {
	if err := ctx.Err(); err != nil {
		return approvals.Answer{}, err
	}
	view := viewOf(req) // here, not on Fyne's goroutine: an Edit's diff can take a while
	var p *popup
	if !onUIWait(func() { p = d.openPopup(req, view) }) {
		return approvals.Answer{}, errQuitting
	}

	tick, stop := d.clock.Tick(countdownEvery)
	defer stop()
	for {
		select {
		case a := <-p.answers:
			return a, nil
		case <-ctx.Done():
			onUI(p.withdraw)
			return approvals.Answer{}, ctx.Err()
		case <-tick:
			onUI(p.showTimeLeft)
		}
	}
}

// openPopup builds, shows and registers the popup for req, showing view (viewOf(req)).
// On Fyne's goroutine.
func (d *PopupDecider) openPopup(req approvals.Request, view requestView) *popup {
	p := newPopup(d, req, view, d.freeStep())
	p.win.CenterOnScreen()
	p.raise()
	d.place(p.win, p.step)
	d.change(func(open []*popup) []*popup { return append(open, p) })
	return p
}

// freeStep is the first step of the cascade that no open popup holds.
func (d *PopupDecider) freeStep() int {
	taken := map[int]bool{}
	for _, p := range d.popups() {
		taken[p.step] = true
	}
	step := 0
	for taken[step] {
		step++
	}
	return step
}

// forget takes p off the pending list once it is answered or withdrawn. On Fyne's goroutine.
func (d *PopupDecider) forget(p *popup) {
	d.change(func(open []*popup) []*popup {
		for i, q := range open {
			if q == p {
				return append(open[:i], open[i+1:]...)
			}
		}
		return open
	})
}

// change applies edit to the pending list.
func (d *PopupDecider) change(edit func([]*popup) []*popup) {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.open = edit(d.open)
}

// popups returns the pending popups, oldest first.
func (d *PopupDecider) popups() []*popup {
	d.mu.Lock()
	defer d.mu.Unlock()
	return append([]*popup(nil), d.open...)
}
