package redact

import (
	"bytes"
	"strings"
)

// This file holds segwi's own secret shapes since its start: GitHub tokens, Anthropic
// keys, Authorization headers, bearer tokens and PEM private keys, and the byte classes
// the finders share. credentials.go holds the shapes added after an attack found them
// leaking. Redactor.find calls a finder when its keywords (matcher.go) are in the text.

func isAlnum(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
}

func isTokenWordByte(c byte) bool { return isAlnum(c) || c == '_' }

func isKeyByte(c byte) bool { return isAlnum(c) || c == '_' || c == '-' }

// isCredentialByte says whether c may be part of a bearer token or similar credential
// (RFC 6750's b64token plus a few that tokens use in practice). It excludes quotes,
// backslashes and spaces, so a match never leaves a JSON string.
func isCredentialByte(c byte) bool {
	return isAlnum(c) || strings.IndexByte("-._~+/=:%", c) >= 0
}

// run returns the end of the run of bytes satisfying ok that starts at i.
func run(b []byte, i int, ok func(byte) bool) int {
	for i < len(b) && ok(b[i]) {
		i++
	}
	return i
}

// findGitHub finds GitHub tokens: gh[pousr]_ followed by at least 20 letters and digits
// (real ones have 36).
func findGitHub(b []byte, spans []span) []span {
	for off := 0; ; {
		i := bytes.Index(b[off:], []byte("gh"))
		if i < 0 {
			return spans
		}
		start := off + i
		off = start + 2
		if start+4 > len(b) || strings.IndexByte("pousr", b[start+2]) < 0 || b[start+3] != '_' {
			continue
		}
		end := run(b, start+4, isAlnum)
		if end-(start+4) >= 20 {
			spans = append(spans, masked(start, end))
			off = end
		}
	}
}

// findPrefixed finds prefix followed by at least min bytes that satisfy ok. It looks for
// prefix[at:] and checks prefix[:at] before it: a rarer byte to look for makes the scan
// faster ('_' is rarer than 'g' in a run's output).
func findPrefixed(b, prefix []byte, at int, ok func(byte) bool, min int, spans []span) []span {
	anchor := prefix[at:]
	for off := at; off < len(b); {
		i := bytes.Index(b[off:], anchor)
		if i < 0 {
			return spans
		}
		start := off + i - at
		off = start + len(prefix)
		if !bytes.Equal(b[start:start+at], prefix[:at]) {
			continue
		}
		if end := run(b, off, ok); end-off >= min {
			spans = append(spans, masked(start, end))
			off = end
		}
	}
	return spans
}

// indexFold calls yield with the index of each match of word in b, its first letter in
// either case and the rest all lower or all upper case; word must be lower case. It
// looks for word[at:] (at >= 1), a part of the word with rarer letters, and checks the
// rest of the word before it.
func indexFold(b []byte, word string, at int, yield func(int)) {
	for _, w := range []string{word, strings.ToUpper(word)} {
		anchor, before := []byte(w[at:]), w[1:at]
		for off := at; off < len(b); {
			i := bytes.Index(b[off:], anchor)
			if i < 0 {
				break
			}
			start := off + i - at
			off = off + i + 1
			if b[start]|0x20 == word[0] && string(b[start+1:start+at]) == before {
				yield(start)
			}
		}
	}
}

// findAuthorization masks the credentials of an Authorization header in any of the forms
// it shows up in: `Authorization: Bearer X`, `"Authorization":"Basic X"`, `authorization=X`,
// and Go's dump of an http.Header, `map[Authorization:[Basic X]]`. A scheme word (Bearer,
// Basic, token, ...) is kept; what follows it is masked.
func findAuthorization(b []byte, spans []span) []span {
	indexFold(b, "authorization", len("authori"), func(start int) {
		i := start + len("authorization")
		// A backslash too: in a stream-json line, a JSON document the agent read or wrote
		// sits inside a JSON string, its quotes escaped (\"Authorization\": \"Basic X\").
		i = skip(b, i, "\\\"' \t")
		if i >= len(b) || (b[i] != ':' && b[i] != '=') {
			return
		}
		i = skip(b, i+1, "\\\"' \t")
		if i < len(b) && b[i] == '[' { // a header's values, as Go prints them
			i++
		}
		end := run(b, i, isCredentialByte)
		if end == i {
			return
		}
		// A scheme word followed by a space: keep it, mask what follows.
		if end < len(b) && (b[end] == ' ' || b[end] == '\t') && isScheme(b[i:end]) {
			i = skip(b, end, " \t")
			end = run(b, i, isCredentialByte)
			if end == i {
				return
			}
		}
		spans = append(spans, span{ctx: start, start: i, end: end, mask: Mask})
	})
	return spans
}

