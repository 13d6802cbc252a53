package app

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/canvas"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/layout"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"github.com/segwi/segwi/internal/lib/visible"
	"github.com/segwi/segwi/runs/record"
)

// followList is the timeline's list. It follows the newest rows: once it shows its last
// row, it keeps showing it when rows come, when it gets shorter (the message under it wraps
// to more lines, the window shrinks) and when its rows are broken again for a new width;
// scrolled up, it stays where the person put it.
type followList struct {
	widget.List
	rowHeight float32 // the height of a row, all rows being of one height
	rendered  bool    // the list has its renderer: it can scroll
	toEnd     bool    // scroll to the end once it can: asked before it had a size
	width     float32 // the width the rows were laid out for
	// relayout breaks the rows again for a new width and returns where the entry at row
	// top begins now; nil: the rows do not depend on the width.
	relayout func(width float32, top int) (newTop int, changed bool)
}

func newFollowList(length func() int, create func() fyne.CanvasObject, update func(widget.ListItemID, fyne.CanvasObject)) *followList {
	l := &followList{rowHeight: create().MinSize().Height}
	l.Length, l.CreateItem, l.UpdateItem = length, create, update
	l.HideSeparators = true // a message is several rows: no rule between its lines
	l.ExtendBaseWidget(l)
	return l
}

// CreateRenderer returns the list's renderer, after which it can scroll.
func (l *followList) CreateRenderer() fyne.WidgetRenderer {
	r := l.List.CreateRenderer()
	l.rendered = true
	return r
}

// Resize resizes the list, breaks its rows again when its width changed (keeping the
// entry at its top there), and scrolls it to its end when it showed its end before.
func (l *followList) Resize(s fyne.Size) {
	atEnd := l.toEnd || l.atEnd()
	newTop, moved := 0, false
	if s.Width != l.width && s.Width > 0 && l.relayout != nil {
		l.width = s.Width
		newTop, moved = l.relayout(s.Width, l.topRow())
	}
	l.List.Resize(s)
	switch {
	case atEnd && s.Height > 0 && l.rendered:
		l.toEnd = false
		l.ScrollToBottom()
	case moved && !atEnd:
		l.ScrollToOffset(float32(newTop) * l.pitch())
	}
}

// scrollToEnd shows the last row, now or once the list has a size.
func (l *followList) scrollToEnd() {
	if !l.rendered || l.Size().Height <= 0 {
		l.toEnd = true
		return
	}
	l.ScrollToBottom()
}

// pitch is the distance from a row to the next: its height and the gap between rows.
func (l *followList) pitch() float32 {
	return l.rowHeight + l.Theme().Size(theme.SizeNamePadding)
}

// topRow is the row at the top of the view.
func (l *followList) topRow() int { return int(l.GetScrollOffset() / l.pitch()) }

// atEnd says whether the last row is in view: the list is scrolled down to within half
// a row of its end, or everything fits.
func (l *followList) atEnd() bool {
	n := 0
	if l.Length != nil {
		n = l.Length()
	}
	pad := l.Theme().Size(theme.SizeNamePadding) // the gap between rows
	content := float32(n)*(l.rowHeight+pad) - pad
	return l.GetScrollOffset()+l.Size().Height >= content-l.rowHeight/2
}

// rowMarkWidth is the width of the timeline's column of marks.
const rowMarkWidth = 120

// rowView is a row of the timeline: its mark in a column of its own and a piece of text,
// each one line of text that the timeline has cut or broken to fit (canvas texts, which
// measure nothing when drawn), so that a row is as tall as a line of text and a message
// broken into rows reads as a paragraph.
type rowView struct {
	widget.BaseWidget
	mark, text string
	dim        bool
}

func newRowView() *rowView {
	r := &rowView{}
	r.ExtendBaseWidget(r)
	return r
}

// set shows row.
func (r *rowView) set(row timelineRow) {
	if r.mark == row.Mark && r.text == row.Text && r.dim == row.Dim {
		return
	}
	r.mark, r.text, r.dim = row.Mark, row.Text, row.Dim
	r.Refresh()
}

// CreateRenderer returns the row's renderer.
func (r *rowView) CreateRenderer() fyne.WidgetRenderer {
	rr := &rowRenderer{r: r, mark: canvas.NewText("", nil), text: canvas.NewText("", nil)}
	rr.mark.TextStyle.Bold = true
	rr.Refresh()
	return rr
}

type rowRenderer struct {
	r          *rowView
	mark, text *canvas.Text
}

// rowPad is the space above and below a row's text.
const rowPad = 2

func (rr *rowRenderer) Layout(size fyne.Size) {
	inner := rr.r.Theme().Size(theme.SizeNameInnerPadding)
	rr.mark.Move(fyne.NewPos(inner, rowPad))
	rr.mark.Resize(fyne.NewSize(rowMarkWidth-inner, size.Height-2*rowPad))
	rr.text.Move(fyne.NewPos(rowMarkWidth, rowPad))
	rr.text.Resize(fyne.NewSize(max(size.Width-rowMarkWidth, 0), size.Height-2*rowPad))
}

