package app

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/canvas"
	"fyne.io/fyne/v2/test"
)

// shownRows are the rows of text a wrappedText draws, in order, as its renderer laid them
// out.
func shownRows(w *wrappedText) []*canvas.Text {
	var rows []*canvas.Text
	for _, o := range test.LaidOutObjects(w.rich) {
		if t, ok := o.(*canvas.Text); ok && o.Visible() {
			rows = append(rows, t)
		}
	}
	return rows
}

// shownText is the text a wrappedText draws, its broken lines joined again: a row ending
// in wrapMark goes on in the next, after the indent of its mark.
func shownText(t *testing.T, w *wrappedText) string {
	t.Helper()
	var b strings.Builder
	indent := ""
	ui(func() {
		for i, row := range shownRows(w) {
			text := strings.TrimPrefix(row.Text, indent)
			if piece, broken := strings.CutSuffix(text, wrapMark); broken {
				b.WriteString(piece)
				indent = strings.Repeat(" ", len([]rune(w.lines[0].mark)))
				continue
			}
			indent = ""
			b.WriteString(text)
			if i < len(shownRows(w))-1 {
				b.WriteString("\n")
			}
		}
	})
	return b.String()
}

// assertEveryCharacterInView checks that every row w draws lies, from its first character
// to its last, within the width of w's view and of win: nothing is off an edge.
func assertEveryCharacterInView(t *testing.T, win fyne.Window, w *wrappedText) {
	t.Helper()
	ui(func() {
		drv := fyne.CurrentApp().Driver()
		view := drv.AbsolutePositionForObject(w.scroll)
		right := min(view.X+w.scroll.Size().Width, win.Canvas().Size().Width)
		rows := shownRows(w)
		if len(rows) == 0 {
			t.Error("the view draws no text")
		}
		for _, row := range rows {
			at := drv.AbsolutePositionForObject(row)
			end := at.X + fyne.MeasureText(row.Text, row.TextSize, row.TextStyle).Width
			if at.X < view.X || end > right {
				t.Errorf("the row %q lies from x %.1f to %.1f, outside the view's %.1f to %.1f", row.Text, at.X, end, view.X, right)
				return
			}
		}
	})
}

// A command of 300 characters in a popup: every character lies within the visible area,
// in the command, its JSON and a change's lines, at the popup's default size and after a
// resize, wider and narrower. The popup once broke lines at 72 columns where its view
// showed about 60 at its default size, so "not-ex" of
// rm -rf build-cache-that-does-not-exist-but-… was never on screen.
func TestEveryCharacterOfALongLineLiesWithinThePopup(t *testing.T) {
	var words []string
	for i := 0; len(strings.Join(words, "-")) < 290; i++ {
		words = append(words, fmt.Sprintf("w%02d", i))
	}
	command := "rm -rf build-cache-that-does-not-exist-but-" + strings.Join(words, "-")
	command = command[:300]
	for _, tt := range []struct {
		name string
		req  func() (req, want string, tool string)
	}{
		{"a command", func() (string, string, string) {
			return string(popupJSON(t, map[string]string{"command": command})), command, "Bash"
		}},
		{"a change's lines", func() (string, string, string) {
			return string(popupJSON(t, map[string]string{"file_path": "/home/ada/src/web/a.sh", "content": command})), "+ " + command, "Write"
		}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			h := newPopupHarness(t)
			input, want, tool := tt.req()
			req := bashRequest("b1")
			req.ToolName, req.Input = tool, json.RawMessage(input)
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			p, done := h.decide(ctx, req)
			check := func(when string) {
				t.Helper()
				if got := shownText(t, p.panel.main); got != want {
					t.Errorf("%s: the view shows %q, want %q", when, got, want)
				}
				assertEveryCharacterInView(t, p.win, p.panel.main)
				test.Tap(p.panel.showJSON)
				if got := shownText(t, p.panel.json); got != p.view.JSON {
					t.Errorf("%s: the JSON view shows %q, want %q", when, got, p.view.JSON)
				}
				assertEveryCharacterInView(t, p.win, p.panel.json)
				test.Tap(p.panel.showJSON)
			}
			var size fyne.Size
			ui(func() { size = p.win.Canvas().Size() })
			check(fmt.Sprintf("at the default size %v", size))
			for _, s := range []fyne.Size{size.AddWidthHeight(300, 100), size.AddWidthHeight(80, 0)} {
				ui(func() { p.win.Resize(s) })
				check(fmt.Sprintf("resized to %v", s))
			}
			cancel()
			decideResult(t, done)
		})
	}
}

