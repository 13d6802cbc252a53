// Command trayonly is the tray process's tray alone, for the desktop test to measure what
// it costs at idle: package tray's systray icon and menu with no run, no window and no
// Fyne driver. Built with -tags linkall, it also links all of segwi's packages, Fyne's
// included, as segwi's one binary did before segwi-windows, so that what linking Fyne
// costs by itself (package init, cgo, the libraries the loader maps) shows in the figures.
//
// It prints "heap after init: N" (Go heap bytes in use once every package is initialised),
// then "clicked VERB[ ARG]" for each menu item clicked, and exits on SIGTERM.
package main

import (
	"context"
	"fmt"
	"os"
	"os/signal"
	"runtime"
	"syscall"
	"time"

	"github.com/segwi/segwi/runs"
	"github.com/segwi/segwi/tray"
)

func main() {
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	fmt.Printf("heap after init: %d\n", m.HeapInuse)

	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, os.Interrupt)
	defer stop()
	clicked := func(what string) func() { return func() { fmt.Println("clicked", what) } }
	t := tray.New(tray.Actions{
		NewRun:         func(k runs.Kind) { fmt.Println("clicked new-run", k) },
		OpenRun:        func(id string) { fmt.Println("clicked open-run", id) },
		RaiseApprovals: clicked("approvals"),
		History:        clicked("history"),
		Settings:       clicked("settings"),
		Canary:         clicked("canary"),
		Quit:           func() { fmt.Println("clicked quit"); stop() },
	})
	idle := func() tray.Snapshot { return tray.Snapshot{Now: time.Now()} }
	go tray.Follow(ctx, t, make(chan struct{}), idle)
	if err := t.Run(ctx, idle()); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}
