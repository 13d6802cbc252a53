package app

import (
	"image/color"
	"math"
	"slices"
	"sort"
	"strconv"
	"sync/atomic"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/canvas"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"
	"github.com/segwi/segwi/runs/record"
)

// diffView shows a diff to review: monospace, one text line per 1.3 em, each line with its
// numbers in the old and the new file in a gutter, lines added and removed in the theme's
// success and error colours, each file led by a header line and each hunk by its @@ line.
// A line too long for the view is broken at the view's real width, as the popup breaks
// its text (breakLine), so that every character shows; the lines are broken again when the
// view changes width.
//
// It draws only the rows on screen, from a pool of objects it reuses as it scrolls, so
// that a diff of thousands of lines costs what a screenful does.
//
// Keys, once it has the focus (a click on it, or opening the Changes tab): j or ↓ and k or
// ↑ move a line, Space or Page Down and Page Up a page, Home and End to the ends, n and p
// to the next and previous hunk, ] and [ to the next and previous file (as Gerrit's diff
// view has them). Touched on Fyne's goroutine only, but for made.
type diffView struct {
	widget.BaseWidget

	lines []diffLine
	hunks []int // the lines that are hunk headers, in order
	files []int // the lines that are file headers, in order
	// onFile is told the file (its index in the change set's Files) of the line at the
	// top of the view, when that changes; nil for none.
	onFile func(file int)

	rows     []diffRow // the lines broken for width
	lineRow  []int     // each line's first row
	width    float32   // the width the rows were broken for; 0 before the first layout
	m        diffMetrics
	digits   int // the digits of the largest line number
	mark     int // the line of the header the keys moved to, drawn marked; -1 for none
	topFile  int // the file last told to onFile
	focused  bool
	breaks   int // times the lines were broken, for tests
	scroll   *container.Scroll
	body     *diffBody
	outline  *canvas.Rectangle // the focus indicator
	made     atomic.Int64      // row objects made, for tests: only about a screenful
	rendered int               // rows drawn by the last placing, for tests
}

// diffRow is one row on screen: a piece of a line broken to the view's width.
type diffRow struct {
	line  int32
	first bool // the line's first piece: it shows the line's numbers and mark
	text  string
}

// diffMetrics are the view's sizes for its theme.
type diffMetrics struct {
	textSize float32 // the diff's text size: the theme's, less 2 (12 at the default 14)
	rowH     float32 // one row: 1.3 times the text size, whole pixels
	textH    float32 // the height of a line of text
	charW    float32 // the width of a digit and of every ASCII character
	pad      float32
	numW     float32 // one column of line numbers
	gutterW  float32 // both columns and their padding
	textX    float32 // where the text of a line starts, after its mark
}

// newDiffView returns an empty view.
func newDiffView() *diffView {
	v := &diffView{mark: -1, topFile: -1}
	v.body = &diffBody{v: v}
	v.body.ExtendBaseWidget(v.body)
	v.scroll = container.NewVScroll(v.body)
	v.scroll.OnScrolled = func(fyne.Position) { v.scrolled() }
	v.outline = canvas.NewRectangle(color.Transparent)
	v.outline.StrokeWidth = 2
	v.ExtendBaseWidget(v)
	return v
}

// setLines replaces the lines shown and shows their top. On Fyne's goroutine.
func (v *diffView) setLines(lines []diffLine) {
	v.lines = lines
	v.hunks, v.files = v.hunks[:0], v.files[:0]
	most := 0
	for i, l := range lines {
		switch l.kind {
		case diffHunk:
			v.hunks = append(v.hunks, i)
		case diffFile:
			v.files = append(v.files, i)
		}
		most = max(most, l.old, l.new)
	}
	v.digits = max(len(strconv.Itoa(most)), 3)
	v.mark, v.topFile = -1, -1
	v.scroll.Offset = fyne.Position{}
	if v.width > 0 {
		v.breakFor(v.width)
		v.scroll.Refresh()
	}
	v.scrolled()
}

