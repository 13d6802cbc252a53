// Package trayproc is segwi's tray process: what `segwi` with no arguments runs all day.
// It holds the core (settings and their reload, the runs, the approvals server), the
// keyring, the desktop notifications and the tray icon and menu (package tray, without
// Fyne), and the hub that serves the window process (package hub). It never starts Fyne's
// driver: the windows live in the window process, which the hub starts when one is needed.
package trayproc

import (
	"context"
	"runtime/debug"
	"sync/atomic"

	"github.com/segwi/segwi/approvals"
	"github.com/segwi/segwi/control"
	"github.com/segwi/segwi/internal/lib/display"
	"github.com/segwi/segwi/internal/lib/logger"
	"github.com/segwi/segwi/internal/roots/core"
	"github.com/segwi/segwi/internal/roots/hub"
	"github.com/segwi/segwi/migrate"
	"github.com/segwi/segwi/runs"
	"github.com/segwi/segwi/tray"
)

// Options configure the tray process.
type Options struct {
	// ConfigPath is the settings file.
	ConfigPath string
	// Version is segwi's version.
	Version string
	// Warner remembers the retired settings warned about in this process.
	Warner *migrate.Warner
}

// coreConfig is the tray's core over the settings file at path: it follows the file's
// edits, checks every run record as it starts (see core.Config), and, as it outlives its
// runs, keeps each checkout's last base for the next run there.
func coreConfig(path string, d approvals.Decider, logf logger.Logf) core.Config {
	return core.Config{ConfigPath: path, Decider: d, Watch: true, CheckEveryRecord: true, KeepBases: true, Log: logf}
}

// Run runs the tray until the person quits it or ctx is done (SIGINT, SIGTERM); either
// way it ends the window process and stops every run in two steps before it returns. Bad
// settings do not stop it: it runs with the defaults and shows what is wrong; nor do
// damaged run records: it names them. It fails at once without a desktop to show on, and
// quits with the core's error when the core cannot start (no state folder it can create).
func Run(ctx context.Context, opts Options) error {
	if err := display.Check(); err != nil {
		return err
	}
	logf := logger.Std("segwi: ")
	ctx, quit := context.WithCancel(ctx)
	defer quit()
	// The window process: segwi-windows, looked for beside this executable, else on PATH,
	// each time one is started.
	windows := hub.Program{Name: hub.WindowsProgram}
	notifier := tray.NewNotifier(logf)
	defer notifier.Close()
	h := hub.New(hub.Options{
		Program: "segwi " + opts.Version + " tray",
		Spawn:   windows.Spawn,
		Find:    windows.Find,
		Notify:  notifier.Notify,
		Log:     logf,
		Warner:  opts.Warner,
		Quit:    quit,
	})
	// The core reads the run records as it starts (it marks interrupted the runs a segwi
	// that is gone left live): with thousands of runs, or a cold disk at login, that takes
	// a while, and the menu does not wait for it. Until the core is there the menu shows no
	// runs, and what it is asked for waits for the core (the hub holds its clients back).
	var built atomic.Pointer[core.Core]
	coreErr := make(chan error, 1)
	hubDone := make(chan struct{})
	go func() {
		defer close(hubDone)
		c, err := core.New(coreConfig(opts.ConfigPath, h, logf))
		coreErr <- err
		if err != nil {
			quit()
			return
		}
		built.Store(c)
		// Reading the records left garbage that the next collection, which an idle tray
		// may not need for minutes, would have freed: hand it back now.
		debug.FreeOSMemory()
		h.Run(ctx, c)
	}()

	show := func(s control.Show) func() {
		return func() { go h.Open(ctx, s) }
	}
	t := tray.New(tray.Actions{
		NewRun:         func(k runs.Kind) { show(control.Show{Window: control.ShowNewRun, Kind: k})() },
		OpenRun:        func(id string) { show(control.Show{Window: control.ShowRun, Run: id})() },
		RaiseApprovals: show(control.Show{Window: control.ShowApprovals}),
		History:        show(control.Show{Window: control.ShowHistory}),
		Usage:          show(control.Show{Window: control.ShowUsage}),
		Settings:       show(control.Show{Window: control.ShowSettings}),
		Canary:         show(control.Show{Window: control.ShowCanary}),
		ApprovalPage:   show(control.Show{Window: control.ShowSettings, Section: control.SectionRemote}),
		Quit: func() {
			if c := built.Load(); c == nil || len(c.Live()) == 0 {
				quit()
				return
			}
			show(control.Show{Window: control.ShowQuit})() // it asks first: runs are going
		},
	})
	go tray.Follow(ctx, t, h.Changes(), h.Snapshot)
	err := t.Run(ctx, h.Snapshot())
	quit()
	if cerr := <-coreErr; cerr != nil {
		return cerr
	}
	<-hubDone                        // the window process has ended
	closeErr := built.Load().Close() // stops the runs in two steps, then the approvals server
	if err != nil {
		return err
	}
	return closeErr
}