// Breaking lines itself, a popup stays quick with the largest input it shows whole: 64 KiB
// on one line, and 64 KiB of short lines, opened and then resized.
func TestWrappedTextKeepsALargeInputResponsive(t *testing.T) {
	oneLine := strings.Repeat("QUJDREVGR0hJSktMTU5PUFFSU1RVVldYWVo", (64<<10)/35)
	manyLines := strings.Repeat("echo a line of a script &&\n", (64<<10)/27)
	for _, tt := range []struct{ name, command string }{{"one line", oneLine}, {"many lines", manyLines}} {
		t.Run(tt.name, func(t *testing.T) {
			h := newPopupHarness(t)
			req := bashRequest("b1")
			req.Input = popupJSON(t, map[string]string{"command": tt.command})
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			start := time.Now()
			p, done := h.decide(ctx, req)
			opened := time.Since(start)
			start = time.Now()
			ui(func() { p.win.Resize(fyne.NewSize(900, 600)) })
			resized := time.Since(start)
			t.Logf("a popup with a %d KiB command on %s opened in %v and broke it again for a resize in %v",
				len(tt.command)>>10, tt.name, opened.Round(time.Millisecond), resized.Round(time.Millisecond))
			// Measured at 50 to 100 ms each on two busy cores; the old popup took 0.3 s to open
			// one line of 60 KB, and Fyne's own wrapping minutes.
			if opened > 2*time.Second || resized > time.Second {
				t.Errorf("opened in %v and resized in %v; want it to open within 2 s and resize within 1 s", opened, resized)
			}
			if p.panel.main.breaks < 2 {
				t.Errorf("the lines were broken %d times, want again after the resize", p.panel.main.breaks)
			}
			cancel()
			decideResult(t, done)
		})
	}
}

// A break reads only as a break: the mark in the text itself is shown as an escape, and a
// line of a change goes on under its own text, after its mark's width.
func TestBreakLine(t *testing.T) {
	size := float32(14)
	test.NewTempApp(t) // measures the theme's monospace font
	space := monoWidths.of(' ', size)
	mark := monoWidths.of([]rune(wrapMark)[0], size)
	room := 4*space + mark // four characters and a mark
	for _, tt := range []struct {
		name, mark, text string
		want             []string
	}{
		{"a short line is kept", "", "ls", []string{"ls"}},
		{"a long line breaks, each piece but the last marked", "", "abcdefghij", []string{"abcd↩", "efgh↩", "ij"}},
		{"a line of a change goes on under its text", "+ ", "abcdefgh", []string{"+ ab↩", "  cd↩", "  ef↩", "  gh"}},
		{"a piece holds at least one character", "", "漢字漢字", nil},
	} {
		t.Run(tt.name, func(t *testing.T) {
			got := breakLine(tt.mark, tt.text, room, size)
			if tt.want == nil {
				if strings.Join(got, "") == "" || strings.ReplaceAll(strings.Join(got, ""), wrapMark, "") != tt.text {
					t.Errorf("breakLine(%q) = %q, want the text in pieces", tt.text, got)
				}
				return
			}
			if strings.Join(got, "|") != strings.Join(tt.want, "|") {
				t.Errorf("breakLine(%q, %q) = %q, want %q", tt.mark, tt.text, got, tt.want)
			}
		})
	}
	w := newWrappedText([]wrapLine{{text: "a↩b"}}, fyne.NewSize(100, 100))
	if got := w.text(); got != `a\u21a9b` {
		t.Errorf("a wrapMark in the text shows as %q, want it escaped", got)
	}
}

// Every printable ASCII character of the monospace font is as wide as a space: breakLine
// counts on it to break a diff's lines without measuring each character.
func TestTheMonospaceFontDrawsASCIIAtOneWidth(t *testing.T) {
	test.NewTempApp(t)
	for _, size := range []float32{12, 14} {
		space := fyne.MeasureText(" ", size, fyne.TextStyle{Monospace: true}).Width
		for r := ' '; r <= '~'; r++ {
			if w := fyne.MeasureText(string(r), size, fyne.TextStyle{Monospace: true}).Width; w != space {
				t.Errorf("at size %v %q is %v wide, a space %v", size, r, w, space)
			}
		}
	}
}