// metrics works out the view's sizes from its theme.
func (v *diffView) metrics() diffMetrics {
	th := v.Theme()
	m := diffMetrics{textSize: th.Size(theme.SizeNameText) - 2, pad: th.Size(theme.SizeNameInnerPadding) / 2}
	m.rowH = float32(math.Round(float64(m.textSize) * 1.3))
	m.charW = monoWidths.of('0', m.textSize)
	m.textH = fyne.MeasureText("0", m.textSize, fyne.TextStyle{Monospace: true}).Height
	m.numW = float32(v.digits) * m.charW
	m.gutterW = 2*m.numW + 3*m.pad
	m.textX = m.gutterW + m.pad + 2*m.charW // the mark, then a space
	return m
}

// breakFor breaks the lines for a view width wide. On Fyne's goroutine.
func (v *diffView) breakFor(width float32) {
	v.width = width
	v.breaks++
	v.m = v.metrics()
	m := v.m
	full := width - 2*m.pad - v.Theme().Size(theme.SizeNameScrollBar)
	text := width - m.textX - m.pad - v.Theme().Size(theme.SizeNameScrollBar)
	v.rows = v.rows[:0]
	if cap(v.lineRow) < len(v.lines) {
		v.lineRow = make([]int, len(v.lines))
	}
	v.lineRow = v.lineRow[:len(v.lines)]
	markW := monoWidths.of([]rune(wrapMark)[0], m.textSize)
	for i, l := range v.lines {
		v.lineRow[i] = len(v.rows)
		room := text
		if l.kind == diffFile || l.kind == diffHunk {
			room = full
		}
		if fitsPlain(l.text, room-markW, m.charW) { // most lines: no piece to copy
			v.rows = append(v.rows, diffRow{line: int32(i), first: true, text: l.text})
			continue
		}
		for k, piece := range breakLine("", l.text, room, m.textSize) {
			v.rows = append(v.rows, diffRow{line: int32(i), first: k == 0, text: piece})
		}
	}
}

// fitsPlain reports whether s is printable ASCII only (each character as wide as charW in
// the monospace font) and, with room to spare, narrower than room: breakLine would leave it
// whole.
func fitsPlain(s string, room, charW float32) bool {
	if float32(len(s)+1)*charW > room {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < ' ' || s[i] > '~' {
			return false
		}
	}
	return true
}

// CreateRenderer returns the view's renderer: its scroll, and the focus outline over it.
func (v *diffView) CreateRenderer() fyne.WidgetRenderer { return &diffViewRenderer{v} }

type diffViewRenderer struct{ v *diffView }

func (r *diffViewRenderer) Layout(size fyne.Size) {
	v := r.v
	if size.Width > 0 && size.Width != v.width {
		top := v.topLine()
		v.breakFor(size.Width)
		v.scroll.Resize(size)
		v.scroll.Refresh() // the body's height changed
		if top >= 0 {
			v.scrollToRow(v.lineRow[top])
		}
	}
	v.scroll.Resize(size)
	v.outline.Resize(size)
	v.body.Refresh()
}

func (r *diffViewRenderer) MinSize() fyne.Size { return fyne.NewSize(120, 80) }

func (r *diffViewRenderer) Refresh() {
	v := r.v
	v.outline.StrokeColor = color.Transparent
	if v.focused {
		v.outline.StrokeColor = v.color(theme.ColorNameFocus)
	}
	v.outline.Refresh()
	if v.width > 0 && v.metrics() != v.m { // the theme changed
		v.breakFor(v.width)
		v.scroll.Refresh()
	}
	v.body.Refresh()
}

func (r *diffViewRenderer) Objects() []fyne.CanvasObject {
	return []fyne.CanvasObject{r.v.scroll, r.v.outline}
}
func (r *diffViewRenderer) Destroy() {}

// color is the theme's colour name in the app's variant.
func (v *diffView) color(name fyne.ThemeColorName) color.Color {
	return v.Theme().Color(name, fyne.CurrentApp().Settings().ThemeVariant())
}

// tint is the theme's colour name, faint, for the background of a row.
func (v *diffView) tint(name fyne.ThemeColorName, alpha uint8) color.Color {
	c := color.NRGBAModel.Convert(v.color(name)).(color.NRGBA)
	c.A = alpha
	return c
}

