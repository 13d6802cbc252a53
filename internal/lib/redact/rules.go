package redact

import (
	"bytes"
	"math"
	"regexp"
	"regexp/syntax"
	"slices"
	"strings"
	"sync"
)

// This file holds the engine that applies gitleaks' rules (gitleaks_rules.go) to a text:
// the keyword prefilter finds where a rule's keywords are, and the rule's regular
// expression runs there only, so that the cost grows with the text and with what it
// holds, not with the number of rules. Each rule is compiled the first time its keyword
// shows up.
//
// Where a rule runs:
//   - when every match of its expression starts with one of its keywords (most token
//     rules: ghp_, glpat-, AIza, sk_live_; and the rules keyed on a name, adafruit_key = X,
//     once the optional [\w.-]{0,50}? they start with is set aside), it is tried at the
//     keyword only, anchored, and only after the bytes there passed a gate derived from
//     the expression (the first bytes of any match: "s." must be followed by 24 letters
//     and digits), so that a keyword as common as "s." or "ey" costs a few comparisons;
//     its expression is compiled only when a keyword first passes the gate (and stands
//     at a word's start, for a rule whose matches begin with \b), so that the keywords
//     in Claude Code's every start and turn ("sk" in "Task", "ey" in "apiKeySource",
//     "ext_" in "context_management") compile nothing;
//   - otherwise, in a window around the keyword as wide as the longest match the
//     expression allows (unbounded parts capped at maxWindow bytes), and maxWindow bytes
//     wider when a match need not hold the keyword (airtable's tokens, keyed on the word
//     "airtable" nearby); a window that lacks a string every match holds ("kind:" and
//     "data:" for a Kubernetes secret keyed on "secret") is not searched.
//
// A match is a secret as gitleaks says: the rule's secret group (else the first group that
// matched, else the whole match), with more entropy than the rule asks, and not taken by
// one of the rule's allowlists. Its secret is masked; the rest of the match (a variable's
// name, a prefix kept by the rule) stays.

// maxWindow caps the bytes a rule reads on either side of its keyword where its expression
// is unbounded.
const maxWindow = 4096

// gateLen is how many leading bytes of a match a gate checks at most.
const gateLen = 16

// compiledRule is a gitleaks rule ready to run.
type compiledRule struct {
	*gitleaksRule
	once      sync.Once      // compile: what trying the rule needs
	re        *regexp.Regexp // the rule's expression, for a window
	gate      []byteSet      // what each leading byte of a match can be; anchored rules only
	wordStart bool           // a match begins with \b: none starts inside a word; anchored rules only
	width     int            // the longest match, in bytes; -1: unbounded
	near      bool           // a match need not hold a keyword, only be near one
	required  []string       // strings every match holds (lower case); windowed rules only
	broken    bool           // the expression does not parse or compile (never with the pinned rules; see the tests)

	// anchoredSrc is ^(?s:.)(?:expression), one byte of context then a match at the
	// keyword, for an anchored rule; "" for a rule run in a window. anchored is it
	// compiled, by compileAnchored, once a keyword passed the gate.
	anchoredSrc  string
	anchoredOnce sync.Once
	anchored     *regexp.Regexp

	allowOnce sync.Once // compileAllow, at the rule's first match
	allow     []compiledAllow
}

type compiledAllow struct {
	target    string
	all       bool
	regexes   []*regexp.Regexp
	stopwords []string
}

// byteSet is a set of bytes.
type byteSet [4]uint64

func (s *byteSet) add(c byte)      { s[c>>6] |= 1 << (c & 63) }
func (s *byteSet) has(c byte) bool { return s[c>>6]&(1<<(c&63)) != 0 }
func (s *byteSet) full() bool      { return s[0]&s[1]&s[2]&s[3] == ^uint64(0) }

func (s *byteSet) union(o byteSet) {
	for i := range s {
		s[i] |= o[i]
	}
}

// addFold adds c in both cases when it is an ASCII letter.
func (s *byteSet) addFold(c byte) {
	s.add(c)
	if l := lower(c); l >= 'a' && l <= 'z' {
		s.add(l)
		s.add(l - 'a' + 'A')
	}
}

