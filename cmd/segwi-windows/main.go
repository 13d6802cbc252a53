// Command segwi-windows is segwi's window process: Fyne and every window segwi shows (the
// new-run dialog, run windows, approval popups, settings, history, warnings, the canary
// report), as a client of segwi's tray over the channel the tray passes it (package
// control, package app).
//
// segwi's tray starts it when a window is needed, from the folder of segwi's own
// executable, else from PATH; it is not for use by hand, and refuses to run without the
// tray's channel. It is a program of its own, apart from segwi, so that the tray process,
// which runs all day, links no Fyne: the same tray with Fyne linked held twice the memory
// at idle without ever starting Fyne's driver (see README, "Two processes").
package main

import (
	"context"
	"fmt"
	"io"
	"net"
	"os"
	"os/signal"
	"syscall"

	"github.com/segwi/segwi/app"
	"github.com/segwi/segwi/control"
	"github.com/segwi/segwi/internal/lib/fynelocale"
	"github.com/segwi/segwi/internal/lib/logger"
)

// version is segwi's version, set at build time with
// -ldflags "-X main.version=v1.2.3", as segwi's own is (scripts/run.sh builds both).
var version = "dev"

// Exit statuses, as segwi's.
const (
	exitOK    = 0
	exitError = 1
	exitUsage = 2
)

func main() {
	fynelocale.Restore()
	// A closed pipe on stdout or stderr (the tray's log going away) must not kill a window
	// with an approval in it: with SIGPIPE notified, a write to it just fails.
	signal.Notify(make(chan os.Signal, 1), syscall.SIGPIPE)
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM, syscall.SIGHUP)
	defer stop()
	os.Exit(run(ctx, os.Args[1:], os.Stdout, os.Stderr, windows))
}

// windows runs the window process over conn, its channel to the tray that started it.
func windows(ctx context.Context, conn net.Conn) error {
	return app.RunWindows(ctx, conn, app.WindowOptions{Version: version, Log: logger.Std("segwi-windows: ")})
}

// usage is what --help prints.
const usage = `segwi-windows shows segwi's windows for the segwi tray that started it.
It is started by segwi's tray, with a channel to it, not by hand: run segwi instead.

  segwi-windows --version   print the version
`

// run is main without the process around it: it refuses to start without the tray's
// channel (before anything else: without it there is nothing to show and no other way to
// reach the tray), and otherwise runs windows over it until it returns.
func run(ctx context.Context, args []string, stdout, stderr io.Writer, windows func(context.Context, net.Conn) error) int {
	if len(args) > 0 {
		switch args[0] {
		case "--version":
			fmt.Fprintf(stdout, "segwi-windows %s\n", version)
			return exitOK
		case "--help", "-h":
			fmt.Fprint(stdout, usage)
			return exitOK
		}
		fmt.Fprintf(stderr, "segwi-windows: unknown argument %q: it takes none (segwi's tray starts it)\n\n%s", args[0], usage)
		return exitUsage
	}
	conn, err := control.Inherited()
	if err != nil {
		fmt.Fprintf(stderr, "segwi-windows: it is started by segwi's tray, with a channel to it, not by hand: run segwi instead (%v)\n", err)
		return exitError
	}
	if err := windows(ctx, conn); err != nil {
		fmt.Fprintf(stderr, "segwi-windows: %v\n", err)
		return exitError
	}
	return exitOK
}
