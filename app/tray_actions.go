package app

import (
	"context"
	"fmt"
	"log"
	"strings"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/layout"
	"fyne.io/fyne/v2/widget"

	"github.com/segwi/segwi/internal/core"
)

// canaryTimeout bounds a canary run started from the tray.
const canaryTimeout = 10 * time.Minute

// openSettings opens the settings window, or raises the one already open.
func (u *desktopUI) openSettings() {
	rep := u.core.Report()
	OpenSettings(u.app, SettingsWindowConfig{Path: rep.File, Current: rep.FileSettings(), LoadErr: rep.Err,
		Save: u.core.SaveSettings})
}

// settingsLoaded tells the person what a load of the settings file found: what is wrong
// with it (segwi then runs with the defaults at start-up, or keeps the last good settings
// after an edit), each retired key not yet warned about in this app run, and an addition
// to the trusted commands that waits for them.
func (u *desktopUI) settingsLoaded(rep core.SettingsReport, when ProblemsMoment) {
	if rep.Err != nil {
		ShowSettingsProblems(u.app, rep.File, rep.Err, when, u.openSettings)
	} else {
		CloseSettingsProblems(u.app)
	}
	if rep.Result != nil {
		ShowRetired(u.app, rep.File, u.opts.Warner.Fresh(rep.Result.Retired))
	}
	if ch := rep.TrustedChange; ch != nil && !ch.Declined {
		change := *ch
		ShowTrustedChange(u.app, rep.File, change, func() {
			if err := u.core.ApplyTrusted(change); err != nil {
				u.message("segwi: trusted commands", "The new list was not applied: "+err.Error())
			}
		}, func() { u.core.KeepTrusted(change) })
	} else {
		CloseTrustedChange(u.app)
	}
}

// quit leaves segwi. With runs going it asks first, then stops them in two steps.
func (u *desktopUI) quit() {
	if u.stopping {
		return // the runs are being stopped; the app quits when they are
	}
	n := len(u.core.Live())
	if n == 0 {
		u.detachAll()
		u.app.Quit()
		return
	}
	if u.quitWin != nil {
		u.quitWin.Show()
		u.quitWin.RequestFocus()
		return
	}
	grace := u.core.StopGrace()
	w := u.app.NewWindow("segwi: quit?")
	u.quitWin = w
	w.SetOnClosed(func() { u.quitWin = nil })
	msg := widget.NewLabel(quitQuestion(n, grace))
	msg.Wrapping = fyne.TextWrapWord
	keep := widget.NewButton("Keep running", w.Close)
	var stop *widget.Button
	stop = widget.NewButton("Stop the runs and quit", func() {
		u.stopping = true
		stop.Disable()
		keep.Disable()
		msg.SetText("Stopping the runs…")
		u.detachAll()
		go func() {
			if err := u.core.StopAll(); err != nil {
				log.Printf("segwi: %v", err)
			}
			uiQuitting.Store(true)
			fyne.Do(u.app.Quit)
		}()
	})
	stop.Importance = widget.DangerImportance
	w.SetContent(container.NewVBox(msg, container.NewHBox(layout.NewSpacer(), keep, stop)))
	w.Resize(fyne.NewSize(440, 140))
	w.Show()
	w.RequestFocus()
}

// quitQuestion asks whether to stop n runs and quit.
func quitQuestion(n int, grace time.Duration) string {
	runsText := "1 run is"
	if n != 1 {
		runsText = fmt.Sprintf("%d runs are", n)
	}
	return fmt.Sprintf("%s still going. Quitting stops them: first politely, then by force after %s.", runsText, grace)
}

// runCanary runs the canary off Fyne's goroutine and shows its report.
func (u *desktopUI) runCanary() {
	if u.opts.Canary == nil {
		return
	}
	if u.canaryWin != nil {
		u.canaryWin.Show()
		return
	}
	w := u.app.NewWindow("segwi canary")
	u.canaryWin = w
	report := widget.NewLabelWithStyle("Running the canary…", fyne.TextAlignLeading, fyne.TextStyle{Monospace: true})
	report.Wrapping = fyne.TextWrapBreak
	w.SetContent(container.NewVScroll(report))
	w.Resize(fyne.NewSize(640, 420))
	ctx, cancel := context.WithTimeout(context.Background(), canaryTimeout)
	w.SetOnClosed(func() {
		cancel()
		u.canaryWin = nil
	})
	w.Show()
	go func() {
		out, err := u.opts.Canary(ctx)
		onUI(func() {
			text := strings.TrimSpace(out)
			if err != nil {
				text += "\n\nThe canary failed: " + err.Error()
			}
			report.SetText(strings.TrimSpace(text))
		})
	}()
}

// message shows a short message in a window of its own.
func (u *desktopUI) message(title, text string) {
	w := u.app.NewWindow(title)
	l := widget.NewLabel(text)
	l.Wrapping = fyne.TextWrapWord
	w.SetContent(container.NewVBox(l, container.NewHBox(layout.NewSpacer(), widget.NewButton("Close", w.Close))))
	w.Resize(fyne.NewSize(420, 120))
	w.Show()
}