// addRange adds the bytes of the runes lo to hi.
func (s *byteSet) addRange(lo, hi int) {
	if hi > 0x7f { // any byte of a UTF-8 encoding
		for c := 0x80; c < 0x100; c++ {
			s.add(byte(c))
		}
		hi = 0x7f
	}
	for c := lo; c <= hi; c++ {
		s.add(byte(c))
	}
}

// compile readies r to be tried: it is called once, the first time one of r's keywords is
// found. What only a match needs is compiled later: an anchored rule's expression
// (compileAnchored) and the allowlists (compileAllow).
func (r *compiledRule) compile() {
	parsed, err := syntax.Parse(r.regex, syntax.Perl)
	if err != nil {
		r.broken = true
		return
	}
	full := parsed.Simplify()
	r.width = maxWidth(full)
	// A rule keyed on a name (adafruit_key = X) lets a match start up to 50 bytes of
	// [\w.-] before the name; without them, every match starts with the name, a keyword.
	src, re := r.regex, full
	if p := withoutLeadingOptional(parsed); p != parsed {
		src, re = p.String(), p.Simplify()
	}
	// Each path compiles only what it runs: a process's first run compiles the rules its
	// output's keywords call for.
	if startsWithKeyword(re, r.keywords) {
		r.anchoredSrc = `^(?s:.)(?:` + src + `)`
		r.gate = gate(re)
		r.wordStart = startsAtWordBoundary(re)
	} else {
		if r.re, err = regexp.Compile(r.regex); err != nil {
			r.broken = true
			return
		}
		r.near = !holdsKeyword(full, r.keywords)
		r.required = required(re)
	}
}

// compileAnchored compiles an anchored rule's expression; a failure leaves r.anchored nil
// (never with the pinned rules; see the tests).
func (r *compiledRule) compileAnchored() {
	r.anchored, _ = regexp.Compile(r.anchoredSrc)
}

// compileAllow compiles r's allowlists; an expression that does not compile allows
// nothing (never with the pinned rules; see the tests).
func (r *compiledRule) compileAllow() {
	for _, a := range r.gitleaksRule.allow {
		ca := compiledAllow{target: a.target, all: a.all, stopwords: a.stopwords}
		for _, x := range a.regexes {
			if c, err := regexp.Compile(x); err == nil {
				ca.regexes = append(ca.regexes, c)
			}
		}
		r.allow = append(r.allow, ca)
	}
}

// find appends to spans the secrets rule r finds in text at the occurrences of its
// keywords, at (sorted by start). scratch is a buffer r may use.
func (r *compiledRule) find(text []byte, at []hit, scratch *[]byte, spans []span) []span {
	r.once.Do(r.compile)
	if r.broken {
		return spans
	}
	if r.anchoredSrc != "" {
		last := -1
		for _, h := range at {
			if h.start == last {
				continue
			}
			last = h.start
			spans = r.findAt(text, h.start, scratch, spans)
		}
		return spans
	}
	reach := r.width + 1
	if r.width < 0 || reach > maxWindow {
		reach = maxWindow
	}
	if r.near {
		// gitleaks tries such a rule on a whole file that holds the keyword; on a live
		// log, on the text up to maxWindow bytes away from it.
		reach += maxWindow
	}
	for i := 0; i < len(at); {
		from := max(0, at[i].end-reach)
		to := min(len(text), at[i].start+reach)
		for i++; i < len(at) && at[i].end-reach <= to; i++ {
			to = min(len(text), max(to, at[i].start+reach))
		}
		// Start where \b reads as it does in the whole text: after a byte that is not a
		// word's.
		for stop := max(0, from-64); from > stop && isTokenWordByte(text[from-1]); from-- {
		}
		if !holdsAll(text[from:to], r.required, scratch) {
			continue
		}
		for _, m := range r.re.FindAllSubmatchIndex(text[from:to], -1) {
			spans = r.secret(text, from, m, spans)
		}
	}
	return spans
}

