package app

import (
	"errors"
	"fmt"
	"strings"
	"sync"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/layout"
	"fyne.io/fyne/v2/widget"

	"github.com/segwi/segwi/migrate"
	"github.com/segwi/segwi/runs/record"
	"github.com/segwi/segwi/settings"
)

// ShowRetired tells the person about retired keys in their settings file: one window
// listing each key (where it is, with its repository, that it is ignored and why, and
// that it should be deleted), with Remove them (remove, called off Fyne's goroutine: the
// tray deletes the retired keys from the file and keeps the rest, see
// settings.RemoveRetired; the button is left out when remove is nil), Open file and OK. found should hold only keys not shown before in
// this run of segwi (the tray process keeps a migrate.Warner, and sends the desktop
// notification); a key listed twice is shown once. With nothing found it shows nothing
// and returns nil. Call it on the UI goroutine.
func ShowRetired(a fyne.App, file string, found []migrate.Retired, remove func() error) fyne.Window {
	found = uniqueRetired(found)
	if len(found) == 0 {
		return nil
	}
	w := a.NewWindow("segwi: retired settings")
	rows := []fyne.CanvasObject{
		settingsText(fmt.Sprintf("Your settings file %s holds settings segwi no longer uses. "+
			"They have no effect; delete them from the file:", file)),
	}
	for _, r := range found {
		rows = append(rows, retiredRow(r))
	}
	note := openNote()
	buttons := container.NewHBox(layout.NewSpacer())
	if remove != nil {
		var removeBtn *widget.Button
		removeBtn = widget.NewButton("Remove them", func() {
			// remove asks the tray, which may take its time: not on Fyne's goroutine.
			removeBtn.Disable()
			go func() {
				err := remove()
				onUI(func() {
					if err != nil {
						removeBtn.Enable()
						note.Importance = widget.DangerImportance
						note.SetText(fmt.Sprintf("Nothing was removed: %v.", err))
						note.Show()
						return
					}
					note.Importance = widget.SuccessImportance
					note.SetText(fmt.Sprintf("Removed the retired settings from %s; the rest of the file, comments included, is as it was.", file))
					note.Show()
				})
			}()
		})
		buttons.Add(removeBtn)
	}
	openFile := widget.NewButton("Open file", func() { openSettingsFile(a, w, note, file, nil) })
	buttons.Add(openFile)
	buttons.Add(widget.NewButton("OK", w.Close))
	w.SetContent(container.NewBorder(nil,
		container.NewVBox(note, buttons), nil, nil,
		container.NewVScroll(container.NewVBox(rows...))))
	w.Resize(fyne.NewSize(560, 320))
	w.Show()
	return w
}

// retiredRow shows one retired key: the key in monospace, then what to do.
func retiredRow(r migrate.Retired) fyne.CanvasObject {
	key := widget.NewLabelWithStyle(r.Where(), fyne.TextAlignLeading, fyne.TextStyle{Monospace: true})
	key.Wrapping = fyne.TextWrapBreak
	return container.NewVBox(key, settingsText("This setting "+strings.TrimPrefix(r.Message(), r.Where()+" ")+"."))
}

// uniqueRetired drops repeated findings (same key, same repository), keeping the order.
func uniqueRetired(found []migrate.Retired) []migrate.Retired {
	seen := map[string]bool{}
	var out []migrate.Retired
	for _, r := range found {
		id := r.Key + "\x00" + r.Repository
		if !seen[id] {
			seen[id] = true
			out = append(out, r)
		}
	}
	return out
}

// ShowDamagedRecords tells the person about run records segwi could not read or update
// (runs.Manager.Damaged): one window naming each damaged file, what went wrong, what it
// costs and what to do, with a button that opens the run's folder. segwi keeps running and
// lists the other runs as usual. With nothing damaged it shows nothing and returns nil.
// Call it on the UI goroutine.
func ShowDamagedRecords(a fyne.App, damaged []record.Damaged) fyne.Window {
	if len(damaged) == 0 {
		return nil
	}
	w := a.NewWindow("segwi: damaged run records")
	what := "A run record could not be read or updated."
	if len(damaged) > 1 {
		what = fmt.Sprintf("%d run records could not be read or updated.", len(damaged))
	}
	rows := []fyne.CanvasObject{settingsText(what + " segwi keeps running, and lists the other runs as usual.")}
	for _, d := range damaged {
		rows = append(rows, damagedRow(a, d))
	}
	w.SetContent(container.NewBorder(nil,
		container.NewHBox(layout.NewSpacer(), widget.NewButton("OK", w.Close)), nil, nil,
		container.NewVScroll(container.NewVBox(rows...))))
	w.Resize(fyne.NewSize(620, 320))
	w.Show()
	return w
}

