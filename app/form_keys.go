package app

import (
	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/driver/desktop"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"
)

// startShortcut is Ctrl+Enter: it starts what a form is for (the new-run dialog's run).
var startShortcut = &desktop.CustomShortcut{KeyName: fyne.KeyReturn, Modifier: fyne.KeyModifierControl}

// formKeys are what a form's keys do wherever the focus is: start (Ctrl+Enter) and escape
// (Esc, which closes the form's window).
type formKeys struct {
	start  func()
	escape func()
}

// formEntry is a text field of a form whose keys move and act as in a form rather than a
// text editor: Tab moves to the next field, even from a multi-line field (which would
// type a tab into it otherwise), Ctrl+Enter starts, Esc closes. A focused Fyne widget gets
// the keys before its window does, so the field must pass them on itself.
type formEntry struct {
	widget.Entry
	keys formKeys
}

// newFormEntry returns a field, multi-line or not, doing keys.
func newFormEntry(multiLine bool, keys formKeys) *formEntry {
	e := &formEntry{keys: keys}
	e.MultiLine = multiLine
	e.ExtendBaseWidget(e)
	return e
}

// AcceptsTab reports false: Tab moves to the next field.
func (e *formEntry) AcceptsTab() bool { return false }

// TypedShortcut starts on Ctrl+Enter; other shortcuts (copy, paste, ...) are the entry's.
func (e *formEntry) TypedShortcut(s fyne.Shortcut) {
	if s.ShortcutName() == startShortcut.ShortcutName() {
		if e.keys.start != nil {
			e.keys.start()
		}
		return
	}
	e.Entry.TypedShortcut(s)
}

// TypedKey closes the form on Esc; other keys are the entry's.
func (e *formEntry) TypedKey(ev *fyne.KeyEvent) {
	if ev.Name == fyne.KeyEscape && e.keys.escape != nil {
		e.keys.escape()
		return
	}
	e.Entry.TypedKey(ev)
}

// keyEntry is a text field that passes its window's shortcuts on (the run window's chords
// that answer its approval): a focused Fyne widget gets the keys before its window does,
// so the field must pass them on itself. Other shortcuts (copy, paste, ...) are the
// entry's; Enter is left to OnSubmitted.
type keyEntry struct {
	widget.Entry
	shortcut func(fyne.Shortcut) bool // the window's: reports whether it took s
}

// newKeyEntry returns a one-line field passing shortcuts to shortcut first.
func newKeyEntry(shortcut func(fyne.Shortcut) bool) *keyEntry {
	e := &keyEntry{shortcut: shortcut}
	e.ExtendBaseWidget(e)
	return e
}

// TypedShortcut passes s to the window, and to the entry when the window does not take it.
func (e *keyEntry) TypedShortcut(s fyne.Shortcut) {
	if e.shortcut != nil && e.shortcut(s) {
		return
	}
	e.Entry.TypedShortcut(s)
}

// keysHint is the line, small and grey, that says which keys do what in a window or a
// dialog ("Ctrl+Enter starts · Esc closes"), on one line: set Wrapping to wrap a long one
// at a full-width place.
func keysHint(text string) *widget.RichText {
	t := widget.NewRichText(&widget.TextSegment{Text: text, Style: widget.RichTextStyle{
		ColorName: theme.ColorNamePlaceHolder, SizeName: theme.SizeNameCaptionText, Inline: true}})
	return t
}
