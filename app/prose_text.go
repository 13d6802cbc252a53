package app

import "strings"

// proseWidths are the widths of characters in the theme's regular font, for breaking
// prose (Claude's messages) into lines that fit a width (breakProse).
var proseWidths = &runeWidths{widths: map[runeAtSize]float32{}}

// proseSlack is how much narrower than its room breakProse keeps a line, as a share of the
// room: the font's shaping (kerning) draws a line a little wider or narrower than the sum
// of its characters' widths (TestBrokenProseFitsItsRoom measures it).
const proseSlack = 0.03

// breakProse breaks text into lines that each fit in room when drawn in the regular font
// at size: at spaces where it can, inside a word longer than room otherwise. Its own
// newlines break lines too, and a blank line stays as an empty one; a tab counts as four
// spaces. Fyne's own word wrapping measures a long line over and over and takes seconds
// for a message of a few thousand characters; this measures each character once
// (proseWidths), so it takes milliseconds. A room of 0 or less breaks only at newlines.
func breakProse(text string, room, size float32) []string {
	text = strings.ReplaceAll(strings.ReplaceAll(text, "\r\n", "\n"), "\t", "    ")
	var out []string
	for line := range strings.SplitSeq(text, "\n") {
		if room <= 0 {
			out = append(out, line)
			continue
		}
		out = breakProseLine(out, line, room*(1-proseSlack), size)
	}
	return out
}

// breakProseLine appends to out the pieces of line, one line of text, each no wider than
// room.
func breakProseLine(out []string, line string, room, size float32) []string {
	space := proseWidths.asciiAt(size)[' ']
	if proseWidths.width(line, size) <= room {
		return append(out, line)
	}
	var b strings.Builder
	x := float32(0)
	flush := func() {
		out = append(out, strings.TrimRight(b.String(), " "))
		b.Reset()
		x = 0
	}
	rest, first := line, true
	for rest != "" {
		// The next word and the spaces after it.
		word, spaces := rest, ""
		if i := strings.IndexByte(rest, ' '); i >= 0 {
			word = rest[:i]
			j := i
			for j < len(rest) && rest[j] == ' ' {
				j++
			}
			spaces, rest = rest[i:j], rest[j:]
		} else {
			rest = ""
		}
		w := proseWidths.width(word, size)
		if x > 0 && x+w > room {
			flush()
		}
		if w > room { // a word wider than a line: broken where it must be
			for _, r := range word {
				rw := proseWidths.width(string(r), size)
				if x > 0 && x+rw > room {
					flush()
				}
				b.WriteRune(r)
				x += rw
			}
		} else {
			b.WriteString(word)
			x += w
		}
		if x > 0 || first { // the line's own indent stays; a wrapped line starts at its word
			b.WriteString(spaces)
			x += float32(len(spaces)) * space
		}
		first = false
	}
	if b.Len() > 0 || len(out) == 0 {
		flush()
	}
	return out
}
