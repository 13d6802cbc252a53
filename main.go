// Command segwi runs Claude Code for one person on their own machine: a tray app, and the
// same core from the command line.
//
// The tray app is two processes of this one binary: the tray process (segwi with no
// arguments: the core, the keyring, the tray icon; no Fyne driver) and, started by it when
// a window is needed, the window process (the hidden cli.WindowsCommand: Fyne and every
// window), which talk over a socket pair the tray creates and the window process inherits.
package main

import (
	"context"
	"net"
	"os"

	"github.com/segwi/segwi/app"
	"github.com/segwi/segwi/internal/cli"
	"github.com/segwi/segwi/internal/fynelocale"
	"github.com/segwi/segwi/internal/hub"
	"github.com/segwi/segwi/internal/trayproc"
)

func main() {
	fynelocale.Restore()
	os.Exit(cli.Main(os.Args[1:], cli.Options{
		Tray:    tray,
		Windows: windows,
		Stdin:   os.Stdin,
		Stdout:  os.Stdout,
		Stderr:  os.Stderr,
	}))
}

// tray runs the tray process with the command line's settings file; it starts this same
// binary's window process when a window is needed.
func tray(ctx context.Context, env *cli.Env) error {
	path, err := env.ConfigPath()
	if err != nil {
		return err
	}
	exe, err := os.Executable()
	if err != nil {
		return err
	}
	return trayproc.Run(ctx, trayproc.Options{ConfigPath: path, Version: cli.Version, Warner: env.Warner,
		Windows: hub.Exec(exe, cli.WindowsCommand)})
}

// windows runs the window process over conn, its channel to the tray that started it.
func windows(ctx context.Context, conn net.Conn, _ *cli.Env) error {
	return app.RunWindows(ctx, conn, app.WindowOptions{Version: cli.Version})
}
