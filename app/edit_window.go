package app

import (
	"fmt"
	"slices"
	"sync"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/layout"
	"fyne.io/fyne/v2/widget"

	"github.com/segwi/segwi/settings"
)

// editWindow asks the person about a settings.GuardedEdit.
type editWindow struct {
	win         fyne.Window
	apply, keep *clickButton
	// answered is set once the person chose, or the edit no longer waits: closing the
	// window then means nothing more.
	answered bool
	onKeep   func()
}

// editWindows holds each app's open guarded-edit window, so that a newer edit replaces
// the one shown instead of opening a second window.
var editWindows = struct {
	sync.Mutex
	m map[fyne.App]*editWindow
}{m: map[fyne.App]*editWindow{}}

// ShowGuardedEdit asks the person whether to put the new values of a settings.GuardedEdit
// in force: for each setting it changes, what it lets happen and its old and new value
// (a list's entries, marking what was added and what was removed), with "Keep the old
// values" (keep) and "Apply the new values" (apply). (The tray process sends the desktop
// notification.) Closing the window keeps the old values. A window already asking is
// reused for the newer edit. Call it on the UI goroutine.
func ShowGuardedEdit(a fyne.App, file string, e settings.GuardedEdit, apply, keep func()) fyne.Window {
	return showGuardedEdit(a, file, e, apply, keep).win
}

func showGuardedEdit(a fyne.App, file string, e settings.GuardedEdit, apply, keep func()) *editWindow {
	const title = "segwi: settings changed outside segwi"
	editWindows.Lock()
	ew := editWindows.m[a]
	if ew == nil {
		ew = &editWindow{win: a.NewWindow(title)}
		editWindows.m[a] = ew
		ew.win.SetOnClosed(func() {
			editWindows.Lock()
			if editWindows.m[a] == ew {
				delete(editWindows.m, a)
			}
			editWindows.Unlock()
			if !ew.answered {
				ew.onKeep()
			}
		})
		ew.win.Resize(fyne.NewSize(680, 540))
	}
	editWindows.Unlock()
	ew.answered, ew.onKeep = false, keep

	ew.keep = newClickButton("Keep the old values", widget.HighImportance, func() {
		ew.answered = true
		keep()
		ew.win.Close()
	})
	ew.apply = newClickButton("Apply the new values", widget.DangerImportance, func() {
		ew.answered = true
		apply()
		ew.win.Close()
	})
	changes := e.Changes()
	intro := settingsText("Your settings file " + file + " changed, and not in segwi's settings window. " +
		"These settings widen what a run, or someone on your tailnet, can do, and a run's agent can write " +
		"that file, so segwi keeps the old values until you choose.")
	summary := settingsText(settingCount(len(changes)) + " changed. Apply only what you changed yourself.")
	box := container.NewVBox()
	for _, c := range changes {
		box.Add(settingsHeading(c.Key))
		why := settingsText(c.Why)
		why.Importance = widget.LowImportance
		box.Add(why)
		box.Add(container.NewGridWithColumns(2,
			container.NewVBox(settingsText("Old (in force)"), editEntries(c.Old, c.Removed, !c.List, "− ", widget.LowImportance)),
			container.NewVBox(settingsText("New (in the file)"), editEntries(c.New, c.Added, !c.List, "+ ", widget.DangerImportance)),
		))
	}
	ew.win.SetContent(container.NewBorder(intro,
		container.NewVBox(summary, container.NewHBox(layout.NewSpacer(), ew.keep, ew.apply)), nil, nil,
		container.NewVScroll(box)))
	// A label wrapping at words knows its height only once it has its width: lay the
	// content out a second time, so that the text above the settings does not overlap them.
	ew.win.Content().Refresh()
	ew.win.Show()
	ew.win.RequestFocus()
	return ew
}

// editEntries lists a value's entries, one per line: those in marked (every entry, with
// all) with mark and importance imp.
func editEntries(list, marked []string, all bool, mark string, imp widget.Importance) fyne.CanvasObject {
	box := container.NewVBox()
	if len(list) == 0 {
		box.Add(widget.NewLabel("(none)"))
	}
	for _, e := range list {
		l := widget.NewLabelWithStyle("  "+e, fyne.TextAlignLeading, fyne.TextStyle{Monospace: true})
		l.Wrapping = fyne.TextWrapBreak
		if all || slices.Contains(marked, e) {
			l.Text = mark + e
			l.Importance = imp
		}
		box.Add(l)
	}
	return box
}

// settingCount says "1 setting" or "2 settings".
func settingCount(n int) string {
	if n == 1 {
		return "1 setting"
	}
	return fmt.Sprintf("%d settings", n)
}

// CloseGuardedEdit closes the guarded-edit window, if one is open, without an answer: for
// when the edit no longer waits (the settings window saved, the file changed back, the
// person confirmed it at a terminal).
func CloseGuardedEdit(a fyne.App) {
	editWindows.Lock()
	ew := editWindows.m[a]
	editWindows.Unlock()
	if ew != nil {
		ew.answered = true
		ew.win.Close()
	}
}
