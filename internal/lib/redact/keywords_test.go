package redact

import (
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
)

// The automaton must report every occurrence of every keyword, in either case, as a plain
// search of the lower-cased text does: overlapping ones (sk_live inside sk_live_), ones
// inside others (ey inside key), and at the text's ends.
func TestKeywordsFindEveryOccurrence(t *testing.T) {
	words := []string{"ey", "key", "sk_", "sk_live", "live_", "://", "-----begin", "s.", `\u`, "\x1b", "aaa", "aa"}
	k := newKeywords(words)
	rng := rand.New(rand.NewPCG(1, 2))
	alphabet := "aAeEkKyYsS_lLiIvV:/.-bBgGnN \\u\x1b"
	for n := range 2000 {
		var b strings.Builder
		for range rng.IntN(40) {
			if rng.IntN(4) == 0 {
				w := words[rng.IntN(len(words))]
				if rng.IntN(2) == 0 {
					w = strings.ToUpper(w)
				}
				b.WriteString(w)
			} else {
				b.WriteByte(alphabet[rng.IntN(len(alphabet))])
			}
		}
		text := b.String()
		var want []hit
		low := strings.ToLower(text)
		for end := 1; end <= len(text); end++ {
			for i, w := range words {
				if strings.HasSuffix(low[:end], w) {
					want = append(want, hit{start: end - len(w), end: end, kw: int32(i)})
				}
			}
		}
		got := k.scan([]byte(text), nil)
		sortHits := func(h []hit) {
			slices.SortFunc(h, func(x, y hit) int {
				if x.end != y.end {
					return x.end - y.end
				}
				return int(x.kw - y.kw)
			})
		}
		sortHits(got)
		sortHits(want)
		if !slices.Equal(got, want) {
			t.Fatalf("text %d %q:\n got %v\nwant %v", n, text, got, want)
		}
	}
}

// BenchmarkKeywords scans typical stream-json output for every keyword the redactor has
// (gitleaks' rules', segwi's finders', the decode triggers).
func BenchmarkKeywords(b *testing.B) {
	m := shared()
	line := []byte(`{"type":"user","message":{"role":"user","content":[{"type":"tool_result","content":"` +
		strings.Repeat(`ok  \tgithub.com/x/y/pkg\t0.012s\n`, 40) + `"}]}}` + "\n" +
		`{"type":"assistant","message":{"content":[{"type":"text","text":"` +
		strings.Repeat("I will look at the failing test and then fix the parser. ", 12) + `"}]}}`)
	var hits []hit
	b.SetBytes(int64(len(line)))
	b.ReportMetric(float64(len(m.words.words)), "keywords")
	for b.Loop() {
		hits = m.words.scan(line, hits[:0])
	}
}

// BenchmarkNewMatcher builds the shared matcher, as every segwi process that redacts does
// once: part of a run's own cost (4.7 ms with a map a trie node, 1.0 ms with the table;
// 0.26 ms with the automaton built ahead, keywords_table.go).
func BenchmarkNewMatcher(b *testing.B) {
	for b.Loop() {
		newMatcher()
	}
}
