//go:build linkall

package main

// What segwi's one binary linked before the window process became segwi-windows: the
// window process (app, with Fyne), the tray process and the command line.
import (
	_ "github.com/segwi/segwi/app"
	_ "github.com/segwi/segwi/internal/lib/fynelocale"
	_ "github.com/segwi/segwi/internal/roots/cli"
	_ "github.com/segwi/segwi/internal/roots/hub"
	_ "github.com/segwi/segwi/internal/roots/trayproc"
)
