package app

import (
	"strings"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"github.com/segwi/segwi/approvals"
)

// requestPanel shows a request as a popup and the run window alike: the run and the tool,
// what segwi says of the request, its main text (the command, the change or the JSON) in a
// view that shows every character, the JSON behind a toggle, and the input's SHA-256.
// Its widgets are touched on Fyne's goroutine only.
type requestPanel struct {
	view     requestView
	top      *fyne.Container // the heading down to the caption
	timeLeft *widget.Label
	caption  *widget.Label
	main     *wrappedText  // the command, the change, or the JSON
	json     *wrappedText  // the JSON, behind showJSON; nil when main shows it
	showJSON *widget.Check // nil with json
	center   fyne.CanvasObject
	sha      *widget.Label
	foot     fyne.CanvasObject // under the text view: the SHA-256, and the JSON toggle
}

// newRequestPanel builds the panel of v, its text view at least viewMin in size. A compact
// panel (the run window's, under a header that names the run already) leaves out the
// heading and puts the time left beside the caption. On Fyne's goroutine.
func newRequestPanel(v requestView, viewMin fyne.Size, compact bool) *requestPanel {
	p := &requestPanel{view: v}
	p.top = container.NewVBox()
	if !compact {
		heading := widget.NewLabelWithStyle(v.Heading, fyne.TextAlignLeading, fyne.TextStyle{Bold: true})
		heading.Wrapping = fyne.TextWrapWord
		p.top.Add(heading)
	}
	if v.task != "" {
		task := widget.NewLabel(v.task)
		task.Truncation = fyne.TextTruncateEllipsis
		p.top.Add(task)
	}
	if v.checkout != "" {
		checkout := widget.NewLabel(v.checkout)
		checkout.Wrapping = fyne.TextWrapBreak
		p.top.Add(checkout)
	}
	// What segwi and Claude Code say of the request, each short: a description is cut at
	// 400 characters, the rest are segwi's own sentences.
	for _, said := range []struct {
		text  string
		style fyne.TextStyle
		imp   widget.Importance
	}{
		{prefixed("Why: ", v.Description), fyne.TextStyle{}, widget.MediumImportance},
		{prefixed("Runs ", v.Runs), fyne.TextStyle{Bold: true}, widget.WarningImportance},
		{prefixed("⚠ ", v.Secret), fyne.TextStyle{Bold: true}, widget.WarningImportance},
		{v.Unread, fyne.TextStyle{Italic: true}, widget.WarningImportance},
		{v.Note, fyne.TextStyle{Italic: true}, widget.MediumImportance},
	} {
		if said.text == "" {
			continue
		}
		l := widget.NewLabelWithStyle(said.text, fyne.TextAlignLeading, said.style)
		l.Wrapping = fyne.TextWrapWord
		l.Importance = said.imp
		p.top.Add(l)
	}
	p.timeLeft = widget.NewLabel("")
	if !compact {
		p.top.Add(p.timeLeft)
	}

	p.main = newWrappedText(v.mainLines(), viewMin)
	p.center = p.main
	var toggle fyne.CanvasObject
	if v.Shape != approvals.ShapeJSON {
		p.json = newWrappedText(v.jsonLines(), viewMin)
		p.json.Hide()
		p.showJSON = widget.NewCheck("Show the input as JSON", func(on bool) {
			if on {
				p.main.Hide()
				p.json.Show()
			} else {
				p.json.Hide()
				p.main.Show()
			}
		})
		p.center = container.NewStack(p.main, p.json)
		toggle = p.showJSON
	}
	// The caption may hold a long path: broken, in monospace, to fit the panel at its
	// narrowest, as the text view breaks its lines.
	caption := v.Caption
	if compact {
		caption = v.Tool + " · " + caption // the heading's word, which the compact panel leaves out
	}
	p.caption = widget.NewLabelWithStyle(breakCaption(caption+":", viewMin.Width-2*theme.InnerPadding()),
		fyne.TextAlignLeading, fyne.TextStyle{Monospace: true})
	if compact {
		p.top.Add(container.NewBorder(nil, nil, nil, p.timeLeft, p.caption))
	} else {
		p.top.Add(p.caption)
	}
	p.sha = widget.NewLabelWithStyle("Input SHA-256: "+v.SHA256, fyne.TextAlignLeading, fyne.TextStyle{Monospace: true})
	p.sha.Wrapping = fyne.TextWrapBreak
	p.sha.SizeName = theme.SizeNameCaptionText
	p.foot = p.sha
	if toggle != nil {
		p.foot = container.NewBorder(nil, nil, nil, toggle, p.sha)
	}
	return p
}

// breakCaption breaks s into lines no wider than room in the monospace font.
func breakCaption(s string, room float32) string {
	size := theme.TextSize()
	var lines []string
	for line := range strings.SplitSeq(strings.ReplaceAll(s, wrapMark, wrapMarkEscaped), "\n") {
		lines = append(lines, breakLine("", line, room, size)...)
	}
	return strings.Join(lines, "\n")
}

// prefixed is prefix and s, or nothing when s is empty.
func prefixed(prefix, s string) string {
	if s == "" {
		return ""
	}
	return prefix + s
}
