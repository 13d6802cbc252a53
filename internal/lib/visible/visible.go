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
//   - the characters that are not drawn but change what a person reads, as \uNNNN (or
//     \UNNNNNNNN past U+FFFF): the bidirectional formatting characters (U+202A to U+202E,
//     U+2066 to U+2069, U+200E, U+200F, U+061C; after U+202E the rest of the line shows
//     backwards), the zero-width ones (U+200B to U+200D, U+2060, U+FEFF), the line and
//     paragraph separators U+2028 and U+2029 (a line break to some readers, none to
//     bash), the tag characters U+E0000 to U+E007F (invisible ASCII look-alikes), and every
//     other character of Unicode's format category (Cf: the soft hyphen, U+2061 to U+2064,
//     ...);
//   - bytes that are not UTF-8, as \xNN.
//
// What it returns holds none of these, so that two texts that read alike are alike.
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
		case invisible(r) && r > 0xffff:
			fmt.Fprintf(&b, `\U%08x`, r)
		case invisible(r):
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
	if r < utf8.RuneSelf { // most of any text: no format character is ASCII
		return r < 0x20 && r != '\n' && r != '\t' || r == 0x7f
	}
	return r == utf8.RuneError || (unicode.IsControl(r) && r != '\n' && r != '\t') || invisible(r)
}

// invisible reports whether r is drawn as nothing (or as a line break by some and not by
// others) yet changes what a text reads as: Unicode's format characters (Cf, which holds
// the bidirectional controls, the zero-width space, joiners and marks, U+FEFF and the tag
// characters), the line and paragraph separators, and the whole tag block U+E0000 to
// U+E007F (its unassigned places too: a later Unicode may give them a meaning).
func invisible(r rune) bool {
	return unicode.Is(unicode.Cf, r) || r == '\u2028' || r == '\u2029' || (r >= 0xe0000 && r <= 0xe007f)
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
