package redact

import "slices"

// keywords finds every occurrence of a set of keywords in a text, ignoring ASCII case, in
// one pass whatever the number of keywords: an Aho-Corasick automaton compiled to a DFA
// whose input is byte classes, the class of an upper-case letter being that of its lower
// case. It is the prefilter of the rules: a rule runs only where one of its keywords is.
//
// It is written here rather than taken from a library because the libraries measured
// match bytes exactly, so that the text has to be lowered first, in another pass and
// buffer. Over typical stream-json with these 248 keywords, on the development machine:
// this automaton 335 to 411 MB/s; coregx/ahocorasick's DFA (FindAllOverlapping), with
// the lowering, 124 to 221 MB/s; BobuSumisu/aho-corasick (gitleaks' choice), with the
// lowering, 74 to 128 MB/s, and 2 KiB of transitions per state (2.5 MB for these 1,277
// states, against 234 KiB here).
type keywords struct {
	words   []string
	class   [256]uint8
	nclass  uint32
	next    []uint32  // (state*nclass + class) -> next state*nclass
	matchAt uint32    // states (times nclass) from this one on end at least one keyword
	ends    [][]int32 // for state s >= matchAt: the keywords that end there
}

// hit is an occurrence of keyword kw at text[start:end].
type hit struct {
	start, end int
	kw         int32
}

// newKeywords compiles the automaton of words, which must be lower case and not empty.
func newKeywords(words []string) *keywords {
	k := &keywords{words: words}
	id := map[byte]uint8{}
	k.nclass = 1 // class 0: bytes in no keyword
	for _, w := range words {
		for i := 0; i < len(w); i++ {
			if _, ok := id[w[i]]; !ok {
				id[w[i]] = uint8(k.nclass)
				k.nclass++
			}
		}
	}
	for c := range 256 {
		k.class[c] = id[lower(byte(c))]
	}

	// The trie, in a table of nclass transitions a state (0 where there is none: the
	// root is no state's child), then the failure links breadth first, folded into the
	// same table as full transitions. (A table rather than a map a state: building the
	// automaton is a cost of every segwi process that redacts, 4.7 ms with maps.)
	nc := int(k.nclass)
	most := 1 // states at most: the root and one a byte of the words
	for _, w := range words {
		most += len(w)
	}
	delta := make([]int32, nc, most*nc)
	ends := make([][]int32, 1, most)
	for i, w := range words {
		s := 0
		for j := 0; j < len(w); j++ {
			c := int(k.class[w[j]])
			n := int(delta[s*nc+c])
			if n == 0 {
				n = len(ends)
				ends = append(ends, nil)
				delta = append(delta, make([]int32, nc)...)
				delta[s*nc+c] = int32(n)
			}
			s = n
		}
		ends[s] = append(ends[s], int32(i))
	}
	states := len(ends)
	fail := make([]int32, states)
	order := make([]int32, 1, states) // the root first
	for q := 0; q < len(order); q++ {
		// The row of s still holds its trie children only: the rows of the states before
		// it in order, its failure state's among them, are full transitions already.
		s := int(order[q])
		for c := range nc {
			n := delta[s*nc+c]
			switch {
			case n != 0:
				if s != 0 {
					fail[n] = delta[int(fail[s])*nc+c]
				}
				ends[n] = append(ends[n], ends[fail[n]]...)
				order = append(order, n)
			case s != 0:
				delta[s*nc+c] = delta[int(fail[s])*nc+c]
			}
		}
	}

	// Number the states that end a keyword last, so that one comparison tells them.
	renum := make([]int, states)
	n := 0
	for _, ending := range []bool{false, true} {
		for s := range states {
			if (len(ends[s]) > 0) == ending {
				renum[s] = n
				n++
			}
		}
	}
	k.next = make([]uint32, states*nc)
	k.ends = make([][]int32, states)
	first := states
	for s := range states {
		for c := range nc {
			k.next[renum[s]*nc+c] = uint32(renum[delta[s*nc+c]] * nc)
		}
		if len(ends[s]) > 0 {
			k.ends[renum[s]] = slices.Clone(ends[s])
			first = min(first, renum[s])
		}
	}
	k.matchAt = uint32(first * nc)
	return k
}

// scan appends every occurrence of a keyword in b to hits, in the order they end.
//
// It is not inlined: inlined into its caller, its loop lost its registers to the caller's
// variables and ran 18 instructions a byte instead of 11.
//
//go:noinline
func (k *keywords) scan(b []byte, hits []hit) []hit {
	next, class, matchAt := k.next, &k.class, k.matchAt
	var s uint32
	for i, c := range b {
		if s = next[s+uint32(class[c])]; s >= matchAt {
			hits = k.appendEnds(hits, s, i+1)
		}
	}
	return hits
}

// walkCopy writes b to out, its JSON escapes of two bytes (\n, \t, \" and the like, most
// of a JSON line's) undone, while it walks the automaton from state s, up to the first ESC
// or other escape in b, or up to and including a byte that ends a keyword (ended). It
// returns how many bytes of b it read and of out it wrote, and the state reached.
// decodeScan calls it for the runs between the other escapes: a loop this small, not
// inlined, keeps its variables in registers.
//
//go:noinline
func (k *keywords) walkCopy(b, out []byte, s uint32) (read, written int, state uint32, ended bool) {
	trans, class, matchAt := k.next, &k.class, k.matchAt
	out = out[:len(b)]
	n, w := 0, 0
	for n < len(b) {
		c := b[n]
		switch {
		case c == '\\':
			if n+1 == len(b) || simpleEscape[b[n+1]] == 0 {
				return n, w, s, false // a run of backslashes, \u, or no escape: decodeOne
			}
			c = simpleEscape[b[n+1]]
			n += 2
		case c == 0x1b:
			return n, w, s, false
		default:
			n++
		}
		out[w] = c
		w++
		if s = trans[s+uint32(class[c])]; s >= matchAt {
			return n, w, s, true
		}
	}
	return n, w, s, false
}

// appendEnds appends to hits the keywords that end in state s (one that ends some), at
// end.
func (k *keywords) appendEnds(hits []hit, s uint32, end int) []hit {
	for _, w := range k.ends[s/k.nclass] {
		hits = append(hits, hit{start: end - len(k.words[w]), end: end, kw: w})
	}
	return hits
}

// lower returns c in lower case if it is an ASCII letter.
func lower(c byte) byte {
	if c-'A' < 26 {
		return c + 'a' - 'A'
	}
	return c
}
