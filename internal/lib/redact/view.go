package redact

import "unicode/utf8"

// This file holds the text the rules read when it is not the input itself: the input with
// its JSON string escapes undone and its terminal sequences dropped. A JSON string may
// write '/' as \/ and any character as \uXXXX, and a JSON document printed inside another
// doubles the backslashes (https:\\\/\\\/u:pw@host in a stream-json line); a terminal's
// colour sequences part a token that grep --color=always or a test runner highlighted
// (ghp_AB\x1b[01;31mCD…, or \u001b[01;31m once in JSON); and the rules, gitleaks' and
// segwi's, read a secret's end at a quote or a space, not at \" or \t.
//
// A view maps each of its bytes back to the input, so that a secret found in it is masked
// in the input, whole escapes and all: the output keeps the input's other bytes, and a
// JSON line stays valid JSON.

// view is a text as the rules read it.
type view struct {
	text    []byte
	src     []byte // the input, when text is decoded from it; nil: text is the input
	marks   []mark // places to resume decoding at, every markEvery bytes of text or so
	dropped bool   // a terminal sequence was dropped
	buf     []byte
}

// mark says that decoding the input from src on writes text from at on.
type mark struct{ at, src int }

// markEvery bounds how far srcStart and srcEnd decode again to map a byte back.
const markEvery = 4096

// reset makes v read b as it is.
func (v *view) reset(b []byte) {
	v.text, v.src, v.marks, v.dropped = b, nil, v.marks[:0], false
}

// decodeScan makes v read b with its escapes undone, and appends to hits the occurrences
// of k's keywords in what v reads, as k.scan(v.text) would: decoding and scanning in one
// pass over b. It records no map from the text back to b but marks to decode again from:
// a secret is rare, mapping one back costs a few microseconds.
func (v *view) decodeScan(b []byte, k *keywords, hits []hit) []hit {
	v.src, v.marks, v.dropped = b, v.marks[:0], false
	if cap(v.buf) < len(b) {
		v.buf = make([]byte, len(b)) // what is decoded is never longer
	}
	out := v.buf[:len(b)]
	var s uint32
	i, j := 0, 0 // bytes of b read, of out written
	next := 0    // where the next mark goes
	for i < len(b) {
		if j >= next {
			v.marks = append(v.marks, mark{at: j, src: i})
			next = j + markEvery
		}
		n, w, state, ended := k.walkCopy(b[i:], out[j:], s)
		i, j, s = i+n, j+w, state
		switch {
		case ended:
			hits = k.appendEnds(hits, s, j)
		case i < len(b):
			i, j, s, hits = v.decodeOne(b, i, out, j, k, s, hits)
		}
	}
	v.text = out[:j]
	return hits
}

// locate returns where in the input the character at text[p] is: input[from:to].
func (v *view) locate(p int) (from, to int) {
	if v.src == nil {
		return p, p + 1
	}
	m := v.marks[0]
	for lo, hi := 1, len(v.marks); lo < hi; {
		mid := (lo + hi) / 2
		if v.marks[mid].at <= p {
			m, lo = v.marks[mid], mid+1
		} else {
			hi = mid
		}
	}
	b := v.src
	for i, j := m.src, m.at; i < len(b); {
		c := b[i]
		if c != '\\' && c != 0x1b {
			if j == p {
				return i, i + 1
			}
			i, j = i+1, j+1
			continue
		}
		r, size := unit(b, i)
		if r == 0x1b {
			i = skipTerminal(b, i)
			continue
		}
		n := utf8.RuneLen(r)
		if p < j+n {
			return i, i + size
		}
		i, j = i+size, j+n
	}
	return len(b), len(b)
}

// srcStart returns where in the input the character at text[p] begins.
func (v *view) srcStart(p int) int {
	from, _ := v.locate(p)
	return from
}

// srcEnd returns where in the input the character at text[p-1] ends.
func (v *view) srcEnd(p int) int {
	if p == 0 {
		return v.srcStart(0)
	}
	_, to := v.locate(p - 1)
	return to
}

// simpleEscape is what a backslash followed by a byte stands for in a JSON string, for
// the escapes of two bytes but \\ (a run of backslashes goes to decodeOne).
var simpleEscape = [256]byte{'"': '"', '/': '/', 'n': '\n', 't': '\t', 'r': '\r', 'b': '\b', 'f': '\f'}