// visibleRows is the first and the last row on screen; last < first when none is.
func (v *diffView) visibleRows() (first, last int) {
	if v.m.rowH <= 0 || len(v.rows) == 0 {
		return 0, -1
	}
	off := v.scroll.Offset.Y
	first = int(off / v.m.rowH)
	last = min(len(v.rows)-1, int(math.Ceil(float64((off+v.scroll.Size().Height)/v.m.rowH)))-1)
	return first, last
}

// topLine is the line of the row at the top of the view; -1 when there is none.
func (v *diffView) topLine() int {
	first, last := v.visibleRows()
	if last < first {
		return -1
	}
	return int(v.rows[first].line)
}

// scrollToRow scrolls row to the top of the view, or as near as the end allows.
func (v *diffView) scrollToRow(row int) {
	limit := max(float32(len(v.rows))*v.m.rowH-v.scroll.Size().Height, 0)
	v.scroll.ScrollToOffset(fyne.NewPos(0, min(max(float32(row)*v.m.rowH, 0), limit)))
	v.scrolled()
}

// scrolled redraws the rows on screen and tells onFile the file now at the top.
func (v *diffView) scrolled() {
	v.body.Refresh()
	top := v.topLine()
	if top < 0 || v.onFile == nil {
		return
	}
	if f := v.lines[top].file; f >= 0 && f != v.topFile {
		v.topFile = f
		v.onFile(f)
	}
}

// scrollRows scrolls by n rows, down when n > 0.
func (v *diffView) scrollRows(n int) {
	first, _ := v.visibleRows()
	v.scrollToRow(first + n)
}

// page is how many rows a page moves: a screenful less one, kept in sight.
func (v *diffView) page() int {
	first, last := v.visibleRows()
	return max(last-first, 1)
}

// jump moves to the next (dir > 0) or previous header among heads (v.hunks or v.files)
// from the header marked, when it is on screen, or else from the top of the view; the
// header is marked and scrolled to the top. A hunk that starts its file shows under the
// file's header. It reports whether there was one to move to.
func (v *diffView) jump(heads []int, dir int) bool {
	first, last := v.visibleRows()
	if last < first {
		return false
	}
	from := v.rows[first].line
	if v.mark >= 0 && v.lineRow[v.mark] >= first && v.lineRow[v.mark] <= last {
		from = int32(v.mark)
	}
	var to int
	if dir > 0 {
		i := sort.SearchInts(heads, int(from)+1)
		if i == len(heads) {
			return false
		}
		to = heads[i]
	} else {
		i := sort.SearchInts(heads, int(from)) - 1
		if i < 0 {
			return false
		}
		to = heads[i]
	}
	v.mark = to
	row := v.lineRow[to]
	if to > 0 && v.lines[to].kind == diffHunk && v.lines[to-1].kind == diffFile {
		row = v.lineRow[to-1]
	}
	v.scrollToRow(row)
	return true
}

// showFile scrolls to the header of file (its index in the change set's Files), marked
// when mark is set; it reports whether the file has a header in the view.
func (v *diffView) showFile(file int, mark bool) bool {
	l := v.fileHeader(file)
	if l < 0 {
		return false
	}
	v.mark, v.topFile = -1, file
	if mark {
		v.mark = l
	}
	if v.width > 0 {
		v.scrollToRow(v.lineRow[l])
	}
	return true
}

// fileHeader is the line of file's header; -1 when the view has none.
func (v *diffView) fileHeader(file int) int {
	for _, l := range v.files {
		if v.lines[l].file == file {
			return l
		}
	}
	return -1
}

// anchor is where the view stands, to find again in a new reading of the diff: the path
// (among files, the change set's) of the file at its top, and the number of the line at its
// top in that file, new or else old (0 for its header).
func (v *diffView) anchor(files []record.File) (path string, line int) {
	top := v.topLine()
	if top < 0 || v.lines[top].file < 0 || v.lines[top].file >= len(files) {
		return "", 0
	}
	l := v.lines[top]
	return files[l.file].Path, max(l.new, l.old)
}

