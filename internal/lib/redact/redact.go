// Package redact removes secrets from text before segwi writes, shows or publishes it.
//
// A Redactor knows two kinds of secret: exact strings it was given (the GitHub token from
// the keyring, every run's bearer token) and secret shapes it finds on its own:
//   - gitleaks' default rules (gitleaks_rules.go, generated from the pinned gitleaks
//     module): some 220 token and key formats, GitLab, Google, Stripe, OpenAI, npm,
//     SendGrid, Hugging Face and AWS among them, applied with their keywords, secret
//     groups, entropy and allowlists, save the few too broad for a live log;
//   - segwi's own shapes (shapes.go, credentials.go), which gitleaks lacks or has
//     narrower: GitHub, Anthropic and Slack tokens and JWTs of any length, AWS secret
//     access keys after their name, the credentials of an Authorization header or of a
//     bearer token, the password in a URL (scheme://user:PASSWORD@host, the user kept)
//     and a token used as a URL's user, PEM and PGP private key blocks.
//
// Each one found is replaced by Mask (a private key block by "[REDACTED PRIVATE KEY]").
// A secret with no recognisable shape or name (a password in prose) is not found.
//
// The cost of a scan grows with the text, not with the number of rules: one pass of a
// keyword automaton (keywords.go) finds where any rule's keywords are, and only those
// rules run, only there (rules.go). A text holding JSON string escapes or terminal
// sequences is read with them undone (view.go), so that a token parted by \u001b[31m or
// a URL written https:\/\/u:pw@host is found, and masked in the text as it was.
// Redaction keeps JSON valid, including JSON held in a JSON string (\"key\": \"X\"): a
// replacement never contains a quote or a backslash, and a match never masks half of an
// escape sequence nor a quote that ends a string. Lines redacts a stream, and cuts a
// line too long to hold whole where no secret is split (Lines.AppendPiece).
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
	counts  map[string]int            // configured secret -> how many Adds hold it
	secrets atomic.Pointer[secretSet] // immutable snapshot read by every scan
}

