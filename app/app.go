// Package app is segwi's desktop front end: the tray icon and its menu, and the windows it
// opens. It is the only package that imports Fyne; the core (runs, approvals, settings)
// knows nothing of widgets.
package app

import (
	"context"
	"errors"
	"log"
	"os"
	"runtime"
	"time"

	"fyne.io/fyne/v2"
	fyneapp "fyne.io/fyne/v2/app"
	"fyne.io/fyne/v2/driver/desktop"

	"github.com/segwi/segwi/assets"
	"github.com/segwi/segwi/internal/core"
	"github.com/segwi/segwi/migrate"
	"github.com/segwi/segwi/runs"
	"github.com/segwi/segwi/runs/canary"
	"github.com/segwi/segwi/settings"
)

// ID is the application id, as in FyneApp.toml.
const ID = "dev.segwi.segwi"

var (
	iconApp     = fyne.NewStaticResource("segwi.png", assets.Icon)
	iconIdle    = fyne.NewStaticResource("segwi-idle.png", assets.TrayIdle)
	iconBusy    = fyne.NewStaticResource("segwi-busy.png", assets.TrayBusy)
	iconWaiting = fyne.NewStaticResource("segwi-waiting.png", assets.TrayWaiting)
)

// Options configure the tray app.
type Options struct {
	// ConfigPath is the settings file (cli.Env.ConfigPath).
	ConfigPath string
	// Warner remembers which retired settings were warned about in this process.
	Warner *migrate.Warner
	// Version is segwi's version, shown in the app's windows.
	Version string
	// Canary runs segwi's canary and returns its report; nil means the canary of
	// runs/canary on the app's own runs.
	Canary func(ctx context.Context) (string, error)
}

// Run opens the tray app and blocks until the person quits it or ctx is cancelled (SIGINT,
// SIGTERM). Either way it stops every run in two steps before it returns. Bad settings do
// not stop it: it runs with the defaults and shows what is wrong; nor do damaged run
// records: it shows which files they are.
func Run(ctx context.Context, opts Options) error {
	if err := haveDisplay(); err != nil {
		return err
	}
	if opts.Warner == nil {
		opts.Warner = migrate.NewWarner()
	}
	a := fyneapp.NewWithID(ID)
	a.SetIcon(iconApp)
	popups := NewPopupDecider(a)
	c, err := core.New(core.Config{
		ConfigPath: opts.ConfigPath,
		Decider:    popups,
		Watch:      true,
		Log:        func(format string, args ...any) { log.Printf("segwi: "+format, args...) },
	})
	if err != nil {
		return err
	}
	if opts.Canary == nil {
		// The tray's canary runs on the app's own manager, so its approvals go to the popups.
		opts.Canary = canary.Func(c.Manager(), c.Settings)
	}

	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	ui := newDesktopUI(a, appCore{c}, popups, opts)
	ui.startTray(ctx)
	a.Lifecycle().SetOnStarted(func() {
		ui.settingsLoaded(c.Report(), AtStartup)
		ShowDamagedRecords(a, c.Damaged())
	})
	c.OnReport(func(rep core.SettingsReport) {
		onUI(func() { ui.settingsLoaded(rep, AfterEdit) })
	})

	ended := make(chan struct{})
	go func() {
		select {
		case <-ctx.Done():
			// Leave the Fyne loop; the runs are stopped below, once it has ended. Fyne
			// quits on SIGINT and SIGTERM by itself too, so this must be the driver's
			// Quit, which does nothing the second time: the app's Quit would close
			// windows that GLFW has already let go of, and panic.
			uiQuitting.Store(true)
			fyne.Do(a.Driver().Quit)
		case <-ended:
		}
	}()
	a.Run()
	uiQuitting.Store(true) // Fyne may also have quit by itself, on SIGINT or SIGTERM
	close(ended)
	cancel() // the tray stops following the runs
	ui.detachAll()
	return c.Close() // stops the runs in two steps, then the approvals server
}

// desktopUI is the tray app on top of the core: the tray and the windows it opens. Its
// fields are touched on Fyne's goroutine only.
type desktopUI struct {
	app    fyne.App
	core   appCore
	popups *PopupDecider
	opts   Options
	tray   *tray

	runWins   map[string]*runWindow
	history   *historyWindow
	quitWin   fyne.Window
	stopping  bool // Quit's "Stop the runs and quit" was pressed: the app quits once they are stopped
	canaryWin fyne.Window
}

func newDesktopUI(a fyne.App, c appCore, popups *PopupDecider, opts Options) *desktopUI {
	return &desktopUI{app: a, core: c, popups: popups, opts: opts, runWins: map[string]*runWindow{}}
}

