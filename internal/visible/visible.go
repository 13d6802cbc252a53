// Package visible makes text safe to show a person, on a terminal or in a window: the
// characters that would act on the display, or change how the text around them reads,
// are shown as escapes instead. segwi shows approval requests through it, so that what a
// person approves is what they read.
package visible

import (
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Escape returns s with these written as escapes, and everything else as it is:
//   - control characters other than newline and tab, as \xNN: an escape sequence would
//     drive the terminal, a carriage return would let the rest of a line overwrite it;
//   - the bidirectional formatting characters (U+202A to U+202E, U+2066 to U+2069, U+200E,
//     U+200F and U+061C), as \uNNNN: they reorder what a person reads (after U+202E the
//     rest of the line shows backwards);
//   - bytes that are not UTF-8, as \xNN.
func Escape(s string) string {
	i := strings.IndexFunc(s, hidden)
	if i < 0 {
		return s
	}
	var b strings.Builder
	b.Grow(len(s) + 16)
	b.WriteString(s[:i])
	for i < len(s) {
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			fmt.Fprintf(&b, `\x%02x`, s[i])
		case unicode.IsControl(r) && r != '\n' && r != '\t':
			fmt.Fprintf(&b, `\x%02x`, r)
		case unicode.Is(unicode.Bidi_Control, r):
			fmt.Fprintf(&b, `\u%04x`, r)
		default:
			b.WriteString(s[i : i+size])
		}
		i += size
	}
	return b.String()
}

// hidden reports whether Escape writes r as an escape (utf8.RuneError stands for a byte
// that is not UTF-8, as strings.IndexFunc passes it).
func hidden(r rune) bool {
	return r == utf8.RuneError || (unicode.IsControl(r) && r != '\n' && r != '\t') || unicode.Is(unicode.Bidi_Control, r)
}

// FirstLine is the first line of s, trimmed and cut to at most limit runes, with an
// ellipsis when anything was left out: a one-line summary for a list, a notification or a
// window's header. It escapes nothing: pass what it returns through Escape to show it.
func FirstLine(s string, limit int) string {
	s = strings.TrimSpace(s)
	more := false
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		s, more = strings.TrimSpace(s[:i]), true
	}
	if utf8.RuneCountInString(s) > limit {
		s, more = string([]rune(s)[:limit]), true
	}
	if more {
		s += "…"
	}
	return s
}
