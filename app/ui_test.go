package app

import (
	"os"
	"sync"
	"testing"
)

// TestMain gives the tests one goroutine for Fyne's work, as segwi has: Fyne's test
// driver runs what is handed to it at once on the caller's goroutine, so that a window's
// follow work, its push check and its refreshes would run side by side. What segwi hands
// to Fyne (onUI, onUIWait) runs on that goroutine, in order; a test that touches widgets
// while such work may be under way does so there too (ui).
func TestMain(m *testing.M) {
	q := newUILoop()
	uiDo = q.do
	os.Exit(m.Run())
}

// uiLoop runs functions one after the other on a goroutine of its own, in the order
// they were handed over. Its queue has no bound: a function that hands another over
// from the loop itself (onUI on Fyne's goroutine) never waits.
type uiLoop struct {
	mu    sync.Mutex
	fs    []func()
	ready *sync.Cond
}

func newUILoop() *uiLoop {
	q := &uiLoop{}
	q.ready = sync.NewCond(&q.mu)
	go q.run()
	return q
}

func (q *uiLoop) do(f func(), wait bool) {
	var done chan struct{}
	if wait {
		done = make(chan struct{})
		g := f
		f = func() {
			defer close(done)
			g()
		}
	}
	q.mu.Lock()
	q.fs = append(q.fs, f)
	q.ready.Signal()
	q.mu.Unlock()
	if wait {
		<-done
	}
}

func (q *uiLoop) run() {
	for {
		q.mu.Lock()
		for len(q.fs) == 0 {
			q.ready.Wait()
		}
		f := q.fs[0]
		q.fs = q.fs[1:]
		q.mu.Unlock()
		f()
	}
}

// ui runs f on the tests' Fyne goroutine and waits for it, quitting or not: a test that
// reads or touches widgets that segwi's own goroutines change does it here.
func ui(f func()) { uiDo(f, true) }