// New returns a Redactor that removes the given secrets and the common secret shapes.
func New(secrets ...string) *Redactor {
	r := &Redactor{counts: map[string]int{}}
	r.secrets.Store(&secretSet{})
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

// secretSet is a snapshot of a Redactor's secrets, longest first so that a secret
// containing another is masked whole.
type secretSet struct {
	raw   [][]byte // each secret and its JSON-escaped forms, looked for in the text as it is
	plain [][]byte // each secret, looked for in the text as the rules read it (see find)
}

// publish stores a new snapshot of the secrets, each also in its JSON-escaped forms (with
// and without HTML escaping: encoding/json writes `\u003c` for '<', Claude Code and segwi's
// record write '<'). r.mu must be held.
func (r *Redactor) publish() {
	set := map[string]bool{}
	var plain [][]byte
	for s := range r.counts {
		set[s] = true
		plain = append(plain, []byte(s))
		for _, html := range []bool{true, false} {
			if esc := jsonEscaped(s, html); esc != s {
				set[esc] = true
			}
		}
	}
	raw := make([][]byte, 0, len(set))
	for s := range set {
		raw = append(raw, []byte(s))
	}
	longestFirst := func(a, b []byte) int { return len(b) - len(a) }
	slices.SortFunc(raw, longestFirst)
	slices.SortFunc(plain, longestFirst)
	r.secrets.Store(&secretSet{raw: raw, plain: plain})
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
// pass as harmless (see Lines.AppendPiece). rule marks a gitleaks rule's secret, which
// may run over a quote (see splitAtQuotes).
type span struct {
	ctx, start, end int
	mask            string
	rule            bool
}

// masked returns the span [start, end) masked with Mask, its evidence starting at start.
func masked(start, end int) span { return span{start, start, end, Mask, false} }

// scratch holds what one scan needs, reused through a pool.
type scratch struct {
	hits    []hit   // the keywords in the text as the rules read it
	raw     []hit   // the keywords in the text as it is, when that differs
	byRule  [][]hit // rule index -> its keywords' hits
	touched []int32 // the rules with hits
	v       view
	buf     []byte
}

var scratches = sync.Pool{New: func() any { return new(scratch) }}

// find appends the spans of every secret in b to spans.
func (r *Redactor) find(b []byte, spans []span) []span {
	m := shared()
	sc := scratches.Get().(*scratch)
	defer scratches.Put(sc)
	// A text with a backslash or an ESC is read through a view (view.go): escapes undone,
	// terminal sequences dropped.
	decoded := bytes.IndexByte(b, '\\') >= 0 || bytes.IndexByte(b, 0x1b) >= 0
	if decoded {
		sc.hits = sc.v.decodeScan(b, m.words, sc.hits[:0])
	} else {
		sc.v.reset(b)
		sc.hits = m.words.scan(b, sc.hits[:0])
	}
	text := sc.v.text
	// A secret is looked for in the text as it is, with its JSON forms; in a text read
	// through a view, in the view too, and in the text only in its forms that hold a
	// backslash (its JSON forms, which the view may read otherwise) or when a terminal
	// sequence was dropped (it may have taken the secret's first character).
	secrets := r.secrets.Load()
	for _, s := range secrets.raw {
		if !decoded || sc.v.dropped || bytes.IndexByte(s, '\\') >= 0 || bytes.IndexByte(s, 0x1b) >= 0 {
			spans = findAll(b, s, spans)
		}
	}
	if sc.v.dropped {
		// The text as it is too: a terminal sequence cut short may take the character
		// after it as its last (ESC [ 3 before "ghp_…" takes the g).
		if sc.raw = m.words.scan(b, sc.raw[:0]); len(sc.raw) > 0 {
			spans = sc.rules(m, b, sc.raw, spans)
		}
	}
	// What is found from here on is found in the view: it is mapped back.
	from := len(spans)
	if decoded {
		for _, s := range secrets.plain {
			spans = findAll(text, s, spans)
		}
	}
	if len(sc.hits) > 0 {
		spans = sc.rules(m, text, sc.hits, spans)
	}
	if decoded {
		for i := from; i < len(spans); i++ {
			sp := &spans[i]
			sp.ctx, sp.start, sp.end = sc.v.srcStart(sp.ctx), sc.v.srcStart(sp.start), sc.v.srcEnd(sp.end)
		}
	}
	for i := range spans {
		spans[i].start = escapeStart(b, spans[i].start)
		spans[i].end = escapeEnd(b, spans[i].end)
	}
	return splitAtQuotes(b, spans)
}

// rules appends the spans that the finders and rules whose keywords are at hits find in
// text.
func (sc *scratch) rules(m *matcher, text []byte, hits []hit, spans []span) []span {
	if len(sc.byRule) < len(m.rules) {
		sc.byRule = make([][]hit, len(m.rules))
	}
	var found uint64 // segwi's finders whose keywords are in the text
	sc.touched = sc.touched[:0]
	for _, h := range hits {
		found |= m.findersOf[h.kw]
		for _, i := range m.rulesOf[h.kw] {
			if len(sc.byRule[i]) == 0 {
				sc.touched = append(sc.touched, i)
			}
			sc.byRule[i] = append(sc.byRule[i], h)
		}
	}
	for i, f := range finders {
		if found&(1<<i) != 0 {
			spans = f.find(text, spans)
		}
	}
	for _, i := range sc.touched {
		at := sc.byRule[i]
		// Hits come in the order they end; a rule reads them in the order they start.
		if !slices.IsSortedFunc(at, func(x, y hit) int { return x.start - y.start }) {
			slices.SortFunc(at, func(x, y hit) int { return x.start - y.start })
		}
		spans = m.rules[i].find(text, at, &sc.buf, spans)
		sc.byRule[i] = at[:0]
	}
	return spans
}

// splitAtQuotes splits the spans of gitleaks rules at the quotes they cover that are not
// escaped, keeping each quote: a rule's expression may run over one (".{8,}"), and
// masking it would break the JSON string it ends.
func splitAtQuotes(b []byte, spans []span) []span {
	n := len(spans)
	for i := 0; i < n; i++ {
		sp := spans[i]
		if !sp.rule {
			continue
		}
		for q := sp.start; q < sp.end; q++ {
			if b[q] != '"' || escapedAt(b, q) {
				continue
			}
			spans[i].end = q
			if q+1 < sp.end {
				rest := sp
				rest.ctx, rest.start = q+1, q+1
				spans = append(spans, rest)
				n++
			}
			break
		}
	}
	return slices.DeleteFunc(spans, func(sp span) bool { return sp.end <= sp.start })
}

// escapedAt says whether b[q] follows an odd number of backslashes.
func escapedAt(b []byte, q int) bool {
	n := 0
	for q-n-1 >= 0 && b[q-n-1] == '\\' {
		n++
	}
	return n%2 == 1
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