// damagedRow shows one damaged file: its path in monospace, what went wrong and what to do,
// and Open folder.
func damagedRow(a fyne.App, d record.Damaged) fyne.CanvasObject {
	file := widget.NewLabelWithStyle(d.File, fyne.TextAlignLeading, fyne.TextStyle{Monospace: true})
	file.Wrapping = fyne.TextWrapBreak
	text := fmt.Sprintf("%v.", d.Err)
	if advice := d.Advice(); advice != "" {
		text = fmt.Sprintf("%v; %s.", d.Err, advice)
	}
	note := openNote()
	open := widget.NewButton("Open folder", func() { openIn(a, note, "the folder", d.Dir) })
	return container.NewVBox(file, settingsText(text), container.NewHBox(open), note)
}

// ProblemsMoment says when bad settings were found, which decides what segwi runs with.
type ProblemsMoment int

const (
	// AtStartup: the file was bad when segwi started, so it runs with the defaults.
	AtStartup ProblemsMoment = iota
	// AfterEdit: an edit made the file bad, so segwi keeps the last good settings.
	AfterEdit
)

// problemsWindows holds each app's open bad-settings window, so that a new finding
// replaces the one shown instead of piling up windows edit after edit.
var problemsWindows = struct {
	sync.Mutex
	m map[fyne.App]fyne.Window
}{m: map[fyne.App]fyne.Window{}}

// ShowSettingsProblems shows what is wrong with the settings file: each problem on its
// own line, what segwi runs with meanwhile (the defaults at start-up, the last good
// settings after an edit), and Open settings (calls openSettings; the button is left out
// when it is nil) and Open file. A bad file never stops segwi. A window already showing
// problems is reused. err is a settings.Result's Err (problems joined) or Load's error.
// Call it on the UI goroutine.
func ShowSettingsProblems(a fyne.App, file string, err error, when ProblemsMoment, openSettings func()) fyne.Window {
	problemsWindows.Lock()
	w := problemsWindows.m[a]
	if w == nil {
		w = a.NewWindow("segwi: settings problems")
		problemsWindows.m[a] = w
		w.SetOnClosed(func() {
			problemsWindows.Lock()
			if problemsWindows.m[a] == w {
				delete(problemsWindows.m, a)
			}
			problemsWindows.Unlock()
		})
		w.Resize(fyne.NewSize(600, 340))
	}
	problemsWindows.Unlock()

	lines := problemLines(file, err)
	what := "There is a problem in"
	if len(lines) > 1 {
		what = fmt.Sprintf("There are %d problems in", len(lines))
	}
	meanwhile := "segwi started with its default settings and keeps running; fix the file and segwi picks it up."
	if when == AfterEdit {
		meanwhile = "segwi keeps the last good settings and keeps running; fix the file and segwi picks it up."
	}
	list := container.NewVBox()
	for _, l := range lines {
		lbl := widget.NewLabelWithStyle(l, fyne.TextAlignLeading, fyne.TextStyle{Monospace: true})
		lbl.Wrapping = fyne.TextWrapWord
		lbl.Importance = widget.DangerImportance
		list.Add(lbl)
	}
	buttons := container.NewHBox(layout.NewSpacer())
	if openSettings != nil {
		buttons.Add(widget.NewButton("Open settings", func() {
			w.Close()
			openSettings()
		}))
	}
	note := openNote()
	buttons.Add(widget.NewButton("Open file", func() { openSettingsFile(a, w, note, file, nil) }))
	buttons.Add(widget.NewButton("Close", w.Close))
	w.SetContent(container.NewBorder(
		container.NewVBox(settingsText(what+" your settings file "+file+":")),
		container.NewVBox(settingsText(meanwhile), note, buttons), nil, nil,
		container.NewVScroll(list)))
	w.Show()
	w.RequestFocus()
	return w
}

// CloseSettingsProblems closes the bad-settings window, if one is open: for when an edit
// fixed the file.
func CloseSettingsProblems(a fyne.App) {
	problemsWindows.Lock()
	w := problemsWindows.m[a]
	problemsWindows.Unlock()
	if w != nil {
		w.Close()
	}
}

// problemLines splits err into one line per problem. A settings.Problem is shown as
// "key: what is wrong" (the file is said once, above); other errors as they read, without
// a leading "FILE: " where they have one.
func problemLines(file string, err error) []string {
	if err == nil {
		return nil
	}
	var errs []error
	if j, ok := err.(interface{ Unwrap() []error }); ok {
		errs = j.Unwrap()
	} else {
		errs = []error{err}
	}
	var out []string
	for _, e := range errs {
		var p settings.Problem
		if errors.As(e, &p) {
			out = append(out, p.Key+": "+p.Message)
			continue
		}
		for _, line := range strings.Split(e.Error(), "\n") {
			if line = strings.TrimSpace(line); line != "" {
				out = append(out, line)
			}
		}
	}
	return out
}
