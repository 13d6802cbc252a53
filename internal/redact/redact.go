// Package redact removes secrets from text before segwi writes, shows or publishes it.
//
// A Redactor knows two kinds of secret: exact strings it was given (the GitHub token from
// the keyring, every run's bearer token) and common secret shapes it finds on its own:
//   - GitHub tokens (ghp_, gho_, ghs_, ghu_, ghr_, github_pat_), Anthropic keys (sk-ant-),
//     Slack tokens (xoxb-, xoxp-, xoxa-, xoxr-, xoxs-, xoxe-, xapp-), JSON Web Tokens;
//   - AWS access key ids (AKIA, ASIA) and AWS secret access keys after their name
//     (aws_secret_access_key = X, AWS_SECRET_ACCESS_KEY=X, "SecretAccessKey": "X");
//   - the credentials of an Authorization header or of a bearer token;
//   - the password in a URL (scheme://user:PASSWORD@host, the user kept) and a token
//     used as a URL's user (scheme://TOKEN@host);
//   - PEM private key blocks.
//
// Each one found is replaced by Mask. A secret with no recognisable shape or name (a
// password in prose, an AWS secret key printed alone) is not found.
//
// The scan looks for literal anchors with bytes.Index rather than running a regular
// expression over every byte, so it keeps up with a run's output (hundreds of MB/s).
// Redaction keeps JSON valid, including JSON held in a JSON string (\"key\": \"X\"): a
// replacement never contains a quote or a backslash, no match extends over one, and a
// match never masks half of an escape sequence. Lines redacts a stream, and cuts a line
// too long to hold whole where no secret is split (Lines.AppendPiece).
package redact

import (
	"bytes"
	"encoding/json"
	"slices"
	"sync"
	"sync/atomic"
)

// Mask replaces every secret found.
const Mask = "[REDACTED]"

// maskKey replaces a whole private key block.
const maskKey = "[REDACTED PRIVATE KEY]"

// minSecret is the length below which a configured secret is ignored: redacting a
// three-letter string would mangle ordinary text and protect nothing.
const minSecret = 8

// A Redactor removes secrets from text. The zero value is not usable; call New.
// It is safe for concurrent use; Add and Remove take effect for later calls.
type Redactor struct {
	mu      sync.Mutex
	counts  map[string]int           // configured secret -> how many Adds hold it
	secrets atomic.Pointer[[][]byte] // immutable snapshot read by every scan
}

// New returns a Redactor that removes the given secrets and the common secret shapes.
func New(secrets ...string) *Redactor {
	r := &Redactor{counts: map[string]int{}}
	r.secrets.Store(&[][]byte{})
	r.Add(secrets...)
	return r
}

// Add makes r remove each of secrets from now on. Secrets shorter than 8 bytes are
// ignored. A secret added n times stays until it is removed n times.
func (r *Redactor) Add(secrets ...string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, s := range secrets {
		if len(s) < minSecret {
			continue
		}
		r.counts[s]++
	}
	r.publish()
}

// Remove undoes one Add of each of secrets.
func (r *Redactor) Remove(secrets ...string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, s := range secrets {
		if n, ok := r.counts[s]; ok {
			if n <= 1 {
				delete(r.counts, s)
			} else {
				r.counts[s] = n - 1
			}
		}
	}
	r.publish()
}

// publish stores a new snapshot of the secrets, each also in its JSON-escaped forms (with
// and without HTML escaping: encoding/json writes `\u003c` for '<', Claude Code and segwi's
// record write '<'), longest first so that a secret containing another is masked whole.
// r.mu must be held.
func (r *Redactor) publish() {
	set := map[string]bool{}
	for s := range r.counts {
		set[s] = true
		for _, html := range []bool{true, false} {
			if esc := jsonEscaped(s, html); esc != s {
				set[esc] = true
			}
		}
	}
	list := make([][]byte, 0, len(set))
	for s := range set {
		list = append(list, []byte(s))
	}
	slices.SortFunc(list, func(a, b []byte) int { return len(b) - len(a) })
	r.secrets.Store(&list)
}

// jsonEscaped returns s as it reads inside a JSON string, with or without HTML escaping.
func jsonEscaped(s string, html bool) string {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(html)
	if enc.Encode(s) != nil {
		return s
	}
	out := bytes.TrimSuffix(b.Bytes(), []byte("\n"))
	return string(out[1 : len(out)-1]) // without the quotes
}

// String returns s with every secret replaced by Mask.
func (r *Redactor) String(s string) string {
	if s == "" {
		return s
	}
	b := []byte(s)
	out, changed := r.redact(b, nil)
	if !changed {
		return s
	}
	return string(out)
}

// Holds reports whether b holds a secret that Bytes would mask: a person about to approve
// text that must be shown whole is told that it looks as though it holds one.
func (r *Redactor) Holds(b []byte) bool { return len(r.find(b, nil)) > 0 }

