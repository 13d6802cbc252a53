package app

import (
	"fmt"
	"sync"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/layout"
	"fyne.io/fyne/v2/widget"

	"github.com/segwi/segwi/settings"
)

// trustedWindow asks the person about a settings.TrustedChange.
type trustedWindow struct {
	win         fyne.Window
	apply, keep *clickButton
	// answered is set once the person chose, or the change no longer waits: closing the
	// window then means nothing more.
	answered bool
	onKeep   func()
}

// trustedWindows holds each app's open trusted-change window, so that a newer change
// replaces the one shown instead of opening a second window.
var trustedWindows = struct {
	sync.Mutex
	m map[fyne.App]*trustedWindow
}{m: map[fyne.App]*trustedWindow{}}

// ShowTrustedChange asks the person whether to put the new list of trusted commands of a
// settings.TrustedChange in force: it shows the old and the new list, marking what was
// added and what was removed, with "Keep the old list" (keep) and "Apply the new list"
// (apply). (The tray process sends the desktop notification.) Closing the window keeps the
// old list. A window already asking is reused for the newer change. Call it on the UI
// goroutine.
func ShowTrustedChange(a fyne.App, file string, ch settings.TrustedChange, apply, keep func()) fyne.Window {
	return showTrustedChange(a, file, ch, apply, keep).win
}

func showTrustedChange(a fyne.App, file string, ch settings.TrustedChange, apply, keep func()) *trustedWindow {
	const title = "segwi: trusted commands changed"
	trustedWindows.Lock()
	tw := trustedWindows.m[a]
	if tw == nil {
		tw = &trustedWindow{win: a.NewWindow(title)}
		trustedWindows.m[a] = tw
		tw.win.SetOnClosed(func() {
			trustedWindows.Lock()
			if trustedWindows.m[a] == tw {
				delete(trustedWindows.m, a)
			}
			trustedWindows.Unlock()
			if !tw.answered {
				tw.onKeep()
			}
		})
		tw.win.Resize(fyne.NewSize(620, 380))
	}
	trustedWindows.Unlock()
	tw.answered, tw.onKeep = false, keep

	tw.keep = newClickButton("Keep the old list", widget.HighImportance, func() {
		tw.answered = true
		keep()
		tw.win.Close()
	})
	tw.apply = newClickButton("Apply the new list", widget.DangerImportance, func() {
		tw.answered = true
		apply()
		tw.win.Close()
	})
	added, removed := ch.Added(), ch.Removed()
	intro := settingsText("The trusted commands in your settings file " + file + " changed, and not in segwi's " +
		"settings window. segwi runs a trusted command without asking you, and a run's agent can write that " +
		"file, so segwi keeps the old list until you choose.")
	counts := commandCount(len(added)) + " added (marked +)"
	if len(removed) > 0 {
		counts += fmt.Sprintf(", %d removed (marked −)", len(removed))
	}
	summary := settingsText(counts + ".")
	lists := container.NewGridWithColumns(2,
		container.NewVBox(settingsHeading("Old list (in force)"), trustedEntries(ch.Old, removed, "− ", widget.LowImportance)),
		container.NewVBox(settingsHeading("New list (in the file)"), trustedEntries(ch.New, added, "+ ", widget.DangerImportance)),
	)
	tw.win.SetContent(container.NewBorder(intro,
		container.NewVBox(summary, container.NewHBox(layout.NewSpacer(), tw.keep, tw.apply)), nil, nil,
		container.NewVScroll(lists)))
	tw.win.Show()
	tw.win.RequestFocus()
	return tw
}

// trustedEntries lists a list's commands, one per line, those in marked with mark and
// importance imp.
func trustedEntries(list, marked []string, mark string, imp widget.Importance) fyne.CanvasObject {
	box := container.NewVBox()
	if len(list) == 0 {
		box.Add(widget.NewLabel("(none)"))
	}
	for _, e := range list {
		l := widget.NewLabelWithStyle("  "+e, fyne.TextAlignLeading, fyne.TextStyle{Monospace: true})
		l.Wrapping = fyne.TextWrapBreak
		for _, m := range marked {
			if m == e {
				l.Text = mark + e
				l.Importance = imp
			}
		}
		box.Add(l)
	}
	return box
}

// commandCount says "1 command" or "2 commands".
func commandCount(n int) string {
	if n == 1 {
		return "1 command"
	}
	return fmt.Sprintf("%d commands", n)
}

// CloseTrustedChange closes the trusted-change window, if one is open, without an answer:
// for when the change no longer waits (the settings window saved a list, or an edit
// removed what was added).
func CloseTrustedChange(a fyne.App) {
	trustedWindows.Lock()
	tw := trustedWindows.m[a]
	trustedWindows.Unlock()
	if tw != nil {
		tw.answered = true
		tw.win.Close()
	}
}
