package redact

import (
	"bytes"
	"strings"
)

// This file holds the shapes an attack on segwi found leaking (issue 10): AWS secret
// access keys, passwords in URLs, Slack tokens and JSON Web Tokens. Each finder looks for
// a literal anchor with bytes.Index and checks the bytes around it; none lets a match
// extend over a quote or a backslash, so JSON stays valid.

// isBase64URL says whether c is in the base64url alphabet (RFC 4648 §5), a JWT's.
func isBase64URL(c byte) bool { return isAlnum(c) || c == '-' || c == '_' }

// awsSecretName is what a key name holding an AWS secret access key ends with, once
// lower-cased and stripped of '_' and '-': aws_secret_access_key, AWS_SECRET_ACCESS_KEY,
// SecretAccessKey, secretAccessKey, aws-secret-access-key.
const awsSecretName = "secretaccesskey"

// findAWSSecretKeys masks the value given to a key name that ends in secret access key
// (see awsSecretName): after '=' or ':' (quotes, spaces and backslashes around them
// allowed, as in `"SecretAccessKey": "X"` or `AWS_SECRET_ACCESS_KEY=X`), a value of at
// least 16 credential bytes; after a space only, a value of exactly 40 base64 bytes, as
// `aws configure set aws_secret_access_key X` takes it. A secret key printed with no key
// name is plain base64 and is not recognised.
func findAWSSecretKeys(b []byte, spans []span) []span {
	// "ccess" is in every spelling: secret_access_key, SecretAccessKey, SECRET_ACCESS_KEY.
	for _, anchor := range [][]byte{[]byte("ccess"), []byte("CCESS")} {
		for off := 0; ; {
			i := bytes.Index(b[off:], anchor)
			if i < 0 {
				break
			}
			i += off
			right := run(b, i, isKeyByte)
			off = right
			left := i
			for left > 0 && isKeyByte(b[left-1]) {
				left--
			}
			if !endsWithName(b[left:right], awsSecretName) {
				continue
			}
			if sp, ok := valueAfterName(b, left, right); ok {
				spans = append(spans, sp)
				off = sp.end
			}
		}
	}
	return spans
}

// endsWithName says whether ident, lower-cased and without '_' and '-', ends with name.
func endsWithName(ident []byte, name string) bool {
	n := len(name)
	for i := len(ident) - 1; i >= 0 && n > 0; i-- {
		c := ident[i]
		if c == '_' || c == '-' {
			continue
		}
		if c|0x20 != name[n-1] {
			return false
		}
		n--
	}
	return n == 0
}

// valueAfterName returns the span of the secret value that follows the key name
// b[nameStart:nameEnd], if there is one.
func valueAfterName(b []byte, nameStart, nameEnd int) (span, bool) {
	i := skip(b, nameEnd, "\\\"' \t")
	assigned := i < len(b) && (b[i] == ':' || b[i] == '=')
	if assigned {
		i++
		if i < len(b) && b[i] == '>' { // "key" => "value"
			i++
		}
	} else if i == nameEnd {
		return span{}, false // the name runs into something else
	}
	i = skip(b, i, "\\\"' \t")
	end := run(b, i, isCredentialByte)
	switch {
	case assigned && end-i >= 16:
	case !assigned && end-i == 40 && run(b, i, isBase64Std) == end:
	default:
		return span{}, false
	}
	return span{ctx: nameStart, start: i, end: end, mask: Mask}, true
}

func isBase64Std(c byte) bool { return isAlnum(c) || c == '+' || c == '/' }

// isURLEnd says whether c ends a URL: a space or control byte, a quote, a backslash or a
// bracket.
func isURLEnd(c byte) bool {
	return c <= ' ' || c == 0x7f || strings.IndexByte("\\\"'<>`", c) >= 0
}

// isPathStart says whether c begins a URL's path, query or fragment.
func isPathStart(c byte) bool { return c == '/' || c == '?' || c == '#' }

func isSchemeByte(c byte) bool { return isAlnum(c) || c == '+' || c == '.' || c == '-' }