// findAt appends the secret of the match that starts at text[p], if there is one.
func (r *compiledRule) findAt(text []byte, p int, scratch *[]byte, spans []span) []span {
	if r.wordStart && p > 0 && isTokenWordByte(text[p-1]) && isTokenWordByte(text[p]) {
		return spans // no word boundary at p: \b fails
	}
	for i, set := range r.gate {
		if p+i >= len(text) || !set.has(text[p+i]) {
			return spans
		}
	}
	r.anchoredOnce.Do(r.compileAnchored)
	if r.anchored == nil {
		return spans
	}
	end := len(text)
	if r.width >= 0 {
		end = min(end, p+r.width+1)
	} else {
		end = min(end, p+maxWindow*4)
	}
	// One byte of context before p, so that \b and the like read it: at the start of the
	// text, a newline stands for it.
	var in []byte
	base := p - 1
	if p > 0 {
		in = text[p-1 : end]
	} else {
		*scratch = append(append((*scratch)[:0], '\n'), text[:end]...)
		in = *scratch
	}
	m := r.anchored.FindSubmatchIndex(in)
	if m == nil {
		return spans
	}
	m[0] = 1 // the match proper starts after the context byte
	return r.secret(text, base, m, spans)
}

// secret appends the secret of match m (indexes into text from base on) unless it has too
// little entropy or an allowlist takes it.
func (r *compiledRule) secret(text []byte, base int, m []int, spans []span) []span {
	start, end := m[0], m[1]
	if r.secretGroup > 0 && 2*r.secretGroup+1 < len(m) {
		start, end = m[2*r.secretGroup], m[2*r.secretGroup+1]
	} else {
		for g := 2; g+1 < len(m); g += 2 {
			if m[g] >= 0 && m[g+1] > m[g] {
				start, end = m[g], m[g+1]
				break
			}
		}
	}
	if start < 0 || end <= start {
		return spans
	}
	start, end = base+start, base+end
	match := text[base+m[0] : base+m[1]]
	secret := text[start:end]
	if r.entropy > 0 && entropy(secret) <= r.entropy {
		return spans
	}
	r.allowOnce.Do(r.compileAllow)
	for _, a := range r.allow {
		if a.allows(text, base+m[0], base+m[1], match, secret) {
			return spans
		}
	}
	return append(spans, span{ctx: base + m[0], start: start, end: end, mask: Mask, rule: true})
}

func (a *compiledAllow) allows(text []byte, from, to int, match, secret []byte) bool {
	target := secret
	switch a.target {
	case "match":
		target = match
	case "line":
		lo := bytes.LastIndexByte(text[:from], '\n') + 1
		hi := bytes.IndexByte(text[to:], '\n')
		if hi < 0 {
			hi = len(text)
		} else {
			hi += to
		}
		target = text[lo:hi]
	}
	byRegex := false
	for _, re := range a.regexes {
		if re.Match(target) {
			byRegex = true
			break
		}
	}
	byWord := false
	if len(a.stopwords) > 0 {
		low := strings.ToLower(string(secret))
		for _, w := range a.stopwords {
			if strings.Contains(low, w) {
				byWord = true
				break
			}
		}
	}
	if a.all {
		return (len(a.regexes) == 0 || byRegex) && (len(a.stopwords) == 0 || byWord)
	}
	return byRegex || byWord
}

// entropy returns the Shannon entropy of b in bits per byte, as gitleaks computes it.
func entropy(b []byte) float64 {
	var n [256]int
	for _, c := range b {
		n[c]++
	}
	e := 0.0
	for _, k := range n {
		if k > 0 {
			p := float64(k) / float64(len(b))
			e -= p * math.Log2(p)
		}
	}
	return e
}

// maxWidth returns the most bytes a match of re can span, or -1 when it is unbounded.
func maxWidth(re *syntax.Regexp) int {
	switch re.Op {
	case syntax.OpLiteral:
		n := 0
		for _, c := range re.Rune {
			n += len(string(c))
		}
		return n
	case syntax.OpCharClass, syntax.OpAnyChar, syntax.OpAnyCharNotNL:
		if re.Op == syntax.OpCharClass && len(re.Rune) > 0 && re.Rune[len(re.Rune)-1] < 0x80 {
			return 1
		}
		return 4
	case syntax.OpCapture, syntax.OpQuest:
		return maxWidth(re.Sub[0])
	case syntax.OpStar, syntax.OpPlus:
		return -1
	case syntax.OpRepeat:
		w := maxWidth(re.Sub[0])
		if re.Max < 0 || w < 0 {
			return -1
		}
		return w * re.Max
	case syntax.OpConcat, syntax.OpAlternate:
		n := 0
		for _, s := range re.Sub {
			w := maxWidth(s)
			if w < 0 {
				return -1
			}
			if re.Op == syntax.OpConcat {
				n += w
			} else {
				n = max(n, w)
			}
		}
		return n
	}
	return 0 // empty-width assertions
}

