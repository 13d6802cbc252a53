package app

import (
	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/driver"
	"github.com/go-gl/glfw/v3.3/glfw"
)

// cascadeStep is how far down and right each step of the cascade moves a popup, in
// screen pixels: enough that the title bar and the buttons of the one under it show.
const cascadeStep = 40

// maxCascadeSteps is where the cascade starts again from the first place, so that many
// popups do not walk off the screen.
const maxCascadeSteps = 8

// cascade moves win, shown already, step places down and right of where it opened. Fyne
// has no call to place a window; on X11 its GLFW window is reached through the window's
// GL context. On Wayland, where the compositor places windows, and with any other driver
// (the test driver), it does nothing. On Fyne's goroutine.
func cascade(win fyne.Window, step int) {
	step %= maxCascadeSteps
	if step == 0 {
		return
	}
	native, ok := win.(driver.NativeWindow)
	if !ok {
		return
	}
	x11 := false
	native.RunNative(func(ctx any) { _, x11 = ctx.(driver.X11WindowContext) })
	withContext, ok := win.(interface{ RunWithContext(func()) })
	if !x11 || !ok {
		return
	}
	withContext.RunWithContext(func() {
		if w := glfw.GetCurrentContext(); w != nil {
			x, y := w.GetPos()
			w.SetPos(x+step*cascadeStep, y+step*cascadeStep)
		}
	})
}
