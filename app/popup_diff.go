package app

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"github.com/segwi/segwi/approvals"
	"github.com/segwi/segwi/internal/visible"
)

// Bounds of a popup's diff: past them the popup says how much it left out, so that the
// person can deny what they cannot see.
const (
	maxDiffLines = 4000      // lines shown
	maxDiffCells = 4_000_000 // old lines × new lines compared line by line; past it, all old then all new
)

// changeView is what a popup shows of an Edit, Write or NotebookEdit call: a line saying
// what it does to which file, and the change as lines removed, added and kept.
type changeView struct {
	summary string // "Edit notes.txt", with the path relative to the checkout
	lines   []diffLine
	more    int // lines not shown
}

// changeOf works out the change view of req, or returns nil when req is no file change or
// its input is not exactly the tool's (the JSON then shows, whole).
func changeOf(req approvals.Request) *changeView {
	c, ok, _ := req.FileChange()
	if !ok {
		return nil
	}
	file := pathInCheckout(c.Path, req.Run.Checkout)
	v := &changeView{}
	var lines []diffLine
	switch c.Tool {
	case "Edit":
		v.summary = "Edit " + file
		if c.ReplaceAll {
			v.summary += ", every occurrence"
		}
		lines = lineDiff(c.Old, c.New)
	case "Write":
		v.summary = "Write " + file + writeWhat(c.Path)
		lines = lineDiff("", c.New)
	case "NotebookEdit":
		cell := "cell " + orDefault(c.CellID, "(no id)")
		kind := ""
		if c.CellType != "" {
			kind = " (" + c.CellType + ")"
		}
		switch c.EditMode {
		case "insert":
			v.summary = fmt.Sprintf("NotebookEdit %s: insert a new cell%s after %s", file, kind, cell)
			lines = lineDiff("", c.New)
		case "delete":
			v.summary = fmt.Sprintf("NotebookEdit %s: delete %s", file, cell)
		default:
			v.summary = fmt.Sprintf("NotebookEdit %s: replace %s%s", file, cell, kind)
			lines = lineDiff("", c.New)
		}
	}
	v.summary = visible.Escape(v.summary)
	size := 0
	for i, l := range lines {
		size += len(l.text) + 3
		if i == maxDiffLines || size > maxShownInput {
			v.more = len(lines) - i
			lines = lines[:i]
			break
		}
	}
	for i := range lines {
		lines[i].text = visible.Escape(lines[i].text)
	}
	v.lines = lines
	return v
}

// pathInCheckout is path relative to the checkout when it lies inside it, else the whole
// path and a word that it lies outside.
func pathInCheckout(path, checkout string) string {
	if checkout == "" {
		return path
	}
	abs := path
	if !filepath.IsAbs(abs) {
		abs = filepath.Join(checkout, abs) // as Claude Code, working in the checkout, reads it
	}
	rel, err := filepath.Rel(filepath.Clean(checkout), filepath.Clean(abs))
	if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return path + " (outside the checkout)"
	}
	return rel
}

// writeWhat says whether a Write makes a new file or replaces one, as far as the window
// process can see.
func writeWhat(path string) string {
	_, err := os.Lstat(path)
	switch {
	case err == nil:
		return ": replaces the whole file with"
	case errors.Is(err, fs.ErrNotExist):
		return ": a new file"
	}
	return ""
}

// lineDiff returns the lines of old and new as a change: the lines both have at the start
// and the end kept, the middle compared line by line (or, past maxDiffCells, all old lines
// removed then all new lines added).
func lineDiff(old, new string) []diffLine {
	a, b := splitLines(old), splitLines(new)
	pre := 0
	for pre < len(a) && pre < len(b) && a[pre] == b[pre] {
		pre++
	}
	suf := 0
	for suf < len(a)-pre && suf < len(b)-pre && a[len(a)-1-suf] == b[len(b)-1-suf] {
		suf++
	}
	var out []diffLine
	for _, l := range a[:pre] {
		out = append(out, diffLine{diffContext, l})
	}
	out = append(out, middleDiff(a[pre:len(a)-suf], b[pre:len(b)-suf])...)
	for _, l := range a[len(a)-suf:] {
		out = append(out, diffLine{diffContext, l})
	}
	return out
}

// middleDiff compares a and b by their longest common subsequence of lines.
func middleDiff(a, b []string) []diffLine {
	var out []diffLine
	if len(a)*len(b) > maxDiffCells || len(a) == 0 || len(b) == 0 {
		for _, l := range a {
			out = append(out, diffLine{diffDeleted, l})
		}
		for _, l := range b {
			out = append(out, diffLine{diffAdded, l})
		}
		return out
	}
	// lcs[i][j] is the length of the longest common subsequence of a[i:] and b[j:].
	w := len(b) + 1
	lcs := make([]int32, (len(a)+1)*w)
	for i := len(a) - 1; i >= 0; i-- {
		for j := len(b) - 1; j >= 0; j-- {
			if a[i] == b[j] {
				lcs[i*w+j] = lcs[(i+1)*w+j+1] + 1
			} else {
				lcs[i*w+j] = max(lcs[(i+1)*w+j], lcs[i*w+j+1])
			}
		}
	}
	i, j := 0, 0
	for i < len(a) && j < len(b) {
		switch {
		case a[i] == b[j]:
			out = append(out, diffLine{diffContext, a[i]})
			i, j = i+1, j+1
		case lcs[(i+1)*w+j] >= lcs[i*w+j+1]:
			out = append(out, diffLine{diffDeleted, a[i]})
			i++
		default:
			out = append(out, diffLine{diffAdded, b[j]})
			j++
		}
	}
	for ; i < len(a); i++ {
		out = append(out, diffLine{diffDeleted, a[i]})
	}
	for ; j < len(b); j++ {
		out = append(out, diffLine{diffAdded, b[j]})
	}
	return out
}

// splitLines splits s into lines, without the newline that ends the last one.
func splitLines(s string) []string {
	if s == "" {
		return nil
	}
	return strings.Split(strings.TrimSuffix(s, "\n"), "\n")
}

// diffText renders a change's lines in monospace, removed lines in the theme's error
// colour and added ones in its success colour, each marked "-" or "+" as well.
func diffText(v *changeView) *widget.RichText {
	segs := make([]widget.RichTextSegment, 0, len(v.lines)+1)
	for _, l := range v.lines {
		style := widget.RichTextStyleCodeBlock
		switch l.kind {
		case diffDeleted:
			style.ColorName = theme.ColorNameError
		case diffAdded:
			style.ColorName = theme.ColorNameSuccess
		}
		segs = append(segs, &widget.TextSegment{Text: l.mark() + " " + l.text, Style: style})
	}
	if len(v.lines) == 0 {
		segs = append(segs, &widget.TextSegment{Text: "(no text)", Style: widget.RichTextStyleCodeBlock})
	}
	if v.more > 0 {
		segs = append(segs, &widget.TextSegment{Text: fmt.Sprintf("… %d more lines not shown", v.more),
			Style: widget.RichTextStyle{TextStyle: fyne.TextStyle{Italic: true}}})
	}
	return widget.NewRichText(segs...)
}
