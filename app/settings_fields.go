package app

import (
	"strings"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/layout"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"github.com/segwi/segwi/settings"
)

// fieldLayout lays out the settings window's fields as label | field rows, the same in
// every section: one label column as wide as the widest label of the window, so that the
// fields of Claude Code, Runs and GitHub start at one line; a wheel turned over a
// single-line field scrolls the form, as it does over the labels.
type fieldLayout struct {
	labelWidth float32           // the widest label laid out so far
	scroll     *container.Scroll // the form's scroll; set once the form is built
}

// field returns a row: label, then obj with fe under it. fe names its problems by label,
// and knows its field (the input in obj) and its cell, for the window to bring a problem
// into view.
func (l *fieldLayout) field(label string, obj fyne.CanvasObject, fe *fieldError) []fyne.CanvasObject {
	fe.label = label
	fe.input = inputIn(obj)
	fe.cell = container.NewVBox(l.wheel(obj), fe.box)
	return []fyne.CanvasObject{l.label(label), fe.cell}
}

// inputIn returns the field a person types in or ticks in obj: obj itself, or the first
// one in a container of it (an entry beside its Choose… button).
func inputIn(obj fyne.CanvasObject) fyne.Focusable {
	switch x := obj.(type) {
	case fyne.Focusable:
		return x
	case *fyne.Container:
		for _, o := range x.Objects {
			if f := inputIn(o); f != nil {
				return f
			}
		}
	}
	return nil
}

// reveal scrolls the form, when needed, so that all of obj shows, its top first when it
// is taller than the form's view. obj's place must be laid out (see relayout).
func (l *fieldLayout) reveal(d fyne.Driver, obj fyne.CanvasObject) {
	if l.scroll == nil || !obj.Visible() {
		return
	}
	top := d.AbsolutePositionForObject(obj).Y - d.AbsolutePositionForObject(l.scroll.Content).Y
	bottom, view := top+obj.Size().Height, l.scroll.Size().Height
	off := l.scroll.Offset.Y
	if bottom > off+view {
		off = bottom - view
	}
	if top < off {
		off = top
	}
	l.scroll.ScrollToOffset(fyne.NewPos(l.scroll.Offset.X, off))
}

// relayout lays the form out again at once with the sizes its fields now need (a problem
// shown under a field takes lines), rather than at the window's next frame, so that
// where a field is can be read.
func (l *fieldLayout) relayout() {
	if l.scroll != nil {
		l.scroll.Refresh()
	}
}

// label returns a row's label, as wide as the widest one.
func (l *fieldLayout) label(text string) fyne.CanvasObject {
	lbl := widget.NewLabel(text)
	l.labelWidth = max(l.labelWidth, lbl.MinSize().Width)
	return container.New(&labelColumn{l}, lbl)
}

// grid lays out rows as label | field.
func (l *fieldLayout) grid(rows ...[]fyne.CanvasObject) *fyne.Container {
	var objs []fyne.CanvasObject
	for _, r := range rows {
		objs = append(objs, r...)
	}
	return container.New(layout.NewFormLayout(), objs...)
}

// wheel puts a wheelPass over an entry (alone, or beside a Choose… button), whose own
// scroller would otherwise take the wheel from the form: a single-line entry always, and
// a multi-line one that shows all its lines (growingEntry), which has nothing of its own
// to scroll.
func (l *fieldLayout) wheel(obj fyne.CanvasObject) fyne.CanvasObject {
	if e, ok := obj.(*widget.Entry); ok && !e.MultiLine {
		return container.NewStack(e, newWheelPass(func() *container.Scroll { return l.scroll }))
	}
	if e, ok := obj.(*growingEntry); ok {
		return container.NewStack(e, newWheelPass(func() *container.Scroll { return l.scroll }))
	}
	return obj
}

// growingEntry is a multi-line entry as tall as its lines (and one to type the next in),
// at least minRows: a list (the trusted commands) the person reads whole, and the wheel
// over it scrolls the form, as it does over any field. Lines longer than the field scroll
// sideways as the cursor moves; they do not wrap, so that a line shows as one entry.
type growingEntry struct {
	widget.Entry
	minRows int
}

func newGrowingEntry(minRows int) *growingEntry {
	e := &growingEntry{minRows: minRows}
	e.MultiLine = true
	e.Wrapping = fyne.TextWrapOff
	e.ExtendBaseWidget(e)
	e.grow()
	return e
}

// grow makes the entry as tall as its text's lines and one more.
func (e *growingEntry) grow() {
	e.SetMinRowsVisible(max(e.minRows, strings.Count(e.Text, "\n")+2))
}

// labelColumn lays out a label at least as wide as the widest label of its fieldLayout.
type labelColumn struct{ fields *fieldLayout }

func (c *labelColumn) MinSize(objs []fyne.CanvasObject) fyne.Size {
	m := objs[0].MinSize()
	return fyne.NewSize(max(m.Width, c.fields.labelWidth), m.Height)
}

func (c *labelColumn) Layout(objs []fyne.CanvasObject, size fyne.Size) {
	objs[0].Move(fyne.NewPos(0, 0))
	objs[0].Resize(size)
}

