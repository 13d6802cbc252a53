package app

import (
	"strings"
	"testing"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/test"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"
)

// Claude's prose broken for a width: every line fits the width as Fyne draws it (shaped,
// not the sum breakProse adds up), the words are all there in order and whole, a word
// wider than a line is broken inside, and newlines and blank lines stay.
func TestBrokenProseFitsItsRoom(t *testing.T) {
	test.NewTempApp(t)
	size := theme.DefaultTheme().Size(theme.SizeNameText)
	text := "Should I also update the README, or leave the docs for a follow-up? I changed " +
		"internal/login/form.go and its tests; AVATAR WAVE Type \"quotes\" and — dashes — keep their kerning. " +
		strings.Repeat("Wrapping measures each character once. ", 20) +
		"\n\nA second paragraph after a blank line.\n    indented code stays indented\n" +
		"https://example.com/" + strings.Repeat("very-long-path-segment/", 12)
	worst := float32(0)
	for _, room := range []float32{120, 300, 555, 900} {
		lines := breakProse(text, room, size)
		for _, l := range lines {
			w := fyne.MeasureText(l, size, fyne.TextStyle{}).Width
			if w > room {
				t.Errorf("at %v: the line %q is %.1f wide", room, l, w)
			}
			if sum := proseWidths.width(l, size); sum > 0 {
				worst = max(worst, w/sum)
			}
		}
		if got, want := strings.Fields(strings.Join(lines, " ")), strings.Fields(text); len(got) < len(want) {
			t.Errorf("at %v: %d words joined back, want at least %d (a broken word counts as two)", room, len(got), len(want))
		}
		if room < 300 {
			continue // narrower than a path: it breaks inside
		}
		joined := " " + strings.Join(strings.Fields(strings.Join(lines, " ")), " ") + " "
		for _, w := range []string{"README,", "follow-up?", "internal/login/form.go", "kerning."} {
			if !strings.Contains(joined, " "+w+" ") {
				t.Errorf("at %v: the word %q is not whole in %q", room, w, lines)
			}
		}
		if !contains(lines, "") || !contains(lines, "    indented code stays indented") {
			t.Errorf("at %v: the blank line or the indent went: %q", room, lines)
		}
	}
	t.Logf("the widest line drawn is %.3f of the sum of its characters' widths (breakProse keeps %.0f%% aside)", worst, proseSlack*100)
}

func contains(lines []string, s string) bool {
	for _, l := range lines {
		if l == s {
			return true
		}
	}
	return false
}

// Breaking a message of 2,000 characters for a width takes a small part of what Fyne's own
// word wrapping of a label takes for it: Fyne measures the line over and over (its time
// grows with the square of the length: 8,000 characters took about 8 s), breakProse each
// character once. The figures are printed for the README.
func TestBrokenProseIsFasterThanFynesWrapping(t *testing.T) {
	a := test.NewTempApp(t)
	text := strings.Repeat("Should I also update the README and the docs? ", 44)[:2000]
	size := theme.DefaultTheme().Size(theme.SizeNameText)

	w := a.NewWindow("wrap")
	defer w.Close()
	l := widget.NewLabel("")
	l.Wrapping = fyne.TextWrapWord
	w.SetContent(container.NewVScroll(l))
	w.Resize(fyne.NewSize(800, 600))
	start := time.Now()
	l.SetText(text)
	l.Refresh()
	w.Content().Refresh()
	_ = l.MinSize()
	fyneTook := time.Since(start)

	proseWidths.width(" ", size) // the characters' widths, measured once for the process
	start = time.Now()
	for range 10 {
		breakProse(text, 780, size)
		breakProse(text, 640, size)
	}
	oursTook := time.Since(start) / 20
	t.Logf("a message of %d characters: Fyne's wrapping of a label took %v, breakProse %v", len(text), fyneTook.Round(time.Millisecond), oursTook.Round(time.Microsecond))
	if oursTook*20 > fyneTook {
		t.Errorf("breakProse took %v, Fyne's wrapping %v: want it at most a twentieth", oursTook, fyneTook)
	}
}
