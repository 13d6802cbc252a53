package app

import (
	"strings"
	"testing"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/test"
	"fyne.io/fyne/v2/theme"
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
