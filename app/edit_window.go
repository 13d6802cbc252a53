package app

import (
	"fmt"
	"slices"
	"strings"
	"sync"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/layout"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"github.com/segwi/segwi/settings"
)

// editWindow asks the person about a settings.GuardedEdit.
type editWindow struct {
	win         fyne.Window
	view        *wrappedText // the changes
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
	// The values are the agent's to write, as long as it likes: a text view breaks them at
	// its width, quickly (wrappedText), where a wrapping label could take minutes.
	ew.view = newWrappedText(editLines(changes), fyne.NewSize(600, 260))
	ew.win.SetContent(container.NewBorder(intro,
		container.NewVBox(summary, container.NewHBox(layout.NewSpacer(), ew.keep, ew.apply)), nil, nil, ew.view))
	// A label wrapping at words knows its height only once it has its width: lay the
	// content out a second time, so that the text above the settings does not overlap them.
	ew.win.Content().Refresh()
	ew.win.Show()
	ew.win.RequestFocus()
	return ew
}

// editLines are the lines that show changes: for each setting, its key and what it lets
// happen, then its old value (in force) and its new one (in the file). A list's entries go
// on lines of their own, those the edit removes marked − and dimmed, those it adds marked
// + in the theme's error colour, as is a new value.
func editLines(changes []settings.KeyChange) []wrapLine {
	var lines []wrapLine
	value := func(label string, values, marked []string, mark string, color fyne.ThemeColorName, list bool) {
		if !list {
			lines = append(lines, wrapLine{mark: fmt.Sprintf("  %-19s", label+":"), text: strings.Join(values, ""), color: color})
			return
		}
		lines = append(lines, wrapLine{text: "  " + label + ":", color: saidColor})
		if len(values) == 0 {
			lines = append(lines, wrapLine{mark: "      ", text: "(none)", color: saidColor})
		}
		for _, v := range values {
			l := wrapLine{mark: "      ", text: v}
			if slices.Contains(marked, v) {
				l.mark, l.color = "    "+mark, color
			}
			lines = append(lines, l)
		}
	}
	for i, c := range changes {
		if i > 0 {
			lines = append(lines, wrapLine{})
		}
		lines = append(lines, wrapLine{text: c.Key, color: theme.ColorNamePrimary}, wrapLine{mark: "  ", text: c.Why, color: saidColor})
		value("old (in force)", c.Old, c.Removed, "− ", theme.ColorNameDisabled, c.List)
		value("new (in the file)", c.New, c.Added, "+ ", theme.ColorNameError, c.List)
	}
	return lines
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