// maxStrings bounds the strings leading tracks.
const maxStrings = 256

// startsAtWordBoundary says whether every match of re begins with \b (an ASCII word
// boundary, as Go's regexp reads it).
func startsAtWordBoundary(re *syntax.Regexp) bool {
	for {
		switch re.Op {
		case syntax.OpWordBoundary:
			return true
		case syntax.OpCapture:
			re = re.Sub[0]
		case syntax.OpConcat:
			if len(re.Sub) == 0 {
				return false
			}
			re = re.Sub[0]
		default:
			return false
		}
	}
}

// startsWithKeyword says whether every match of re starts with one of keywords (lower
// case), ASCII case ignored: then a match is looked for only where a keyword starts.
func startsWithKeyword(re *syntax.Regexp, keywords []string) bool {
	lead, _ := leading(re, []string{""})
	if len(lead) == 0 {
		return false
	}
	for _, s := range lead {
		ok := false
		for _, k := range keywords {
			if strings.HasPrefix(s, k) {
				ok = true
				break
			}
		}
		if !ok {
			return false
		}
	}
	return true
}

// leading extends each of prefixes (lower case) with what re matches, as far as that is
// a small set of strings, and says whether it went through all of re. Empty-width
// assertions add nothing.
func leading(re *syntax.Regexp, prefixes []string) ([]string, bool) {
	if set, ok := strings_(re); ok {
		if out := cross(prefixes, set); out != nil {
			return out, true
		}
		return prefixes, false
	}
	switch re.Op {
	case syntax.OpCapture:
		return leading(re.Sub[0], prefixes)
	case syntax.OpConcat:
		for _, s := range re.Sub {
			var whole bool
			if prefixes, whole = leading(s, prefixes); !whole {
				return prefixes, false
			}
		}
		return prefixes, true
	case syntax.OpAlternate:
		var out []string
		for _, s := range re.Sub {
			p, _ := leading(s, prefixes)
			out = append(out, p...)
		}
		return out, false
	case syntax.OpPlus:
		p, _ := leading(re.Sub[0], prefixes)
		return p, false // one time: what follows may be more of it
	case syntax.OpRepeat:
		if re.Min > 0 {
			p, _ := leading(re.Sub[0], prefixes)
			return p, false
		}
	}
	return prefixes, false
}

// strings_ returns the strings re matches, lower-cased, when they are few.
func strings_(re *syntax.Regexp) ([]string, bool) {
	switch re.Op {
	case syntax.OpEmptyMatch, syntax.OpBeginLine, syntax.OpEndLine, syntax.OpBeginText,
		syntax.OpEndText, syntax.OpWordBoundary, syntax.OpNoWordBoundary:
		return []string{""}, true
	case syntax.OpLiteral:
		return []string{strings.ToLower(string(re.Rune))}, true
	case syntax.OpCharClass:
		seen := map[string]bool{}
		var out []string
		for i := 0; i+1 < len(re.Rune); i += 2 {
			if re.Rune[i+1]-re.Rune[i] > maxStrings {
				return nil, false
			}
			for c := re.Rune[i]; c <= re.Rune[i+1]; c++ {
				if s := strings.ToLower(string(c)); !seen[s] {
					seen[s] = true
					out = append(out, s)
				}
			}
		}
		return out, len(out) <= maxStrings
	case syntax.OpCapture:
		return strings_(re.Sub[0])
	case syntax.OpConcat:
		out := []string{""}
		for _, s := range re.Sub {
			set, ok := strings_(s)
			if !ok {
				return nil, false
			}
			if out = cross(out, set); out == nil {
				return nil, false
			}
		}
		return out, true
	case syntax.OpAlternate:
		var out []string
		for _, s := range re.Sub {
			set, ok := strings_(s)
			if !ok || len(out)+len(set) > maxStrings {
				return nil, false
			}
			out = append(out, set...)
		}
		return out, true
	}
	return nil, false
}

