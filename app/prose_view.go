package app

import (
	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"
)

// proseView shows prose in the regular font, broken into lines at the width it has
// (breakProse), in a view that scrolls up and down: Claude's message a run waits on.
// It breaks the text again when its width changes. On Fyne's goroutine.
type proseView struct {
	widget.BaseWidget
	text    string
	rich    *widget.RichText
	scroll  *container.Scroll
	minSize fyne.Size
	room    float32 // the width the text is broken for; 0 before the first layout
}

// newProseView returns a view of text whose size is at least minSize.
func newProseView(text string, minSize fyne.Size) *proseView {
	v := &proseView{text: text, minSize: minSize, rich: widget.NewRichText()}
	v.rich.Wrapping = fyne.TextWrapOff // broken by breakFor
	v.scroll = container.NewVScroll(v.rich)
	v.ExtendBaseWidget(v)
	return v
}

// setText replaces the text shown, and shows its start.
func (v *proseView) setText(text string) {
	v.text = text
	if v.room > 0 {
		room := v.room
		v.room = 0
		v.breakFor(room)
		v.scroll.Offset = fyne.Position{}
		v.scroll.Refresh()
	}
}

// breakFor breaks the text for room and reports whether that changed what it shows.
func (v *proseView) breakFor(room float32) bool {
	if room == v.room {
		return false
	}
	v.room = room
	size := v.Theme().Size(theme.SizeNameText)
	lines := breakProse(v.text, room, size)
	segs := make([]widget.RichTextSegment, len(lines))
	for i, l := range lines {
		segs[i] = &widget.TextSegment{Text: l, Style: widget.RichTextStyleParagraph}
	}
	v.rich.Segments = segs
	return true
}

// roomFor is the width of text that fits in a view width wide: less the text's inset on
// both sides and the scroll bar.
func (v *proseView) roomFor(width float32) float32 {
	th := v.Theme()
	return width - 2*th.Size(theme.SizeNameInnerPadding) - th.Size(theme.SizeNameScrollBar)
}

// CreateRenderer returns the view's renderer: its scroll, the text broken for its width.
func (v *proseView) CreateRenderer() fyne.WidgetRenderer { return &proseRenderer{v} }

type proseRenderer struct{ v *proseView }

func (r *proseRenderer) Layout(size fyne.Size) {
	changed := false
	if size.Width > 0 {
		changed = r.v.breakFor(r.v.roomFor(size.Width))
	}
	r.v.scroll.Resize(size)
	if changed {
		r.v.scroll.Refresh()
	}
}

func (r *proseRenderer) MinSize() fyne.Size { return r.v.minSize }

func (r *proseRenderer) Refresh() {
	r.Layout(r.v.Size())
	r.v.scroll.Refresh()
}

func (r *proseRenderer) Objects() []fyne.CanvasObject { return []fyne.CanvasObject{r.v.scroll} }
func (r *proseRenderer) Destroy()                     {}