// wheelPass is an invisible layer over a field that hands the wheel to the form's scroll.
// Fyne gives a wheel event to the innermost scrollable object under the pointer, the
// field's own scroller; a layer laid over it comes later in that search and wins. It
// takes nothing else: clicks, hovering and the cursor are the field's.
type wheelPass struct {
	widget.BaseWidget
	target func() *container.Scroll
}

func newWheelPass(target func() *container.Scroll) *wheelPass {
	w := &wheelPass{target: target}
	w.ExtendBaseWidget(w)
	return w
}

// Scrolled scrolls the form.
func (w *wheelPass) Scrolled(ev *fyne.ScrollEvent) {
	if s := w.target(); s != nil {
		s.Scrolled(ev)
	}
}

func (w *wheelPass) CreateRenderer() fyne.WidgetRenderer {
	return widget.NewSimpleRenderer(layout.NewSpacer())
}

// fieldError is the line under a field that says what is wrong with it: each problem led
// by the field's label, in red, and the key it is written under in the settings file,
// smaller, after it. Under a field the line is kept while the field is fine, blank and
// small or showing the field's hint, so that the form does not move when a one-line
// problem appears; elsewhere (hidden) it takes no room until there is a problem. A
// problem takes the hint's place, as in Fyne's own forms.
type fieldError struct {
	label  string // the field's label, set by fieldLayout.field
	hint   string // what the field takes, shown small while it is fine; "" for none
	hidden bool   // takes no room while blank
	// quiet keeps the field's problems unshown until the person has typed in it: a field
	// just added (Add repository) is empty, which is not yet a mistake. Save stays off.
	quiet bool
	input fyne.Focusable  // the field, set by fieldLayout.field
	cell  *fyne.Container // the field with this line under it, set by fieldLayout.field
	text  *widget.RichText
	box   *fyne.Container // text, without the padding around it
	lines []string        // as shown, one a problem
}

func newFieldError() *fieldError {
	e := &fieldError{text: widget.NewRichText()}
	e.text.Wrapping = fyne.TextWrapWord
	e.box = container.New(tightText{}, e.text)
	e.show(nil)
	return e
}

// newHiddenFieldError is a fieldError that takes no room while blank.
func newHiddenFieldError(label string) *fieldError {
	e := newFieldError()
	e.label, e.hidden = label, true
	e.show(nil)
	return e
}

// show puts probs on the line, or blanks it; a quiet line stays blank.
func (e *fieldError) show(probs []settings.Problem) {
	e.lines = e.lines[:0]
	if len(probs) == 0 || e.quiet {
		// As tall as a line of a problem: one appearing moves nothing.
		// The hint, smaller, goes before the blank.
		e.text.Segments = []widget.RichTextSegment{&widget.TextSegment{Text: " ", Style: widget.RichTextStyleInline}}
		if e.hint != "" {
			e.text.Segments = append([]widget.RichTextSegment{&widget.TextSegment{Text: e.hint, Style: widget.RichTextStyle{
				ColorName: theme.ColorNamePlaceHolder, SizeName: theme.SizeNameCaptionText, Inline: true}}}, e.text.Segments...)
		}
		e.text.Refresh()
		if e.hidden {
			e.box.Hide()
		}
		return
	}
	var segs []widget.RichTextSegment
	for _, p := range probs {
		msg := p.Message
		if e.label != "" {
			msg = e.label + ": " + msg
		}
		e.lines = append(e.lines, msg+"  "+p.Key)
		segs = append(segs,
			&widget.TextSegment{Text: msg + "  ", Style: widget.RichTextStyle{ColorName: theme.ColorNameError, Inline: true}},
			&widget.TextSegment{Text: p.Key, Style: widget.RichTextStyle{ColorName: theme.ColorNamePlaceHolder,
				SizeName: theme.SizeNameCaptionText, TextStyle: fyne.TextStyle{Monospace: true}}})
	}
	e.text.Segments = segs
	e.text.Refresh()
	e.box.Show()
}

// Text returns what the line says, one problem a line; "" when the field is fine.
func (e *fieldError) Text() string { return strings.Join(e.lines, "\n") }

// tightText lays out a RichText without the inner padding above it, which would leave a
// blank line's worth of room under every field; the padding below it stays, so that the
// last line of a problem (its key, in smaller type) keeps clear of the next field.
type tightText struct{}

func (tightText) MinSize(objs []fyne.CanvasObject) fyne.Size {
	m := objs[0].MinSize()
	return fyne.NewSize(m.Width, max(0, m.Height-theme.InnerPadding()))
}

func (tightText) Layout(objs []fyne.CanvasObject, size fyne.Size) {
	objs[0].Move(fyne.NewPos(0, -theme.InnerPadding()))
	objs[0].Resize(fyne.NewSize(size.Width, size.Height+theme.InnerPadding()))
}

// heading is a section title.
func settingsHeading(text string) *widget.Label {
	return widget.NewLabelWithStyle(text, fyne.TextAlignLeading, fyne.TextStyle{Bold: true})
}