// restore scrolls to the place anchor gave, in a new reading whose files are files: the
// first line of that file numbered line or more, or its header. It does nothing when the
// file is not shown any more.
func (v *diffView) restore(files []record.File, path string, line int) {
	if path == "" || v.width == 0 {
		return
	}
	file := slices.IndexFunc(files, func(f record.File) bool { return f.Path == path })
	if file < 0 || !v.showFile(file, false) {
		return
	}
	for i := v.fileHeader(file) + 1; line > 0 && i < len(v.lines) && v.lines[i].file == file; i++ {
		if max(v.lines[i].new, v.lines[i].old) >= line {
			v.scrollToRow(v.lineRow[i])
			return
		}
	}
}

// TypedRune moves as the key says: j k line, n p hunk, ] [ file, Space page.
func (v *diffView) TypedRune(r rune) {
	switch r {
	case 'j':
		v.scrollRows(1)
	case 'k':
		v.scrollRows(-1)
	case ' ':
		v.scrollRows(v.page())
	case 'n':
		v.jump(v.hunks, 1)
	case 'p':
		v.jump(v.hunks, -1)
	case ']':
		v.jump(v.files, 1)
	case '[':
		v.jump(v.files, -1)
	}
}

// TypedKey moves as the key says: ↓ ↑ line, Page Down and Page Up page, Home and End.
func (v *diffView) TypedKey(e *fyne.KeyEvent) {
	switch e.Name {
	case fyne.KeyDown:
		v.scrollRows(1)
	case fyne.KeyUp:
		v.scrollRows(-1)
	case fyne.KeyPageDown:
		v.scrollRows(v.page())
	case fyne.KeyPageUp:
		v.scrollRows(-v.page())
	case fyne.KeyHome:
		v.scrollToRow(0)
	case fyne.KeyEnd:
		v.scrollToRow(len(v.rows))
	}
}

// FocusGained draws the focus outline.
func (v *diffView) FocusGained() { v.focused = true; v.Refresh() }

// FocusLost takes the focus outline away.
func (v *diffView) FocusLost() { v.focused = false; v.Refresh() }

// focus gives the view the keyboard, when it is on a canvas.
func (v *diffView) focus() {
	if c := fyne.CurrentApp().Driver().CanvasForObject(v); c != nil {
		c.Focus(v)
	}
}

// diffBody is the view's scrolled content: as tall as every row, drawing those on screen.
type diffBody struct {
	widget.BaseWidget
	v *diffView
}

// Tapped gives the view the keyboard.
func (b *diffBody) Tapped(*fyne.PointEvent) { b.v.focus() }

// CreateRenderer returns the renderer that places the rows on screen.
func (b *diffBody) CreateRenderer() fyne.WidgetRenderer {
	r := &diffBodyRenderer{v: b.v, gutter: canvas.NewRectangle(color.Transparent)}
	return r
}

type diffBodyRenderer struct {
	v       *diffView
	gutter  *canvas.Rectangle
	pool    []*diffRowObjects
	objects []fyne.CanvasObject
}

func (r *diffBodyRenderer) MinSize() fyne.Size {
	return fyne.NewSize(0, float32(len(r.v.rows))*r.v.m.rowH)
}

func (r *diffBodyRenderer) Layout(fyne.Size) { r.place() }
func (r *diffBodyRenderer) Refresh()         { r.place(); canvas.Refresh(r.v.body) }
func (r *diffBodyRenderer) Destroy()         {}

func (r *diffBodyRenderer) Objects() []fyne.CanvasObject { return r.objects }

// place draws the rows on screen with the pool's objects, making more when the screen
// holds more rows than ever before.
func (r *diffBodyRenderer) place() {
	v := r.v
	first, last := v.visibleRows()
	n := max(last-first+1, 0)
	for len(r.pool) < n {
		r.pool = append(r.pool, newDiffRowObjects())
		v.made.Add(1)
	}
	r.objects = append(r.objects[:0], r.gutter)
	setFill(r.gutter, v.color(theme.ColorNameInputBackground))
	r.gutter.Move(fyne.NewPos(0, float32(first)*v.m.rowH))
	r.gutter.Resize(fyne.NewSize(v.m.gutterW, float32(n)*v.m.rowH))
	for k := range n {
		o := r.pool[k]
		o.show(v, first+k)
		if o.bg.FillColor != color.Transparent {
			r.objects = append(r.objects, o.bg)
		}
		for _, t := range []*canvas.Text{o.old, o.new, o.mark, o.text} {
			if t.Text != "" {
				r.objects = append(r.objects, t)
			}
		}
	}
	v.rendered = n
}

