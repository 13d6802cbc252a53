package app

import (
	"strings"
	"sync"
	"sync/atomic"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"
)

// wrappedText shows lines of monospace text in a view that scrolls up and down, each line
// broken at the width the view has, so that every character lies within it: a popup once
// broke lines at 72 columns in a view that showed about 60, and the end of each piece was
// off its right edge. It breaks the lines again when the view changes width.
//
// It breaks them itself, each piece but the last ending in wrapMark, rather than letting
// Fyne wrap a label: Fyne's wrapping measures a long line over and over and takes seconds
// for a line of a thousand characters (minutes past 4,000), where breaking 64 KiB here
// takes milliseconds (TestWrappedTextKeepsALargeInputResponsive).
type wrappedText struct {
	widget.BaseWidget
	lines   []wrapLine
	rich    *widget.RichText
	scroll  *container.Scroll
	minSize fyne.Size
	cols    int // the width, in spaces, the lines are broken for; 0 before the first layout
	breaks  int // times the lines were broken, for tests
}

// wrapLine is one line a wrappedText shows: a mark before it ("- " for a line removed,
// none for most), its text, and the theme's colour it is drawn in.
type wrapLine struct {
	mark, text string
	color      fyne.ThemeColorName // "" for the foreground
}

// saidColor draws segwi's own words in a text view ("… 12 more lines are not shown"),
// apart from the text itself. (Not italics: the monospace font has none.)
const saidColor = theme.ColorNamePlaceHolder

// wrapMark ends each piece of a line broken by a wrappedText. A wrapMark in the text
// itself is shown as an escape, so that a break reads only as a break.
const (
	wrapMark        = "↩"
	wrapMarkEscaped = `\u21a9`
)

// newWrappedText returns a view of lines whose size is at least minSize.
func newWrappedText(lines []wrapLine, minSize fyne.Size) *wrappedText {
	w := &wrappedText{minSize: minSize, rich: widget.NewRichText()}
	w.rich.Wrapping = fyne.TextWrapOff // broken by breakFor
	w.scroll = container.NewVScroll(w.rich)
	w.setLines(lines)
	w.ExtendBaseWidget(w)
	return w
}

// setLines replaces the lines shown. On Fyne's goroutine.
func (w *wrappedText) setLines(lines []wrapLine) {
	w.lines = make([]wrapLine, len(lines))
	for i, l := range lines {
		l.text = strings.ReplaceAll(l.text, wrapMark, wrapMarkEscaped)
		w.lines[i] = l
	}
	if w.cols > 0 {
		cols := w.cols
		w.cols = 0
		w.breakFor(cols)
		w.scroll.Refresh()
	}
}

// text is every line shown, whole, joined by newlines.
func (w *wrappedText) text() string {
	parts := make([]string, len(w.lines))
	for i, l := range w.lines {
		parts[i] = l.mark + l.text
	}
	return strings.Join(parts, "\n")
}

// CreateRenderer returns the view's renderer: its scroll, laid out at the view's size,
// the lines broken for its width.
func (w *wrappedText) CreateRenderer() fyne.WidgetRenderer { return &wrappedRenderer{w} }

type wrappedRenderer struct{ w *wrappedText }

func (r *wrappedRenderer) Layout(size fyne.Size) {
	changed := false
	if r.w.Visible() && size.Width > 0 {
		// A hidden view (the JSON behind its toggle) is broken when it shows, and a view
		// not laid out yet when it has a width.
		changed = r.w.breakFor(r.w.columnsFor(size.Width))
	}
	r.w.scroll.Resize(size)
	if changed {
		r.w.scroll.Refresh()
	}
}

func (r *wrappedRenderer) MinSize() fyne.Size { return r.w.minSize }

// Refresh lays the view out again: shown after it was hidden, it breaks its lines now.
func (r *wrappedRenderer) Refresh() {
	r.Layout(r.w.Size())
	r.w.scroll.Refresh()
}

func (r *wrappedRenderer) Objects() []fyne.CanvasObject { return []fyne.CanvasObject{r.w.scroll} }
func (r *wrappedRenderer) Destroy()                     {}

// columnsFor is how many spaces of the monospace font fit on a line of a view width wide:
// its width less the text's inset on both sides and the scroll bar (which is drawn over
// the text, and widens under the pointer).
func (w *wrappedText) columnsFor(width float32) int {
	th := w.Theme()
	room := width - 2*th.Size(theme.SizeNameInnerPadding) - th.Size(theme.SizeNameScrollBar)
	return max(int(room/monoWidths.of(' ', th.Size(theme.SizeNameText))), 1)
}

