package visible

import "encoding/binary"

// StripTerminal returns b without the terminal's control sequences and control
// characters, as text to show and record rather than to drive a terminal:
//   - CSI sequences (ESC [ ... final byte): cursor moves, colours, ESC[?25h and the like;
//   - OSC, DCS, APC, PM and SOS strings (ESC ] ... up to BEL or ESC \): window titles,
//     hyperlinks;
//   - the other escape sequences (ESC, intermediate bytes, a final byte: ESC(B, ESC=, ESC7);
//   - control characters other than tab and newline (carriage return, backspace, BEL, a
//     lone ESC).
//
// Everything else, bytes that are not UTF-8 included, is kept. It returns b itself when
// there is nothing to strip, and a new slice otherwise; b is never modified. What it
// returns may join text that a sequence parted: redact after stripping, not only before.
func StripTerminal(b []byte) []byte {
	i := firstControl(b)
	if i == len(b) {
		return b
	}
	out := make([]byte, i, len(b))
	copy(out, b[:i])
	for i < len(b) {
		c := b[i]
		switch {
		case c == 0x1b:
			i = skipEscape(b, i)
		case isControl(c):
			i++
		default:
			out = append(out, c)
			i++
		}
	}
	return out
}

// isControl says whether c is a control byte StripTerminal drops: C0 but tab and newline,
// and DEL.
func isControl(c byte) bool { return (c < 0x20 && c != '\t' && c != '\n') || c == 0x7f }

// firstControl returns the index of b's first control byte (isControl), or len(b). Most
// lines hold none (a line of stream-json has its control characters escaped): it looks at
// eight bytes at a time, and at each byte only of the words that may hold one.
func firstControl(b []byte) int {
	const ones, highs = 0x0101010101010101, 0x8080808080808080
	i := 0
	for ; i+8 <= len(b); i += 8 {
		x := binary.LittleEndian.Uint64(b[i:])
		del := x ^ 0x7f*ones // a zero byte where x has DEL
		// Whether a byte of x is below 0x20, or of del zero: exact for the word as a whole.
		if (x-0x20*ones)&^x&highs == 0 && (del-ones)&^del&highs == 0 {
			continue
		}
		for j := i; j < i+8; j++ {
			if isControl(b[j]) {
				return j
			}
		}
	}
	for ; i < len(b); i++ {
		if isControl(b[i]) {
			return i
		}
	}
	return len(b)
}

// skipEscape returns the index just past the escape sequence that starts at b[i], an ESC.
// A sequence cut short by the end of b ends there.
func skipEscape(b []byte, i int) int {
	i++ // the ESC
	if i == len(b) {
		return i
	}
	switch b[i] {
	case '[': // CSI: parameter bytes, intermediate bytes, one final byte
		i++
		for i < len(b) && b[i] >= 0x20 && b[i] <= 0x3f {
			i++
		}
		if i < len(b) && b[i] >= 0x40 && b[i] <= 0x7e {
			i++
		}
		return i
	case ']', 'P', '_', '^', 'X': // a string, ended by BEL or ST (ESC \)
		i++
		for i < len(b) {
			switch {
			case b[i] == 0x07:
				return i + 1
			case b[i] == 0x1b && i+1 < len(b) && b[i+1] == '\\':
				return i + 2
			case b[i] == 0x1b || b[i] == '\n':
				return i // not ended: the string stops where another sequence or line begins
			}
			i++
		}
		return i
	}
	for i < len(b) && b[i] >= 0x20 && b[i] <= 0x2f { // intermediate bytes
		i++
	}
	if i < len(b) && b[i] >= 0x30 && b[i] <= 0x7e {
		i++
	}
	return i
}
