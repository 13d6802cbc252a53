package app

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/layout"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"github.com/segwi/segwi/internal/lib/visible"
	"github.com/segwi/segwi/runs"
)

// followList is the timeline's list: once it shows its last row, it keeps showing it when
// it gets shorter (the message under it wraps to more lines, the window shrinks), rather
// than leaving the newest rows under the follow-up box.
type followList struct {
	widget.List
	rowHeight float32 // the height of a row, all rows being of one height
}

func newFollowList(length func() int, create func() fyne.CanvasObject, update func(widget.ListItemID, fyne.CanvasObject)) *followList {
	l := &followList{rowHeight: create().MinSize().Height}
	l.Length, l.CreateItem, l.UpdateItem = length, create, update
	l.ExtendBaseWidget(l)
	return l
}

// Resize resizes the list, and scrolls it to its end when it showed its end before.
func (l *followList) Resize(s fyne.Size) {
	atEnd := l.atEnd()
	l.List.Resize(s)
	if atEnd && s.Height > 0 {
		l.ScrollToBottom()
	}
}

// atEnd says whether the last row is in view: the list is scrolled down to within half
// a row of its end, or everything fits.
func (l *followList) atEnd() bool {
	n := 0
	if l.Length != nil {
		n = l.Length()
	}
	pad := l.Theme().Size(theme.SizeNamePadding) // the separator between rows
	content := float32(n)*(l.rowHeight+pad) - pad
	return l.GetScrollOffset()+l.Size().Height >= content-l.rowHeight/2
}

// showRow opens the event behind timeline row i in full: every line, uncut, selectable,
// with a Copy button. The text is the run's record's (read off Fyne's goroutine), so that
// the timeline keeps only what it shows. On Fyne's goroutine.
func (w *runWindow) showRow(i int) {
	row := w.tl.row(i, w.id)
	if row.Seq == 0 || w.deps.stateDir == "" {
		w.openDetails(rowTitle(row), row.Text)
		return
	}
	go func() {
		title, text := w.eventText(row)
		onUI(func() {
			if !w.closed.Load() {
				w.openDetails(title, text)
			}
		})
	}()
}

// eventText reads the event of row from the run's record and returns a title and its
// whole text in words, with a tool call's input in full. Off Fyne's goroutine.
func (w *runWindow) eventText(row timelineRow) (title, text string) {
	var n runs.Narrator // the words of the events before, for a refusal to name its call
	var found *runs.Event
	var words runs.Words
	err := runs.ReadEvents(w.deps.stateDir, w.id, func(e runs.Event) error {
		wd := n.Words(e)
		if e.Seq == row.Seq {
			found, words = &e, wd
			return errFound
		}
		return nil
	})
	if found == nil {
		why := "it is not in the run's record yet"
		if err != nil && !errors.Is(err, errFound) {
			why = "the run's record could not be read: " + err.Error()
		}
		return rowTitle(row), row.Text + "\n\n(Only what the timeline shows: " + why + ".)"
	}
	text = words.Text
	if len(found.Input) > 0 {
		var b bytes.Buffer
		if json.Indent(&b, found.Input, "", "  ") == nil {
			text += "\n\nInput:\n" + b.String()
		}
	}
	if found.Truncated {
		text += fmt.Sprintf("\n\n(Cut at %d KiB; the run's output.log has the whole output.)", runs.MaxFieldBytes>>10)
	}
	title = fmt.Sprintf("%s · event %d · %s", markOf(words.Label), found.Seq, found.Time.Local().Format("15:04:05"))
	return title, visible.Escape(text)
}

// errFound ends a read of the record once the event looked for is found.
var errFound = errors.New("found")

func rowTitle(row timelineRow) string {
	if row.Mark == "" {
		return "Timeline row"
	}
	return row.Mark
}

// openDetails shows title and text in the run window's details window, opening it first
// when needed. On Fyne's goroutine.
func (w *runWindow) openDetails(title, text string) {
	if w.details == nil {
		w.details = newDetailsWindow(w.deps.app, func() { w.details = nil })
	}
	w.details.show("segwi: "+w.runName(), title, text)
	w.opened.Add(1) // last: a test that saw it sees the window filled
}

// detailsColumns is where the details window breaks long lines (breakLines).
const detailsColumns = 96

// detailsWindow shows one timeline row's event in full.
type detailsWindow struct {
	app   fyne.App
	win   fyne.Window
	title *widget.Label
	text  *widget.Label // what is shown: the text, up to maxShownInput
	full  string        // the whole text, which Copy copies
	copy  *widget.Button
	note  *widget.Label
}

func newDetailsWindow(a fyne.App, closed func()) *detailsWindow {
	d := &detailsWindow{app: a, win: a.NewWindow("")}
	d.title = widget.NewLabelWithStyle("", fyne.TextAlignLeading, fyne.TextStyle{Bold: true})
	d.text = widget.NewLabelWithStyle("", fyne.TextAlignLeading, fyne.TextStyle{Monospace: true})
	d.text.Wrapping = fyne.TextWrapOff // breakLines breaks its long lines: Fyne's wrapping of long text takes minutes
	d.text.Selectable = true
	d.note = widget.NewLabel("")
	d.copy = widget.NewButton("Copy", func() {
		a.Clipboard().SetContent(d.full)
		d.note.SetText("Copied.")
	})
	closeBtn := widget.NewButton("Close", func() { d.win.Close() })
	bottom := container.NewHBox(d.note, layout.NewSpacer(), d.copy, closeBtn)
	d.win.SetContent(container.NewBorder(d.title, bottom, nil, nil, container.NewScroll(d.text)))
	d.win.Resize(fyne.NewSize(720, 480))
	d.win.SetOnClosed(closed)
	return d
}

// show puts title and text in the window and raises it.
func (d *detailsWindow) show(winTitle, title, text string) {
	d.win.SetTitle(winTitle)
	d.title.SetText(title)
	d.full = text
	d.text.SetText(breakLines(capText(text, maxShownInput), detailsColumns)) // a label of megabytes would freeze the window
	d.note.SetText("")
	d.win.Show()
	d.win.RequestFocus()
}