func (rr *rowRenderer) MinSize() fyne.Size {
	h := fyne.MeasureText("Mg", rr.text.TextSize, rr.text.TextStyle).Height
	return fyne.NewSize(rowMarkWidth+100, h+2*rowPad)
}

func (rr *rowRenderer) Refresh() {
	th := rr.r.Theme()
	v := fyne.CurrentApp().Settings().ThemeVariant()
	size := th.Size(theme.SizeNameText)
	rr.mark.Text, rr.mark.TextSize, rr.mark.Color = rr.r.mark, size, th.Color(theme.ColorNameForeground, v)
	color := th.Color(theme.ColorNameForeground, v)
	if rr.r.dim {
		color = th.Color(theme.ColorNamePlaceHolder, v)
	}
	rr.text.Text, rr.text.TextSize, rr.text.Color = rr.r.text, size, color
	rr.mark.Refresh()
	rr.text.Refresh()
}

func (rr *rowRenderer) Objects() []fyne.CanvasObject { return []fyne.CanvasObject{rr.mark, rr.text} }
func (rr *rowRenderer) Destroy()                     {}

// timelineRoom is the width of the text column of a timeline list width wide: the list
// less the marks' column, a margin and the scroll bar.
func timelineRoom(th fyne.Theme, width float32) float32 {
	return width - rowMarkWidth - th.Size(theme.SizeNameInnerPadding) - th.Size(theme.SizeNameScrollBar)
}

// showRow opens the event behind timeline row i in full: every line, uncut, selectable,
// with a Copy button. The text is the run's record's (read off Fyne's goroutine), so that
// the timeline keeps only what it shows. On Fyne's goroutine.
func (w *runWindow) showRow(i int) {
	e := w.tl.entryAt(i)
	if e == nil { // the note of dropped entries
		row := w.tl.row(i, w.id)
		w.openDetails(rowTitle(row.Mark), row.Text)
		return
	}
	if e.whole || e.seq == 0 || w.deps.stateDir == "" {
		w.openDetails(rowTitle(e.mark), e.detail())
		return
	}
	seq, mark, shown := e.seq, e.mark, e.text
	go func() {
		title, text := w.eventText(seq, mark, shown)
		onUI(func() {
			if !w.closed.Load() {
				w.openDetails(title, text)
			}
		})
	}()
}

// eventText reads event seq from the run's record and returns a title and its whole text
// in words, with a tool call's input in full; when it is not there, the text the timeline
// shows (shown, marked mark). Off Fyne's goroutine.
func (w *runWindow) eventText(seq int64, mark, shown string) (title, text string) {
	var n record.Narrator // the words of the events before, for a refusal to name its call
	var found *record.Event
	var words record.Words
	err := record.ReadEvents(w.deps.stateDir, w.id, func(e record.Event) error {
		wd := n.Words(e)
		if e.Seq == seq {
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
		return rowTitle(mark), shown + "\n\n(Only what the timeline shows: " + why + ".)"
	}
	text = words.Text
	if len(found.Input) > 0 {
		var b bytes.Buffer
		if json.Indent(&b, found.Input, "", "  ") == nil {
			text += "\n\nInput:\n" + b.String()
		}
	}
	if found.Truncated {
		text += fmt.Sprintf("\n\n(Cut at %d KiB; the run's output.log has the whole output.)", record.MaxFieldBytes>>10)
	}
	title = fmt.Sprintf("%s · event %d · %s", markOf(words.Label), found.Seq, found.Time.Local().Format("15:04:05"))
	return title, visible.Escape(text)
}

// maxRawLineShown is where a line of the raw output is cut in the list: a label of a
// line of megabytes would freeze the window; a click opens it whole.
const maxRawLineShown = 2000

// showRawLine opens line i of the raw output whole, to read and copy. On Fyne's goroutine.
func (w *runWindow) showRawLine(i int) {
	if i < 0 || i >= len(w.raw) {
		return
	}
	w.openDetails(fmt.Sprintf("Raw output · line %d of the %d kept", i+1, len(w.raw)), w.raw[i])
}

// copyAllRaw copies the raw output the tab keeps. On Fyne's goroutine.
func (w *runWindow) copyAllRaw() {
	w.deps.app.Clipboard().SetContent(strings.Join(w.raw, "\n"))
	w.note.SetText(fmt.Sprintf("Copied the %d lines of raw output the window keeps (the run's output.log has all of it).", len(w.raw)))
}

// errFound ends a read of the record once the event looked for is found.
var errFound = errors.New("found")

// rowTitle is the title of a row opened in full: its mark.
func rowTitle(mark string) string {
	if mark == "" {
		return "Timeline row"
	}
	return mark
}

// openDetails shows title and text in the run window's details window, opening it first
// when needed. On Fyne's goroutine.
func (w *runWindow) openDetails(title, text string) {
	if w.details == nil {
		w.details = newDetailsWindow(w.deps.app, func() { w.details = nil })
	}
	w.details.show(title+" · "+w.windowTitle(), title, text)
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
