package app

import (
	"context"
	"errors"
	"strings"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/dialog"
	"fyne.io/fyne/v2/layout"
	"fyne.io/fyne/v2/widget"

	"github.com/segwi/segwi/canary/guard"
	"github.com/segwi/segwi/control"
)

// canaryWindow shows the tray's canary: a moving bar while it runs, then a verdict line in
// the colour of the outcome (passed, failed, could not run), the report wrapped at words,
// and Close, Run again and Open settings (at the Canary section). When no guard deny file
// is set it says what a guard hook is and how to set one up (guard.Help), with a
// button that copies it and one that sets up the example, once the person has read what
// it writes (guardSetup).
type canaryWindow struct {
	win      fyne.Window
	run      func(ctx context.Context) (string, error)
	verdict  *widget.Label
	progress *widget.ProgressBarInfinite // shown while a canary runs
	report   *widget.Label
	help     *widget.Label
	copyHelp *widget.Button // copies the guard hook's help; shown with it
	setUp    *widget.Button // sets up the example guard hook; shown with the help when guard is set
	guard    *guardSetup    // asks the tray to set up the guard hook; nil: the window does not offer it
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
	c.help = widget.NewLabelWithStyle(guard.Help, fyne.TextAlignLeading, fyne.TextStyle{Monospace: true})
	c.help.Wrapping = fyne.TextWrapWord
	c.help.Hide()
	c.progress = widget.NewProgressBarInfinite()
	c.progress.Stop()
	c.progress.Hide()
	c.copyHelp = widget.NewButton("Copy the example", func() {
		a.Clipboard().SetContent(guard.Help)
		c.copyHelp.SetText("Copied")
	})
	c.copyHelp.Hide()
	c.setUp = widget.NewButton("Set up this guard hook…", c.planGuard)
	c.setUp.Importance = widget.HighImportance
	c.setUp.Hide()
	c.again = widget.NewButton("Run again", c.start)
	settingsBtn := widget.NewButton("Open settings", openSettings)
	closeBtn := widget.NewButton("Close", c.win.Close)
	c.win.SetContent(container.NewBorder(container.NewVBox(c.verdict, c.progress),
		container.NewHBox(c.setUp, c.copyHelp, layout.NewSpacer(), settingsBtn, c.again, closeBtn), nil, nil,
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
	c.setUp.Hide()
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
	if errors.Is(err, guard.ErrNoDeny) {
		c.help.Show()
		c.copyHelp.SetText("Copy the example")
		c.copyHelp.Show()
		if c.guard != nil {
			c.setUp.Show()
		}
	}
}

func (c *canaryWindow) setVerdict(text string, imp widget.Importance) {
	c.verdict.Importance = imp
	c.verdict.SetText(text)
}

// guardSetup is the tray's side of the guard hook's setup: what it would write, and
// writing what the person read (control.Client's PlanGuard and SetUpGuard).
type guardSetup struct {
	plan  func(ctx context.Context) (control.GuardPlan, error)
	apply func(ctx context.Context, digest string) error
}

// planGuard asks the tray what setting up the example guard hook would write, off the UI
// goroutine, and shows it for the person to confirm.
func (c *canaryWindow) planGuard() {
	c.setUp.Disable()
	go func() {
		ctx, cancel := context.WithTimeout(context.Background(), commandTimeout)
		defer cancel()
		plan, err := c.guard.plan(ctx)
		onUI(func() {
			c.setUp.Enable()
			if err != nil {
				c.setVerdict("The guard hook was not set up: "+err.Error(), widget.DangerImportance)
				return
			}
			c.confirmGuard(plan)
		})
	}()
}

// confirmGuard shows what the guard hook's setup writes, file by file, and on Write these
// files has the tray write it and runs the canary again.
func (c *canaryWindow) confirmGuard(plan control.GuardPlan) {
	rows := []fyne.CanvasObject{settingsText("segwi will write these files, and set segwi.canary.guardDeny to " +
		plan.Deny + ". Nothing of yours is replaced.")}
	for _, f := range plan.Files {
		head := widget.NewLabelWithStyle(guardActionWords(f.Action)+" "+f.Path, fyne.TextAlignLeading, fyne.TextStyle{Bold: true})
		rows = append(rows, head)
		if f.Action == string(guard.Keep) {
			continue
		}
		body := widget.NewLabelWithStyle(f.Content, fyne.TextAlignLeading, fyne.TextStyle{Monospace: true})
		body.Wrapping = fyne.TextWrapBreak
		rows = append(rows, body)
	}
	d := dialog.NewCustomConfirm("Set up the guard hook?", "Write these files", "Cancel",
		container.NewVScroll(container.NewVBox(rows...)), func(ok bool) {
			if ok {
				c.applyGuard(plan.Digest)
			}
		}, c.win)
	d.Resize(fyne.NewSize(680, 440))
	d.Show()
}

// guardActionWords says a GuardFile's action at the head of its file.
func guardActionWords(action string) string {
	switch guard.Action(action) {
	case guard.Create:
		return "New file"
	case guard.Add:
		return "The hook added to"
	}
	return "Kept as it is:"
}

// applyGuard has the tray write the setup the person read, then runs the canary again.
func (c *canaryWindow) applyGuard(digest string) {
	c.setUp.Disable()
	go func() {
		ctx, cancel := context.WithTimeout(context.Background(), commandTimeout)
		defer cancel()
		err := c.guard.apply(ctx, digest)
		onUI(func() {
			c.setUp.Enable()
			if err != nil {
				c.setVerdict("The guard hook was not set up: "+err.Error(), widget.DangerImportance)
				return
			}
			c.start()
		})
	}()
}
