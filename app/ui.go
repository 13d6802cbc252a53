package app

import (
	"sync/atomic"

	"fyne.io/fyne/v2"
)

// uiQuitting is set once segwi starts to quit. From then on nothing touches Fyne from
// segwi's own goroutines: once Fyne's loop has stopped it runs queued functions after GLFW
// is gone, where closing or opening a window panics, and the runs are being stopped at
// that very moment (their approval popups withdraw, their windows get their last events).
var uiQuitting atomic.Bool

// uiDo runs f on Fyne's goroutine, and waits for it when wait is set. The tests replace
// it: Fyne's test driver runs f at once on the caller's goroutine, so that a window's
// work from two goroutines would run side by side there, as it never does in segwi.
var uiDo = func(f func(), wait bool) {
	if wait {
		fyne.DoAndWait(f)
	} else {
		fyne.Do(f)
	}
}

// onUI runs f on Fyne's goroutine, unless segwi is quitting.
func onUI(f func()) {
	if !uiQuitting.Load() {
		uiDo(f, false)
	}
}

// onUIWait runs f on Fyne's goroutine and waits for it, unless segwi is quitting; it
// reports whether f ran. Never call it on Fyne's goroutine.
func onUIWait(f func()) bool {
	if uiQuitting.Load() {
		return false
	}
	uiDo(f, true)
	return true
}

// uiWait is onUIWait for those that take a function to run on Fyne's goroutine and wait.
func uiWait(f func()) { onUIWait(f) }