// Bytes returns b with every secret replaced by Mask. It returns b itself when nothing was
// found, and a new slice otherwise; b is never modified.
func (r *Redactor) Bytes(b []byte) []byte {
	out, _ := r.redact(b, nil)
	return out
}

// AppendBytes appends b, with every secret replaced by Mask, to dst and returns the
// extended slice. It lets a caller reuse one buffer for line after line.
func (r *Redactor) AppendBytes(dst, b []byte) []byte {
	out, changed := r.redact(b, dst)
	if !changed {
		return append(dst, b...)
	}
	return out
}

// span is a half-open range of the input to replace with its mask. ctx <= start is
// where the evidence that made it a secret begins: the word "Bearer" before a token, the
// key name before an AWS secret key. Text cut between ctx and end would let each part
// pass as harmless (see Lines.AppendPiece).
type span struct {
	ctx, start, end int
	mask            string
}

// masked returns the span [start, end) masked with Mask, its evidence starting at start.
func masked(start, end int) span { return span{start, start, end, Mask} }

// find appends the spans of every secret in b to spans.
func (r *Redactor) find(b []byte, spans []span) []span {
	for _, s := range *r.secrets.Load() {
		spans = findAll(b, s, spans)
	}
	spans = findGitHub(b, spans)
	spans = findPrefixed(b, []byte("github_pat_"), len("github"), isTokenWordByte, 20, spans)
	spans = findPrefixed(b, []byte("sk-ant-"), len("sk"), isKeyByte, 16, spans)
	spans = findAWS(b, spans)
	spans = findAWSSecretKeys(b, spans)
	spans = findAuthorization(b, spans)
	spans = findBearer(b, spans)
	spans = findURLCredentials(b, spans)
	spans = findSlack(b, spans)
	spans = findJWT(b, spans)
	spans, _ = findPrivateKeys(b, false, spans)
	for i := range spans {
		spans[i].start = escapeStart(b, spans[i].start)
		spans[i].end = escapeEnd(b, spans[i].end)
	}
	return spans
}

// escapeAt returns the end of the JSON escape (\n, \", \uXXXX) that covers position p
// from before it, and where that escape starts; ok is false when p is not strictly
// inside one. A finder may start or stop a match inside an escape (the hex digits of
// \u0026 look like a credential's bytes); masking half an escape would leave invalid JSON.
func escapeAt(b []byte, p int) (start, end int, ok bool) {
	for q := p - 1; q >= 0 && q >= p-5; q-- {
		if b[q] != '\\' {
			continue
		}
		n := 1 // backslashes in the run ending at q: b[q] starts an escape when n is odd
		for q-n >= 0 && b[q-n] == '\\' {
			n++
		}
		if n%2 == 0 {
			continue
		}
		size := 2
		if q+1 < len(b) && b[q+1] == 'u' {
			size = 6
		}
		if p < q+size {
			return q, min(q+size, len(b)), true
		}
		return 0, 0, false // the nearest escape ends before p
	}
	return 0, 0, false
}

// escapeStart moves a match's start back to the start of the escape it is inside.
func escapeStart(b []byte, p int) int {
	if q, _, ok := escapeAt(b, p); ok {
		return q
	}
	return p
}

// escapeEnd moves a match's end on to the end of the escape it is inside.
func escapeEnd(b []byte, p int) int {
	if _, e, ok := escapeAt(b, p); ok {
		return e
	}
	return p
}

// redact finds every secret in b. When none is found it returns b, false. Otherwise it
// appends the redacted text to dst and returns it, true.
func (r *Redactor) redact(b, dst []byte) ([]byte, bool) {
	spans := r.find(b, nil)
	if len(spans) == 0 {
		return b, false
	}
	return apply(dst, b, spans), true
}

// apply writes b to dst with the spans masked. Overlapping spans are merged.
func apply(dst, b []byte, spans []span) []byte {
	slices.SortFunc(spans, func(x, y span) int {
		if x.start != y.start {
			return x.start - y.start
		}
		return y.end - x.end
	})
	pos := 0
	for i := 0; i < len(spans); i++ {
		sp := spans[i]
		for i+1 < len(spans) && spans[i+1].start < sp.end {
			if spans[i+1].end > sp.end {
				sp.end = spans[i+1].end
			}
			if spans[i+1].mask == maskKey {
				sp.mask = maskKey
			}
			i++
		}
		if sp.start < pos {
			sp.start = pos
		}
		dst = append(dst, b[pos:sp.start]...)
		dst = append(dst, sp.mask...)
		pos = sp.end
	}
	return append(dst, b[pos:]...)
}

func findAll(b, s []byte, spans []span) []span {
	for off := 0; ; {
		i := bytes.Index(b[off:], s)
		if i < 0 {
			return spans
		}
		start := off + i
		spans = append(spans, masked(start, start+len(s)))
		off = start + len(s)
	}
}