// cross returns every a+b, or nil when there would be more than maxStrings.
func cross(as, bs []string) []string {
	if len(as)*len(bs) > maxStrings {
		return nil
	}
	out := make([]string, 0, len(as)*len(bs))
	for _, a := range as {
		for _, b := range bs {
			out = append(out, a+b)
		}
	}
	return out
}

// holdsAll says whether b holds each of words (lower case), ASCII case ignored.
func holdsAll(b []byte, words []string, scratch *[]byte) bool {
	if len(words) == 0 {
		return true
	}
	low := (*scratch)[:0]
	for _, c := range b {
		low = append(low, lower(c))
	}
	*scratch = low
	for _, w := range words {
		if !bytes.Contains(low, []byte(w)) {
			return false
		}
	}
	return true
}

// withoutLeadingOptional returns re without the optional runs of character classes it
// starts with ([\w.-]{0,50}?), which add bytes to a match but decide no secret.
func withoutLeadingOptional(re *syntax.Regexp) *syntax.Regexp {
	if re.Op != syntax.OpConcat {
		return re
	}
	subs := re.Sub
	for len(subs) > 0 {
		switch s := subs[0]; {
		case isOptionalRun(s):
			subs = subs[1:]
			continue
		case s.Op == syntax.OpConcat:
			inner := withoutLeadingOptional(s)
			subs = append(append([]*syntax.Regexp{}, inner.Sub...), subs[1:]...)
			if len(inner.Sub) == len(s.Sub) {
				break
			}
			continue
		}
		break
	}
	if len(subs) == len(re.Sub) {
		return re
	}
	out := *re
	out.Sub = subs
	return &out
}

// isOptionalRun says whether re matches only runs of character classes, the empty one
// included.
func isOptionalRun(re *syntax.Regexp) bool {
	switch re.Op {
	case syntax.OpQuest, syntax.OpStar:
		return onlyClasses(re.Sub[0])
	case syntax.OpRepeat:
		return re.Min == 0 && onlyClasses(re.Sub[0])
	}
	return false
}

func onlyClasses(re *syntax.Regexp) bool {
	switch re.Op {
	case syntax.OpCharClass, syntax.OpAnyChar, syntax.OpAnyCharNotNL:
		return true
	case syntax.OpConcat, syntax.OpQuest, syntax.OpStar, syntax.OpPlus, syntax.OpRepeat:
		for _, s := range re.Sub {
			if !onlyClasses(s) {
				return false
			}
		}
		return true
	}
	return false
}

// required returns strings of three bytes or more that every match of re holds, lower
// case: a window that lacks one is not searched.
func required(re *syntax.Regexp) []string {
	var out []string
	for _, w := range requiredAll(re) {
		if len(w) >= 3 && !slices.Contains(out, w) {
			out = append(out, w)
		}
	}
	return out
}

func requiredAll(re *syntax.Regexp) []string {
	switch re.Op {
	case syntax.OpLiteral:
		return []string{strings.ToLower(string(re.Rune))}
	case syntax.OpCapture, syntax.OpPlus:
		return requiredAll(re.Sub[0])
	case syntax.OpRepeat:
		if re.Min > 0 {
			return requiredAll(re.Sub[0])
		}
	case syntax.OpConcat:
		var out []string
		for _, s := range re.Sub {
			out = append(out, requiredAll(s)...)
		}
		return out
	case syntax.OpAlternate:
		// What the first branch requires and every other branch holds within what it
		// requires.
		var out []string
		for _, w := range requiredAll(re.Sub[0]) {
			all := true
			for _, b := range re.Sub[1:] {
				if !slices.ContainsFunc(requiredAll(b), func(x string) bool { return strings.Contains(x, w) }) {
					all = false
					break
				}
			}
			if all {
				out = append(out, w)
			}
		}
		return out
	}
	return nil
}

