// Package app is segwi's window process: every window segwi shows (the new-run dialog, the
// run windows, the approval popups, the settings, the history, the warnings, the canary
// report), as a client of the tray process over the control channel (package control). It
// holds no core, starts no run and reads no keyring: it asks the tray, which does. It reads
// the run records in the state folder, never writing them, for the history and the run
// windows. It is the only package that imports Fyne; the core knows nothing of widgets.
//
// The tray starts it when a window is needed (a menu item, an approval request, a
// warning); it ends when the tray's channel ends, or a while (IdleExit) after its last
// window was closed.
package app

import (
	"context"
	"net"
	"time"

	"fyne.io/fyne/v2"
	fyneapp "fyne.io/fyne/v2/app"

	"github.com/segwi/segwi/assets"
	"github.com/segwi/segwi/control"
	"github.com/segwi/segwi/internal/lib/display"
	"github.com/segwi/segwi/internal/lib/logger"
)

// ID is the application id, as in FyneApp.toml.
const ID = "dev.segwi.segwi"

var iconApp = fyne.NewStaticResource("segwi.png", assets.Icon)

// IdleExit is how long the window process stays once its last window was closed: a menu
// item clicked soon after opens at once, and a process left idle gives back its memory
// (Fyne's GL stack, about 100 MB) soon after.
const IdleExit = 10 * time.Second

// WindowOptions configure the window process.
type WindowOptions struct {
	// Version is segwi's version, for the Hello to the tray.
	Version string
	// IdleExit overrides IdleExit (tests); zero means IdleExit.
	IdleExit time.Duration
	// Log gets what goes wrong that no window can show: an answer that did not reach the
	// tray. Nil writes nothing.
	Log logger.Logf
}

// RunWindows runs the window process over conn, its channel to the tray that started it,
// and blocks until the tray's channel ends, ctx is done (SIGINT, SIGTERM), or no window has
// been open for IdleExit. An approval popup is a window: the process does not leave while
// a request waits for the person.
func RunWindows(ctx context.Context, conn net.Conn, opts WindowOptions) error {
	if err := display.Check(); err != nil {
		conn.Close()
		return err
	}
	if opts.IdleExit <= 0 {
		opts.IdleExit = IdleExit
	}
	// OpenURL says when the desktop could not open a folder or a file (see openingApp).
	a := openingApp{fyneapp.NewWithID(ID)}
	a.SetIcon(iconApp)
	// Fyne's loop ends when its last window is destroyed; a window never shown is never
	// destroyed, so this one keeps the process up between windows, until it decides to go.
	keeper := a.NewWindow("segwi")

	link := newTrayLink()
	d := newDesk(a, link, opts)
	client, err := control.NewClient(conn, control.ClientOptions{
		Program: "segwi " + opts.Version + " windows",
		Event:   d.event,
		Show:    d.show,
	})
	if err != nil {
		return err
	}
	link.client = client

	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	go func() {
		select {
		case <-client.Done():
		case <-ctx.Done():
		}
		leave(a)
	}()
	go exitWhenIdle(ctx, a, keeper, opts.IdleExit)

	a.Run()
	uiQuitting.Store(true) // Fyne may also have quit by itself, on SIGINT or SIGTERM
	cancel()
	d.leave()
	d.detachAll()
	link.closeAll()
	client.Close()
	return nil
}

// leave ends Fyne's loop, once. Nothing touches Fyne from segwi's goroutines from then
// on.
func leave(a fyne.App) {
	if uiQuitting.Swap(true) {
		return
	}
	// The driver's Quit, which does nothing the second time: Fyne quits on SIGINT and
	// SIGTERM by itself too, and the app's Quit would close windows GLFW has let go of.
	fyne.Do(a.Driver().Quit)
}

// idleCheckEvery is how often the window process looks whether a window is open.
const idleCheckEvery = time.Second

// exitWhenIdle leaves once no window but keeper has been open for idle, until ctx is done.
func exitWhenIdle(ctx context.Context, a fyne.App, keeper fyne.Window, idle time.Duration) {
	t := time.NewTicker(idleCheckEvery)
	defer t.Stop()
	since := time.Now()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		leaving := false
		if !onUIWait(func() {
			open := false
			for _, w := range a.Driver().AllWindows() {
				open = open || w != keeper
			}
			switch {
			case open:
				since = time.Now()
			case time.Since(since) >= idle:
				// Decided on Fyne's goroutine, where a Show opens its window: a Show that
				// came before has its window open (so no leaving), one that comes after
				// finds uiQuitting set and is asked of the next window process.
				leaving = !uiQuitting.Swap(true)
			}
		}) {
			return
		}
		if leaving {
			fyne.Do(a.Driver().Quit)
			return
		}
	}
}
