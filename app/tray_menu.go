package app

import (
	"fmt"
	"path/filepath"
	"time"

	"fyne.io/fyne/v2"

	"github.com/segwi/segwi/runs"
	"github.com/segwi/segwi/settings"
)

// traySnapshot is what the tray shows, taken at one moment: a plain value, so that the
// menu and the icon are pure functions of it.
type traySnapshot struct {
	Runs    []trayRun // the runs that have not ended, oldest first
	Pending int       // approval requests waiting in popups
	Now     time.Time
	Canary  bool // the canary can be run
}

// trayRun is one run as the tray shows it.
type trayRun struct {
	ID    string
	Name  string // the repository's name in the settings, else the checkout's folder name
	Kind  runs.Kind
	State runs.State
	Since time.Time // when its process started, or when it was queued
}

// trayActions are what the menu's items do.
type trayActions struct {
	NewRun         func(runs.Kind)
	OpenRun        func(id string)
	RaiseApprovals func()
	History        func()
	Settings       func()
	Canary         func()
	Quit           func()
}

// trayLook is the tray icon's state at a glance.
type trayLook int

const (
	lookIdle    trayLook = iota // no run
	lookBusy                    // runs are going or queued
	lookWaiting                 // a run waits for a person
)

// trayLookOf chooses the icon for s: waiting wins over busy, busy over idle.
func trayLookOf(s traySnapshot) trayLook {
	look := lookIdle
	if s.Pending > 0 {
		return lookWaiting
	}
	for _, r := range s.Runs {
		if r.State == runs.StateWaiting {
			return lookWaiting
		}
		if !r.State.Final() {
			look = lookBusy
		}
	}
	return look
}

// icon returns the tray icon of look.
func (l trayLook) icon() fyne.Resource {
	switch l {
	case lookWaiting:
		return iconWaiting
	case lookBusy:
		return iconBusy
	}
	return iconIdle
}

// Labels of the tray menu's fixed items.
const (
	labelNewBuild  = "New build run…"
	labelNewReady  = "New ready run…"
	labelAsk       = "Ask…"
	labelHistory   = "Run history…"
	labelSettings  = "Settings…"
	labelCanary    = "Run canary"
	labelQuit      = "Quit"
	labelNoRuns    = "No runs going"
	waitingForYou  = "⚠ waiting for you"
	labelApprovals = "Waiting approvals (%d)"
)

// trayMenu builds the tray menu for s. It is a pure function of its arguments.
func trayMenu(s traySnapshot, a trayActions) *fyne.Menu {
	items := []*fyne.MenuItem{
		fyne.NewMenuItem(labelNewBuild, func() { a.NewRun(runs.KindBuild) }),
		fyne.NewMenuItem(labelNewReady, func() { a.NewRun(runs.KindReady) }),
		fyne.NewMenuItem(labelAsk, func() { a.NewRun(runs.KindAsk) }),
		fyne.NewMenuItemSeparator(),
	}
	if len(s.Runs) == 0 {
		none := fyne.NewMenuItem(labelNoRuns, nil)
		none.Disabled = true
		items = append(items, none)
	}
	for _, r := range s.Runs {
		id := r.ID
		items = append(items, fyne.NewMenuItem(runLabel(r, s.Now), func() { a.OpenRun(id) }))
	}
	approvals := fyne.NewMenuItem(fmt.Sprintf(labelApprovals, s.Pending), a.RaiseApprovals)
	approvals.Disabled = s.Pending == 0
	canary := fyne.NewMenuItem(labelCanary, a.Canary)
	canary.Disabled = !s.Canary
	quit := fyne.NewMenuItem(labelQuit, a.Quit)
	quit.IsQuit = true
	items = append(items,
		fyne.NewMenuItemSeparator(),
		approvals,
		fyne.NewMenuItem(labelHistory, a.History),
		fyne.NewMenuItem(labelSettings, a.Settings),
		canary,
		fyne.NewMenuItemSeparator(),
		quit,
	)
	return fyne.NewMenu("segwi", items...)
}

// runLabel is a run's menu item: "web · build · running 4m", or with the waiting mark.
func runLabel(r trayRun, now time.Time) string {
	head := r.Name + " · " + string(r.Kind) + " · "
	switch r.State {
	case runs.StateWaiting:
		return head + waitingForYou + " " + shortElapsed(now.Sub(r.Since))
	case runs.StateRunning:
		return head + "running " + shortElapsed(now.Sub(r.Since))
	}
	return head + string(r.State)
}

// shortElapsed renders d in whole minutes, as the menu refreshes about twice a minute.
func shortElapsed(d time.Duration) string {
	switch {
	case d < time.Minute:
		return "<1m"
	case d < time.Hour:
		return fmt.Sprintf("%dm", int(d/time.Minute))
	}
	return fmt.Sprintf("%dh %02dm", int(d/time.Hour), int(d%time.Hour/time.Minute))
}

// checkoutName names a checkout for a person: the configured repository's name when the
// folder is one, else the folder's own name.
func checkoutName(checkout string, repos []settings.Repository) string {
	clean := filepath.Clean(checkout)
	for _, r := range repos {
		if r.Name != "" && filepath.Clean(r.Path) == clean {
			return r.Name
		}
	}
	return filepath.Base(clean)
}

// trayRunOf turns a run's summary into its tray entry.
func trayRunOf(info runs.Info, repos []settings.Repository) trayRun {
	since := info.Start
	if since.IsZero() {
		since = info.Created
	}
	return trayRun{ID: info.ID, Name: checkoutName(info.Checkout, repos), Kind: info.Kind, State: info.State, Since: since}
}