// decodeOne reads the escape or terminal sequence at b[i] for decodeScan: it writes what it
// stands for to out[j:] and feeds that to k from state s, records the seg, and returns
// where reading and writing go on and the state.
//
//go:noinline
func (v *view) decodeOne(b []byte, i int, out []byte, j int, k *keywords, s uint32, hits []hit) (int, int, uint32, []hit) {
	r, size := unit(b, i)
	if r == 0x1b {
		v.dropped = true
		return skipTerminal(b, i), j, s, hits
	}
	at := j
	j += utf8.EncodeRune(out[j:], r)
	for p := at; p < j; p++ {
		if s = k.next[s+uint32(k.class[out[p]])]; s >= k.matchAt {
			hits = k.appendEnds(hits, s, p+1)
		}
	}
	return i + size, j, s, hits
}

// decode makes v read b with its escapes undone.
func (v *view) decode(b []byte) {
	v.decodeScan(b, noKeywords, nil)
}

// noKeywords is an automaton that finds nothing.
var noKeywords = newKeywords(nil)

// unit returns the character at b[i] and how many bytes of b stand for it: a byte, or a
// JSON escape (\" \/ \b \f \n \r \t \uXXXX, a surrogate pair read as one) behind any
// number of backslashes, as a JSON string in a JSON string writes it. Other bytes, other
// backslashes included, are units of one byte.
func unit(b []byte, i int) (rune, int) {
	if b[i] != '\\' {
		return rune(b[i]), 1
	}
	j := i
	for j < len(b) && b[j] == '\\' {
		j++
	}
	if j == len(b) {
		return '\\', 1
	}
	switch b[j] {
	case '"', '/':
		return rune(b[j]), j + 1 - i
	case 'n':
		return '\n', j + 1 - i
	case 't':
		return '\t', j + 1 - i
	case 'r':
		return '\r', j + 1 - i
	case 'b':
		return '\b', j + 1 - i
	case 'f':
		return '\f', j + 1 - i
	case 'u':
		r, ok := hex4(b, j+1)
		if !ok {
			return '\\', 1
		}
		end := j + 5
		if r >= 0xd800 && r < 0xdc00 { // a high surrogate: read the low one that follows
			k := end
			for k < len(b) && b[k] == '\\' {
				k++
			}
			if k > end && k < len(b) && b[k] == 'u' {
				if lo, ok := hex4(b, k+1); ok && lo >= 0xdc00 && lo < 0xe000 {
					return 0x10000 + (r-0xd800)<<10 + (lo - 0xdc00), k + 5 - i
				}
			}
		}
		return r, end - i
	}
	return '\\', 1
}

func hex4(b []byte, i int) (rune, bool) {
	if i+4 > len(b) {
		return 0, false
	}
	var r rune
	for _, c := range b[i : i+4] {
		var d byte
		switch {
		case c >= '0' && c <= '9':
			d = c - '0'
		case c|0x20 >= 'a' && c|0x20 <= 'f':
			d = c | 0x20 - 'a' + 10
		default:
			return 0, false
		}
		r = r<<4 | rune(d)
	}
	return r, true
}

// skipTerminal returns the index just past the terminal sequence that starts at b[i] (an
// ESC, raw or escaped). It reads the sequence as visible.StripTerminal does (CSI, OSC and
// the other strings ended by BEL or ST, two- and three-byte sequences), each of its
// characters possibly escaped (\u0007 ends an OSC string in a JSON line).
func skipTerminal(b []byte, i int) int {
	_, size := unit(b, i)
	i += size // the ESC
	if i == len(b) {
		return i
	}
	c, size := unit(b, i)
	switch c {
	case '[': // CSI: parameter bytes, intermediate bytes, one final byte
		i += size
		for i < len(b) {
			c, size := unit(b, i)
			if c < 0x20 || c > 0x3f {
				if c >= 0x40 && c <= 0x7e {
					i += size
				}
				return i
			}
			i += size
		}
		return i
	case ']', 'P', '_', '^', 'X': // a string, ended by BEL or ST (ESC \)
		i += size
		for i < len(b) {
			c, size := unit(b, i)
			switch {
			case c == 0x07:
				return i + size
			case c == 0x1b:
				// ST is ESC \, its backslash escaped once in JSON (\u001b\\).
				if j := i + size; j < len(b) && b[j] == '\\' {
					if j+1 < len(b) && b[j+1] == '\\' {
						return j + 2
					}
					return j + 1
				}
				return i
			case c == '\n':
				return i
			}
			i += size
		}
		return i
	}
	for i < len(b) { // intermediate bytes
		c, size := unit(b, i)
		if c < 0x20 || c > 0x2f {
			break
		}
		i += size
	}
	if i < len(b) {
		if c, size := unit(b, i); c >= 0x30 && c <= 0x7e {
			i += size
		}
	}
	return i
}
