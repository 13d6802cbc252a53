package app

import (
	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/layout"
	"fyne.io/fyne/v2/widget"

	"github.com/segwi/segwi/settings"
)

// ShowSettingsWarnings tells the person, in one window, what segwi ignores in their
// settings file (unknown keys, each with what to do) and what would stop a run although
// the file is valid (core.Checks: a claude that is not found, a repository that is not a
// git checkout). The tray process sends only what it did not show before in this run of
// segwi, and the desktop notification. With nothing to show it shows nothing and returns
// nil.
// Open file opens the settings file, saying so in the window when it cannot; with no file
// yet (the first launch) it offers to create one (createFile, called off the UI goroutine;
// nil: it says how to write one). Open settings (left out when openSettings is nil) opens
// the settings window. Call it on the UI goroutine.
func ShowSettingsWarnings(a fyne.App, file string, unknown, checks []string, openSettings func(), createFile func() error) fyne.Window {
	if len(unknown)+len(checks) == 0 {
		return nil
	}
	w := a.NewWindow("segwi: check your settings")
	var rows []fyne.CanvasObject
	if len(checks) > 0 {
		rows = append(rows, settingsText("A run cannot start until this is fixed:"))
		for _, c := range checks {
			l := settingsText(c + ".")
			l.Importance = widget.WarningImportance
			rows = append(rows, l)
		}
	}
	if len(unknown) > 0 {
		rows = append(rows, settingsText("Your settings file "+file+" holds keys segwi does not know; they have no effect:"))
		for _, k := range unknown {
			key := widget.NewLabelWithStyle(k, fyne.TextAlignLeading, fyne.TextStyle{Monospace: true})
			key.Wrapping = fyne.TextWrapBreak
			rows = append(rows, container.NewVBox(key, settingsText("This key: "+settings.UnknownHint+".")))
		}
	}
	note := openNote()
	buttons := container.NewHBox(layout.NewSpacer())
	if openSettings != nil {
		buttons.Add(widget.NewButton("Open settings", func() {
			w.Close()
			openSettings()
		}))
	}
	buttons.Add(widget.NewButton("Open file", func() { openSettingsFile(a, w, note, file, createFile) }))
	buttons.Add(widget.NewButton("OK", w.Close))
	w.SetContent(container.NewBorder(nil, container.NewVBox(note, buttons), nil, nil,
		container.NewVScroll(container.NewVBox(rows...))))
	w.Resize(fyne.NewSize(600, 340))
	w.Show()
	return w
}

// openNote is the hidden line where a window says why an Open button could not open what
// it names.
func openNote() *widget.Label {
	l := settingsText("")
	l.Importance = widget.DangerImportance
	l.Hide()
	return l
}