// holdsKeyword says whether every match of re holds one of keywords (lower case), ASCII
// case ignored.
func holdsKeyword(re *syntax.Regexp, keywords []string) bool {
	has := func(set []string) bool {
		for _, s := range set {
			if !slices.ContainsFunc(keywords, func(k string) bool { return strings.Contains(s, k) }) {
				return false
			}
		}
		return true
	}
	if set, ok := strings_(re); ok {
		return has(set)
	}
	switch re.Op {
	case syntax.OpCapture, syntax.OpPlus:
		return holdsKeyword(re.Sub[0], keywords)
	case syntax.OpRepeat:
		return re.Min > 0 && holdsKeyword(re.Sub[0], keywords)
	case syntax.OpAlternate:
		for _, s := range re.Sub {
			if !holdsKeyword(s, keywords) {
				return false
			}
		}
		return true
	case syntax.OpConcat:
		for i := range re.Sub {
			if holdsKeyword(re.Sub[i], keywords) {
				return true
			}
			run := []string{""} // the strings of the run of small parts from i on
			for _, s := range re.Sub[i:] {
				set, ok := strings_(s)
				if !ok {
					break
				}
				if run = cross(run, set); run == nil {
					break
				}
				if has(run) {
					return true
				}
			}
		}
	}
	return false
}

// gate returns, for the first bytes of any match of re, the bytes each can be: a match
// cannot start where they are not. It stops where re's next byte is not determined (an
// optional part, or an alternation's branches of different lengths).
func gate(re *syntax.Regexp) []byteSet {
	g, _ := gateOf(re, nil)
	for len(g) > 0 && g[len(g)-1].full() {
		g = g[:len(g)-1]
	}
	return g
}

// gateOf appends to g the byte sets of re's leading bytes, and says whether it got
// through all of re (so that what follows re may add more).
func gateOf(re *syntax.Regexp, g []byteSet) ([]byteSet, bool) {
	if len(g) >= gateLen {
		return g, false
	}
	switch re.Op {
	case syntax.OpEmptyMatch, syntax.OpBeginLine, syntax.OpEndLine, syntax.OpBeginText,
		syntax.OpEndText, syntax.OpWordBoundary, syntax.OpNoWordBoundary:
		return g, true
	case syntax.OpLiteral:
		for _, c := range re.Rune {
			if len(g) >= gateLen {
				return g, false
			}
			if c >= 0x80 {
				return g, false
			}
			var s byteSet
			if re.Flags&syntax.FoldCase != 0 {
				s.addFold(byte(c))
			} else {
				s.add(byte(c))
			}
			g = append(g, s)
		}
		return g, true
	case syntax.OpCharClass:
		var s byteSet
		for i := 0; i+1 < len(re.Rune); i += 2 {
			s.addRange(int(re.Rune[i]), int(re.Rune[i+1]))
		}
		if len(re.Rune) > 0 && re.Rune[len(re.Rune)-1] >= 0x80 {
			return g, false // a character of several bytes: the gate stops before it
		}
		return append(g, s), true
	case syntax.OpAnyCharNotNL, syntax.OpAnyChar:
		return g, false
	case syntax.OpCapture:
		return gateOf(re.Sub[0], g)
	case syntax.OpConcat:
		for _, s := range re.Sub {
			var whole bool
			if g, whole = gateOf(s, g); !whole {
				return g, false
			}
		}
		return g, true
	case syntax.OpPlus:
		g, _ = gateOf(re.Sub[0], g)
		return g, false
	case syntax.OpRepeat:
		for i := 0; i < re.Min; i++ {
			var whole bool
			if g, whole = gateOf(re.Sub[0], g); !whole {
				return g, false
			}
		}
		return g, re.Min == re.Max
	case syntax.OpAlternate:
		// Each branch's gate; the union of theirs, as long as the shortest.
		var branches [][]byteSet
		short := gateLen
		for _, s := range re.Sub {
			b, _ := gateOf(s, nil)
			branches = append(branches, b)
			short = min(short, len(b))
		}
		for i := 0; i < short && len(g) < gateLen; i++ {
			var s byteSet
			for _, b := range branches {
				s.union(b[i])
			}
			g = append(g, s)
		}
		return g, false
	}
	return g, false
}
