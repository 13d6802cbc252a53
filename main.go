// Command segwi runs Claude Code for one person on their own machine: a tray app, and the
// same core from the command line.
//
// The tray app is two processes: the tray process (segwi with no arguments: the core, the
// keyring, the tray icon; no Fyne) and, started by it when a window is needed, the window
// process (the program segwi-windows, cmd/segwi-windows: Fyne and every window), which
// talk over a socket pair the tray creates and the window process inherits. segwi itself
// links no Fyne and builds without cgo, so that the tray process, which runs all day,
// carries none of Fyne's code or package state.
package main

import (
	"context"
	"os"
	"runtime"

	"github.com/segwi/segwi/internal/roots/cli"
	"github.com/segwi/segwi/internal/roots/trayproc"
)

func main() {
	os.Exit(cli.Main(os.Args[1:], cli.Options{
		Tray: tray,
		// fyne.io/systray's init locks the main goroutine to the main thread, where the
		// tray's menu loop must run on macOS and Windows. A command has no use for it, and
		// would pay for it at each of its waits (segwi run waits for every event of its
		// run): the locked thread hands its P to another thread and sleeps, and is woken
		// back through one. Released, a run costs one thread and about 30 context switches
		// less.
		Headless: runtime.UnlockOSThread,
		Stdin:    os.Stdin,
		Stdout:   os.Stdout,
		Stderr:   os.Stderr,
	}))
}

// tray runs the tray process with the command line's settings file; it starts
// segwi-windows, found beside this executable or on PATH, when a window is needed.
func tray(ctx context.Context, env *cli.Env) error {
	path, err := env.ConfigPath()
	if err != nil {
		return err
	}
	return trayproc.Run(ctx, trayproc.Options{ConfigPath: path, Version: cli.Version, Warner: env.Warner})
}