// diffRowObjects draw one row: its background, its numbers, its mark and its text.
type diffRowObjects struct {
	bg                   *canvas.Rectangle
	old, new, mark, text *canvas.Text
}

func newDiffRowObjects() *diffRowObjects {
	text := func(align fyne.TextAlign) *canvas.Text {
		t := canvas.NewText("", color.Transparent)
		t.TextStyle.Monospace = true
		t.Alignment = align
		return t
	}
	return &diffRowObjects{bg: canvas.NewRectangle(color.Transparent), old: text(fyne.TextAlignTrailing),
		new: text(fyne.TextAlignTrailing), mark: text(fyne.TextAlignLeading), text: text(fyne.TextAlignLeading)}
}

// show draws row of v.
func (o *diffRowObjects) show(v *diffView, row int) {
	m := v.m
	r := v.rows[row]
	l := v.lines[r.line]
	y := float32(row) * m.rowH
	ty := y + (m.rowH-m.textH)/2
	width := v.body.Size().Width

	bg, fg := color.Color(color.Transparent), v.color(theme.ColorNameForeground)
	bgX, textX := m.gutterW, m.textX
	mark, style := "", fyne.TextStyle{Monospace: true}
	switch l.kind {
	case diffAdded:
		bg, fg, mark = v.tint(theme.ColorNameSuccess, 0x30), v.color(theme.ColorNameSuccess), "+"
	case diffDeleted:
		bg, fg, mark = v.tint(theme.ColorNameError, 0x30), v.color(theme.ColorNameError), "-"
	case diffHunk:
		bg, fg, bgX, textX = v.tint(theme.ColorNamePrimary, 0x20), v.color(theme.ColorNamePrimary), 0, m.pad
	case diffFile:
		bg, bgX, textX = v.color(theme.ColorNameHeaderBackground), 0, m.pad
	case diffNote:
		fg = v.color(saidColor)
	}
	if int(r.line) == v.mark {
		bg = v.color(theme.ColorNameSelection)
	}
	setFill(o.bg, bg)
	o.bg.Move(fyne.NewPos(bgX, y))
	o.bg.Resize(fyne.NewSize(max(width-bgX, 0), m.rowH))

	number := func(n int) string {
		if n == 0 || !r.first {
			return ""
		}
		return strconv.Itoa(n)
	}
	numFG := v.color(theme.ColorNamePlaceHolder)
	setText(o.old, number(l.old), numFG, m.textSize, style)
	o.old.Move(fyne.NewPos(m.pad, ty))
	o.old.Resize(fyne.NewSize(m.numW, m.textH))
	setText(o.new, number(l.new), numFG, m.textSize, style)
	o.new.Move(fyne.NewPos(2*m.pad+m.numW, ty))
	o.new.Resize(fyne.NewSize(m.numW, m.textH))
	if !r.first {
		mark = ""
	}
	setText(o.mark, mark, fg, m.textSize, style)
	o.mark.Move(fyne.NewPos(m.gutterW+m.pad, ty))
	o.mark.Resize(fyne.NewSize(m.charW, m.textH))
	setText(o.text, r.text, fg, m.textSize, style)
	o.text.Move(fyne.NewPos(textX, ty))
	o.text.Resize(fyne.NewSize(max(width-textX, 0), m.textH))
}

// setText changes what t draws, refreshing it only when that changed.
func setText(t *canvas.Text, s string, c color.Color, size float32, style fyne.TextStyle) {
	if t.Text == s && t.Color == c && t.TextSize == size && t.TextStyle == style {
		return
	}
	t.Text, t.Color, t.TextSize, t.TextStyle = s, c, size, style
	t.Refresh()
}

// setFill changes r's colour, refreshing it only when that changed.
func setFill(r *canvas.Rectangle, c color.Color) {
	if r.FillColor == c {
		return
	}
	r.FillColor = c
	r.Refresh()
}
