// Package app is segwi's desktop front end: the tray icon and its menu, and the windows it
// opens. It is the only package that imports Fyne; the core (runs, approvals, settings)
// knows nothing of widgets.
package app

import (
	"context"

	"fyne.io/fyne/v2"
	fyneapp "fyne.io/fyne/v2/app"
	"fyne.io/fyne/v2/driver/desktop"
	"fyne.io/fyne/v2/widget"

	"github.com/segwi/segwi/assets"
)

// ID is the application id, as in FyneApp.toml.
const ID = "dev.segwi.segwi"

var (
	iconApp     = fyne.NewStaticResource("segwi.png", assets.Icon)
	iconIdle    = fyne.NewStaticResource("segwi-idle.png", assets.TrayIdle)
	iconBusy    = fyne.NewStaticResource("segwi-busy.png", assets.TrayBusy)
	iconWaiting = fyne.NewStaticResource("segwi-waiting.png", assets.TrayWaiting)
)

// Run opens the tray app and blocks until the person quits it or ctx is cancelled.
func Run(ctx context.Context) error {
	a := fyneapp.NewWithID(ID)
	a.SetIcon(iconApp)
	var settingsWin fyne.Window
	openSettings := func() {
		if settingsWin == nil {
			settingsWin = a.NewWindow("segwi settings")
			settingsWin.SetContent(widget.NewLabel("Settings are edited in the config file for now: segwi config path."))
			settingsWin.SetOnClosed(func() { settingsWin = nil })
		}
		settingsWin.Show()
		settingsWin.RequestFocus()
	}
	if desk, ok := a.(desktop.App); ok {
		desk.SetSystemTrayIcon(iconIdle)
		desk.SetSystemTrayMenu(fyne.NewMenu("segwi", fyne.NewMenuItem("Settings…", openSettings)))
	}
	go func() {
		<-ctx.Done()
		fyne.Do(a.Quit)
	}()
	a.Run()
	return nil
}