// startTray sets up the tray icon and menu and keeps them current until ctx is done.
func (u *desktopUI) startTray(ctx context.Context) {
	desk, _ := u.app.(desktop.App)
	u.tray = &tray{
		desk:    desk,
		core:    u.core,
		pending: u.popups.Pending,
		canary:  u.opts.Canary != nil,
		now:     time.Now,
		acts: trayActions{
			NewRun:         u.openNewRun,
			OpenRun:        u.openLiveRun,
			RaiseApprovals: u.popups.RaiseAll,
			History:        u.openHistory,
			Settings:       u.openSettings,
			Canary:         u.runCanary,
			Quit:           u.quit,
		},
	}
	u.popups.SetOnChange(func(int) { u.tray.refresh() })
	u.tray.refresh()
	go u.tray.watch(ctx)
}

// detachAll stops every run window's updates: the app is quitting.
func (u *desktopUI) detachAll() {
	for _, w := range u.runWins {
		w.detach()
	}
}

// runDeps are the dependencies of the app's run windows.
func (u *desktopUI) runDeps() runWindowDeps {
	return runWindowDeps{
		app:         u.app,
		stateDir:    u.core.StateDir(),
		now:         time.Now,
		clockEvery:  time.Second,
		branch:      gitBranch,
		pusher:      corePusher{settings: u.core.Settings, stateDir: u.core.StateDir()},
		queuedAhead: u.core.QueuedAhead,
		onClosed:    func(id string) { delete(u.runWins, id) },
	}
}

// openNewRun opens the new run dialog for kind.
func (u *desktopUI) openNewRun(kind runs.Kind) {
	d := newNewRunDialog(u.app, u.core, u.core.Settings(), kind, u.showRun)
	d.Show()
}

// showRun opens the window of a run just started.
func (u *desktopUI) showRun(r liveRun) {
	w := newRunWindow(u.runDeps(), r, runs.Info{})
	u.runWins[r.ID()] = w
	w.Show()
	u.tray.refresh()
}

// openLiveRun raises the window of run id, opening it first when needed; a run that has
// ended meanwhile opens from its record.
func (u *desktopUI) openLiveRun(id string) {
	if w := u.runWins[id]; w != nil {
		w.Show()
		return
	}
	if r := u.core.Get(id); r != nil {
		u.showRun(r)
		return
	}
	info, err := runs.Load(u.core.StateDir(), id)
	if err != nil {
		u.message("segwi: run "+id, "The run's record could not be read: "+err.Error())
		return
	}
	u.openRecord(info)
}

// openRecord opens the window of a run from the history: live while it runs, else read
// only from its record.
func (u *desktopUI) openRecord(info runs.Info) {
	if w := u.runWins[info.ID]; w != nil {
		w.Show()
		return
	}
	if r := u.core.Get(info.ID); r != nil {
		u.showRun(r)
		return
	}
	w := newRunWindow(u.runDeps(), nil, info)
	u.runWins[info.ID] = w
	w.Show()
}

// openHistory opens the run history, reading the records again when it is open already.
func (u *desktopUI) openHistory() {
	if u.history == nil {
		u.history = newHistoryWindow(u.app, u.core.StateDir(),
			func() []settings.Repository { return u.core.Settings().Repositories }, u.openRecord)
		u.history.win.SetOnClosed(func() { u.history = nil })
	} else {
		u.history.reload()
	}
	u.history.Show()
}

// appCore is the core as the app's windows use it: its runs as liveRuns, which the windows'
// tests fake.
type appCore struct{ *core.Core }

// Start starts a run; see core.Core.Start.
func (c appCore) Start(spec runs.Spec) (liveRun, error) {
	r, err := c.Core.Start(spec)
	if err != nil {
		return nil, err
	}
	return r, nil
}

// Live returns the runs that have not ended, oldest first.
func (c appCore) Live() []liveRun {
	rs := c.Core.Live()
	out := make([]liveRun, len(rs))
	for i, r := range rs {
		out[i] = r
	}
	return out
}

// Get returns the live run id, or nil.
func (c appCore) Get(id string) liveRun {
	if r := c.Core.Get(id); r != nil {
		return r
	}
	return nil
}

// haveDisplay says why the tray app cannot open when there is no X display to open on
// (GLFW would panic instead).
func haveDisplay() error {
	switch runtime.GOOS {
	case "darwin", "windows", "ios", "android":
		return nil
	}
	if os.Getenv("DISPLAY") != "" {
		return nil
	}
	return errors.New("the tray app needs a desktop session, and there is no X display (DISPLAY is not set): " +
		"start segwi from your desktop, or use scripts/run.sh, which opens a headless one; " +
		"the commands (segwi --help) work without a display")
}