// breakFor breaks the lines for cols spaces of width and puts them in the rich text, and
// reports whether that changed what it shows. On Fyne's goroutine.
func (w *wrappedText) breakFor(cols int) bool {
	if cols == w.cols {
		return false
	}
	w.cols = cols
	w.breaks++
	size := w.Theme().Size(theme.SizeNameText)
	room := float32(cols) * monoWidths.of(' ', size)
	// A segment for each piece: Fyne's rich text copies a segment's whole text for each of
	// its rows, so one segment of a thousand rows took seconds where a thousand took 0.1 s.
	var segs []widget.RichTextSegment
	for _, l := range w.lines {
		style := widget.RichTextStyleCodeBlock
		style.ColorName = l.color
		if l.color == "" {
			style.ColorName = theme.ColorNameForeground
		}
		for _, piece := range breakLine(l.mark, l.text, room, size) {
			segs = append(segs, &widget.TextSegment{Text: piece, Style: style})
		}
	}
	w.rich.Segments = segs
	return true
}

// breakLine breaks mark+text into pieces no wider than room, as the monospace font of
// size draws them: each piece but the last ends in wrapMark, and each piece after the
// first starts with as many spaces as mark has runes, so that the text lines up under
// itself. A piece holds at least one character, however narrow room is.
func breakLine(mark, text string, room, size float32) []string {
	indent := strings.Repeat(" ", len([]rune(mark)))
	markW := monoWidths.of([]rune(wrapMark)[0], size)
	space := monoWidths.of(' ', size)
	var pieces []string
	var b strings.Builder
	b.WriteString(mark)
	x := monoWidths.width(mark, size)
	n := 0 // characters of text in this piece
	for _, r := range text {
		adv := monoWidths.advance(r, x, space, size)
		if n > 0 && x+adv+markW > room {
			b.WriteString(wrapMark)
			pieces = append(pieces, b.String())
			b.Reset()
			b.WriteString(indent)
			x, n = monoWidths.width(indent, size), 0
			adv = monoWidths.advance(r, x, space, size)
		}
		b.WriteRune(r)
		x += adv
		n++
	}
	return append(pieces, b.String())
}

// monoWidths are the widths of characters in the theme's monospace font, measured once
// each, by text size. Fyne draws each character of a monospace line at its own width (a
// character the font lacks comes from a fallback font, often wider) and a tab to the next
// stop of four spaces, so a line's width is the sum of its characters'.
var monoWidths = &runeWidths{style: fyne.TextStyle{Monospace: true}, widths: map[runeAtSize]float32{}}

type runeAtSize struct {
	r    rune
	size float32
}

// runeWidths measures characters of one text style, each once by text size.
type runeWidths struct {
	style  fyne.TextStyle
	mu     sync.Mutex
	widths map[runeAtSize]float32
	ascii  map[float32]*asciiWidths // see asciiAt

	lastASCII atomic.Pointer[asciiWidths]
}

// of is the width of r drawn alone in the widths' style at size.
func (m *runeWidths) of(r rune, size float32) float32 {
	key := runeAtSize{r, size}
	m.mu.Lock()
	w, ok := m.widths[key]
	m.mu.Unlock()
	if ok {
		return w
	}
	w = fyne.MeasureText(string(r), size, m.style).Width
	m.mu.Lock()
	m.widths[key] = w
	m.mu.Unlock()
	return w
}

// advance is how far r moves the pen at x: a tab to the next stop of four spaces, a
// printable ASCII character as far as a space (the font is monospace; a test holds it to
// that), any other character its own measured width.
func (m *runeWidths) advance(r rune, x, space, size float32) float32 {
	switch {
	case r == '\t':
		stop := space * 4
		return float32(int(x/stop)+1)*stop - x
	case r >= ' ' && r <= '~':
		return space // without the lock and the look-up: a diff's lines are mostly ASCII
	}
	return m.of(r, size)
}

// width is the width of s drawn in the widths' style at size, as the sum of its
// characters' (see proseWidths for a font that is not monospace).
func (m *runeWidths) width(s string, size float32) float32 {
	ascii := m.asciiAt(size)
	space := ascii[' ']
	x := float32(0)
	for _, r := range s {
		if r >= ' ' && r < 0x7f {
			x += ascii[r] // most text: no lock, no map
			continue
		}
		x += m.advance(r, x, space, size)
	}
	return x
}

// asciiAt returns the widths of the printable ASCII characters at size, measured once: a
// long text is mostly these, and a look-up in the map of every character measured, under
// its lock, took most of the time breaking a long run's timeline took. The table of the
// size asked last is kept apart, to be found without a lock or a map.
func (m *runeWidths) asciiAt(size float32) *[0x80]float32 {
	if t := m.lastASCII.Load(); t != nil && t.size == size {
		return &t.widths
	}
	m.mu.Lock()
	t := m.ascii[size]
	m.mu.Unlock()
	if t == nil {
		t = &asciiWidths{size: size}
		for r := rune(' '); r < 0x7f; r++ {
			t.widths[r] = m.of(r, size)
		}
		m.mu.Lock()
		if m.ascii == nil {
			m.ascii = map[float32]*asciiWidths{}
		}
		m.ascii[size] = t
		m.mu.Unlock()
	}
	m.lastASCII.Store(t)
	return &t.widths
}

// asciiWidths are the widths of the ASCII characters at one size (see asciiAt).
type asciiWidths struct {
	size   float32
	widths [0x80]float32
}
