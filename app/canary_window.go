package app

import (
	"context"
	"errors"
	"strings"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/layout"
	"fyne.io/fyne/v2/widget"

	"github.com/segwi/segwi/canary"
)

// canaryWindow shows the tray's canary: a moving bar while it runs, then a verdict line in
// the colour of the outcome (passed, failed, could not run), the report wrapped at words,
// and Close, Run again and Open settings (at the Canary section). When no guard deny file
// is set it says what a guard hook is and how to set one up (canary.GuardHelp), with a
// button that copies it.
type canaryWindow struct {
	win      fyne.Window
	run      func(ctx context.Context) (string, error)
	verdict  *widget.Label
	progress *widget.ProgressBarInfinite // shown while a canary runs
	report   *widget.Label
	help     *widget.Label
	copyHelp *widget.Button // copies the guard hook's help; shown with it
	again    *widget.Button
	cancel   context.CancelFunc // of the canary under way; nil when none
	stop     func()             // stops the canary under way where it runs (the tray); nil: cancel is enough
	finished func()             // called on the UI goroutine when a canary has ended, for tests
	onClosed func()             // called once the window closed
}

// newCanaryWindow builds the window; run runs the canary (see canary.Func), openSettings
// opens the settings window. Show starts the first canary.
func newCanaryWindow(a fyne.App, run func(ctx context.Context) (string, error), openSettings func()) *canaryWindow {
	c := &canaryWindow{win: a.NewWindow("segwi canary"), run: run}
	c.verdict = widget.NewLabelWithStyle("", fyne.TextAlignLeading, fyne.TextStyle{Bold: true})
	c.verdict.Wrapping = fyne.TextWrapWord
	c.report = widget.NewLabelWithStyle("", fyne.TextAlignLeading, fyne.TextStyle{Monospace: true})
	c.report.Wrapping = fyne.TextWrapWord
	c.help = widget.NewLabelWithStyle(canary.GuardHelp, fyne.TextAlignLeading, fyne.TextStyle{Monospace: true})
	c.help.Wrapping = fyne.TextWrapWord
	c.help.Hide()
	c.progress = widget.NewProgressBarInfinite()
	c.progress.Stop()
	c.progress.Hide()
	c.copyHelp = widget.NewButton("Copy the example", func() {
		a.Clipboard().SetContent(canary.GuardHelp)
		c.copyHelp.SetText("Copied")
	})
	c.copyHelp.Hide()
	c.again = widget.NewButton("Run again", c.start)
	settingsBtn := widget.NewButton("Open settings", openSettings)
	closeBtn := widget.NewButton("Close", c.win.Close)
	c.win.SetContent(container.NewBorder(container.NewVBox(c.verdict, c.progress),
		container.NewHBox(c.copyHelp, layout.NewSpacer(), settingsBtn, c.again, closeBtn), nil, nil,
		container.NewVScroll(container.NewVBox(c.report, c.help))))
	c.win.Resize(fyne.NewSize(720, 480))
	c.win.SetOnClosed(func() {
		if c.cancel != nil {
			c.cancel()
			if c.stop != nil {
				c.stop()
			}
		}
		if c.onClosed != nil {
			c.onClosed()
		}
	})
	return c
}

// Show shows the window and starts a canary, unless one is under way: "Run canary" with
// the window open on an old result runs it again.
func (c *canaryWindow) Show() {
	c.win.Show()
	c.start()
}

// start runs the canary off the UI goroutine (the tray bounds how long it takes); Run
// again is off meanwhile. Closing the window stops it.
func (c *canaryWindow) start() {
	if c.cancel != nil {
		return
	}
	ctx, cancel := context.WithCancel(context.Background())
	c.cancel = cancel
	c.again.Disable()
	c.setVerdict("Running the canary: a real ask run with your Claude Code. It takes a minute or two…", widget.MediumImportance)
	c.report.SetText("")
	c.help.Hide()
	c.copyHelp.Hide()
	c.progress.Show()
	c.progress.Start()
	go func() {
		out, err := c.run(ctx)
		onUI(func() {
			cancel()
			c.cancel = nil
			c.progress.Stop()
			c.progress.Hide()
			c.again.Enable()
			c.show(strings.TrimSpace(out), err)
			if c.finished != nil {
				c.finished()
			}
		})
	}()
}

// show puts a canary's outcome in the window.
func (c *canaryWindow) show(report string, err error) {
	c.report.SetText(report)
	switch {
	case err == nil:
		c.setVerdict("The canary passed: runs behave as segwi promises.", widget.SuccessImportance)
	case report != "":
		c.setVerdict("The canary failed: "+err.Error()+". The report says which check and why.", widget.DangerImportance)
	default:
		c.setVerdict("The canary could not run: "+err.Error(), widget.DangerImportance)
	}
	if errors.Is(err, canary.ErrNoGuardDeny) {
		c.help.Show()
		c.copyHelp.SetText("Copy the example")
		c.copyHelp.Show()
	}
}

func (c *canaryWindow) setVerdict(text string, imp widget.Importance) {
	c.verdict.Importance = imp
	c.verdict.SetText(text)
}