// findURLCredentials masks the credentials in URLs: the password of
// scheme://user:password@host (the user is kept, as git shows it), and a user with no
// password that looks like a token (scheme://TOKEN@host: at least 20 letters, digits, '-'
// and '_', with both letters and digits). It is the one home of URL credential redaction;
// code that shows URLs passes them through a Redactor.
//
// A password may hold '/', '?' and '#', which RFC 3986 wants percent-encoded but people
// and programs write as they are (https://u:pa/ss@host): the userinfo ends at the last
// '@' before the path that follows the first '@'. A ':' followed by digits and a path
// (localhost:8080/path?user=a@b) is a port, not a password.
func findURLCredentials(b []byte, spans []span) []span {
	sep := []byte("://")
	for off := 0; ; {
		i := bytes.Index(b[off:], sep)
		if i < 0 {
			return spans
		}
		i += off
		off = i + len(sep)
		// The scheme: letters, digits, + . - before "://", starting with a letter.
		scheme := i
		for scheme > 0 && isSchemeByte(b[scheme-1]) {
			scheme--
		}
		for scheme < i && !isLetter(b[scheme]) {
			scheme++
		}
		if scheme == i {
			continue
		}
		from := i + len(sep)
		end := from // the URL's end
		first := -1 // its first '@'
		for end < len(b) && !isURLEnd(b[end]) {
			if b[end] == '@' && first < 0 {
				first = end
			}
			end++
		}
		off = end
		if first < 0 {
			continue
		}
		// The userinfo ends at the last '@' before the path that follows the first one.
		at := first
		for j := first + 1; j < end && !isPathStart(b[j]); j++ {
			if b[j] == '@' {
				at = j
			}
		}
		if at+1 >= end || !isAlnum(b[at+1]) && b[at+1] != '[' {
			continue // no host after it
		}
		user := b[from:at]
		colon := bytes.IndexByte(user, ':')
		if colon < 0 {
			if looksLikeToken(user) {
				spans = append(spans, span{ctx: scheme, start: from, end: at, mask: Mask})
			}
			continue
		}
		if bytes.ContainsFunc(user[:colon], func(r rune) bool { return r < 0x80 && isPathStart(byte(r)) }) {
			continue // the '@' is in the path: https://host/a:b@c
		}
		pw := user[colon+1:]
		if p := bytes.IndexFunc(pw, func(r rune) bool { return r < 0x80 && isPathStart(byte(r)) }); p >= 0 && isPort(pw[:p]) {
			continue // host:port/path?q=a@b
		}
		if len(pw) > 0 {
			spans = append(spans, span{ctx: scheme, start: from + colon + 1, end: at, mask: Mask})
		}
	}
}

// isPort says whether w is a port number.
func isPort(w []byte) bool {
	if len(w) == 0 || len(w) > 5 {
		return false
	}
	for _, c := range w {
		if c < '0' || c > '9' {
			return false
		}
	}
	return true
}

func isLetter(c byte) bool { return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' }

// looksLikeToken says whether a URL's user name is more likely a token than a name:
// at least 20 bytes of letters, digits, '-' and '_', with letters and digits both.
func looksLikeToken(w []byte) bool {
	if len(w) < 20 || run(w, 0, isKeyByte) != len(w) {
		return false
	}
	return bytes.ContainsAny(w, "0123456789") && bytes.IndexFunc(w, func(r rune) bool { return r < 128 && isLetter(byte(r)) }) >= 0
}

// findSlack finds Slack tokens: xoxb-, xoxp-, xoxa-, xoxr-, xoxs-, xoxe- and xapp-,
// followed by at least 10 letters, digits and dashes. Both forms start with 'x', so one
// pass finds them.
func findSlack(b []byte, spans []span) []span {
	isSlackByte := func(c byte) bool { return isAlnum(c) || c == '-' }
	for off := 0; ; {
		i := bytes.IndexByte(b[off:], 'x')
		if i < 0 {
			return spans
		}
		start := off + i
		off = start + 1
		var body int // where the random part starts
		switch rest := b[start:]; {
		case len(rest) > 5 && rest[1] == 'o' && rest[2] == 'x' && strings.IndexByte("bparse", rest[3]) >= 0 && rest[4] == '-':
			body = start + 5
		case bytes.HasPrefix(rest, []byte("xapp-")):
			body = start + 5
		default:
			continue
		}
		if end := run(b, body, isSlackByte); end-body >= 10 {
			spans = append(spans, masked(start, end))
			off = end
		}
	}
}

// findJWT finds JSON Web Tokens: three base64url segments joined by dots, the first (a
// JSON header) starting with "eyJ", the last (the signature) possibly empty; the further
// segments of an encrypted token are masked with them.
func findJWT(b []byte, spans []span) []span {
	for off := 1; off < len(b); {
		// "yJ", then the 'e' before it: 'y' is much rarer than 'e' in text.
		i := bytes.Index(b[off:], []byte("yJ"))
		if i < 0 {
			return spans
		}
		start := off + i - 1
		off = start + 3
		if b[start] != 'e' {
			continue
		}
		header := run(b, start, isBase64URL)
		if header-start < 10 || header >= len(b) || b[header] != '.' {
			off = header
			continue
		}
		payload := run(b, header+1, isBase64URL)
		if payload-(header+1) < 2 || payload >= len(b) || b[payload] != '.' {
			off = header
			continue
		}
		end := run(b, payload+1, isBase64URL)
		for end+1 < len(b) && b[end] == '.' && isBase64URL(b[end+1]) {
			end = run(b, end+1, isBase64URL)
		}
		spans = append(spans, masked(start, end))
		off = end
	}
	return spans
}