func isScheme(w []byte) bool {
	for _, c := range w {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z') {
			return false
		}
	}
	return len(w) > 0
}

func skip(b []byte, i int, set string) int {
	for i < len(b) && strings.IndexByte(set, b[i]) >= 0 {
		i++
	}
	return i
}

// findBearer masks what follows the word "bearer" when it looks like a token: at least
// 16 credential bytes with a digit or a symbol in them, so that prose ("bearer tokens are
// checked") is left alone.
func findBearer(b []byte, spans []span) []span {
	indexFold(b, "bearer", 1, func(start int) {
		i := start + len("bearer")
		j := skip(b, i, " \t")
		if j == i {
			return
		}
		end := run(b, j, isCredentialByte)
		if end-j < 16 {
			return
		}
		tok := b[j:end]
		if bytes.IndexFunc(tok, func(r rune) bool { return r < 'A' || r > 'z' || (r > 'Z' && r < 'a') }) < 0 {
			return // letters only: a word, not a token
		}
		spans = append(spans, span{ctx: start, start: j, end: end, mask: Mask})
	})
	return spans
}

var (
	pemBegin = []byte("-----BEGIN ")
	pemEnd   = []byte("-----END ")
	pemKey   = []byte("PRIVATE KEY")
)

// keyMark returns the end of the "PRIVATE KEY-----" or "PRIVATE KEY BLOCK-----" (PGP)
// that ends a private key block's BEGIN or END line, if b's first 64 bytes hold it.
func keyMark(b []byte) (int, bool) {
	for off := 0; off < len(b) && off <= 64; {
		i := bytes.Index(b[off:], pemKey)
		if i < 0 || off+i > 64 {
			return 0, false
		}
		end := off + i + len(pemKey)
		switch rest := b[end:]; {
		case bytes.HasPrefix(rest, []byte("-----")):
			return end + 5, true
		case bytes.HasPrefix(rest, []byte(" BLOCK-----")):
			return end + 11, true
		}
		off = end
	}
	return 0, false
}

// findPrivateKeys masks PEM and PGP private key blocks. inKey says that b starts inside a
// block opened earlier (see Lines). It returns whether b ends inside a block that is
// still open. A block never extends past a quote (key material has none), so a key inside
// a JSON string is masked without breaking the JSON; an unterminated block is masked up
// to the quote, or to the end of b (a newline ending b kept), where it stays open.
func findPrivateKeys(b []byte, inKey bool, spans []span) ([]span, bool) {
	off := 0
	for {
		start := off
		if !inKey {
			i := bytes.Index(b[off:], pemBegin)
			if i < 0 {
				return spans, false
			}
			start = off + i
			// The header must be "-----BEGIN <WORDS> PRIVATE KEY-----" on one line.
			hdrEnd, ok := keyMark(b[start:])
			if nl := bytes.IndexAny(b[start:], "\n\""); !ok || nl >= 0 && nl < hdrEnd {
				off = start + len(pemBegin)
				continue
			}
		}
		inKey = false
		limit := len(b)
		if q := bytes.IndexByte(b[start:], '"'); q >= 0 {
			limit = start + q
		}
		end := -1
		if i := bytes.Index(b[start:limit], pemEnd); i >= 0 {
			endHdr := start + i
			if j, ok := keyMark(b[endHdr:limit]); ok {
				end = endHdr + j
			}
		}
		if end < 0 {
			// Unterminated here: masked to the quote that closes the string it is in, or
			// to the end, where it stays open.
			if limit < len(b) {
				spans = append(spans, span{ctx: start, start: start, end: limit, mask: maskKey})
				off = limit
				continue
			}
			stop := limit
			if stop > start && b[stop-1] == '\n' {
				stop--
				if stop > start && b[stop-1] == '\r' {
					stop--
				}
			}
			return append(spans, span{ctx: start, start: start, end: stop, mask: maskKey}), true
		}
		spans = append(spans, span{ctx: start, start: start, end: end, mask: maskKey})
		off = end
	}
}
