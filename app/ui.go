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

// onUI runs f on Fyne's goroutine, unless segwi is quitting.
func onUI(f func()) {
	if !uiQuitting.Load() {
		fyne.Do(f)
	}
}

// onUIWait runs f on Fyne's goroutine and waits for it, unless segwi is quitting; it
// reports whether f ran. Never call it on Fyne's goroutine.
func onUIWait(f func()) bool {
	if uiQuitting.Load() {
		return false
	}
	fyne.DoAndWait(f)
	return true
}
