package app

import (
	"context"
	"fmt"
	"strings"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/layout"
	"fyne.io/fyne/v2/widget"

	"github.com/segwi/segwi/control"
	"github.com/segwi/segwi/settings"
)

// The windows of the tray menu's own items (Quit with runs going, Run canary), and a
// message window.

// quit asks whether to stop the runs going and quit, naming them, in a window in the
// middle of the screen. The tray asks only when runs are going; "Stop the runs and quit"
// has the tray stop them in two steps and end, and this process ends with it.
func (d *desk) quit() {
	if d.quitWin != nil {
		d.quitWin.Show()
		d.quitWin.RequestFocus()
		return
	}
	grace := d.tray.settings().InForce.Runs.StopGrace
	if grace <= 0 {
		grace = settings.Default().Runs.StopGrace
	}
	w := d.app.NewWindow("segwi: quit?")
	d.quitWin = w
	w.SetOnClosed(func() { d.quitWin = nil })
	going := d.tray.liveList()
	msg := widget.NewLabel(quitQuestion(len(going), grace))
	msg.Wrapping = fyne.TextWrapWord
	list := widget.NewLabel(quitRuns(going))
	list.Truncation = fyne.TextTruncateEllipsis
	keep := widget.NewButton("Keep running", w.Close)
	var stop *widget.Button
	stop = widget.NewButton("Stop the runs and quit", func() {
		stop.Disable()
		keep.Disable()
		msg.SetText("Stopping the runs…")
		d.tray.command(func(context.Context) error {
			// The tray replies once the runs are stopped: within the grace and a little.
			ctx, cancel := context.WithTimeout(context.Background(), grace+time.Minute)
			defer cancel()
			err := d.tray.client.Quit(ctx)
			if err != nil {
				onUI(func() {
					msg.SetText("segwi did not quit: " + err.Error())
					keep.Enable()
				})
			}
			return err
		})
	})
	stop.Importance = widget.DangerImportance
	w.SetContent(container.NewVBox(msg, list, container.NewHBox(layout.NewSpacer(), keep, stop)))
	w.Resize(fyne.NewSize(520, w.Content().MinSize().Height))
	w.CenterOnScreen()
	w.Show()
	w.RequestFocus()
}

// quitQuestion asks whether to stop n runs and quit.
func quitQuestion(n int, grace time.Duration) string {
	if n == 1 {
		return fmt.Sprintf("1 run is still going. Quitting stops it: first politely, then by force after %s.", grace)
	}
	return fmt.Sprintf("%d runs are still going. Quitting stops them: first politely, then by force after %s.", n, grace)
}

// maxQuitRuns is how many runs the Quit question names; it counts the rest.
const maxQuitRuns = 8

// quitRuns names the runs going, a line each, as their windows are titled, with what
// each is doing: "• Fix the login form · build run in web (waiting for your reply)".
func quitRuns(going []control.Run) string {
	var lines []string
	for i, r := range going {
		if i == maxQuitRuns {
			lines = append(lines, fmt.Sprintf("… and %d more", len(going)-maxQuitRuns))
			break
		}
		lines = append(lines, fmt.Sprintf("• %s (%s)", runTitle(r.Info, r.Name), r.StateText()))
	}
	return strings.Join(lines, "\n")
}

// runCanary opens the canary window, which has the tray run the canary, or raises the one
// open and runs the canary again there unless it is under way; closing the window stops
// the canary. Its Open settings opens the settings at the Canary section.
func (d *desk) runCanary() {
	if d.canary != nil {
		d.canary.Show()
		return
	}
	c := newCanaryWindow(d.app, d.tray.client.RunCanary, func() { d.openSettingsAt(control.SectionCanary) })
	c.stop = func() {
		d.tray.command(func(ctx context.Context) error { return d.tray.client.StopCanary(ctx) })
	}
	c.guard = &guardSetup{plan: d.tray.client.PlanGuard, apply: d.tray.client.SetUpGuard}
	c.onClosed = func() { d.canary = nil }
	d.canary = c
	c.Show()
}

// message shows a short message in a window of its own.
func (d *desk) message(title, text string) {
	w := d.app.NewWindow(title)
	l := widget.NewLabel(text)
	l.Wrapping = fyne.TextWrapWord
	w.SetContent(container.NewVBox(l, container.NewHBox(layout.NewSpacer(), widget.NewButton("Close", w.Close))))
	w.Resize(fyne.NewSize(420, 120))
	w.Show()
}
