package record

import (
	"fmt"
	"path/filepath"
	"slices"
	"strings"
)

// Conversation is a run and the runs that continue it (Manager.Continue), and those that
// continue them: one piece of work in one checkout, told by one Claude Code session. Its
// changes are counted from its first run's base, so what a continuation does and what the
// runs before it did are committed, pushed and opened as a pull request together; the
// files already changed before the first run stay apart, as for a single run.
//
// A run that was never continued is a conversation of one run.
type Conversation struct {
	// Runs are the records of the conversation's runs, in the order they were created:
	// the first run, then its continuations. A run continued twice (Continue on an earlier
	// run again) has both continuations here, in order.
	Runs []Info
}

// maxConversationRuns bounds the runs a conversation is read with: past it, the rest are
// left out (a record edited into a loop ends the walk long before).
const maxConversationRuns = 1000

// LoadConversation returns the conversation of the run id (or unique part of it) under
// stateDir: from its first run (following each record's ContinuedFrom back), every run
// that continues it (following ContinuedBy). A record in the chain that is missing or
// cannot be read ends the walk there: the conversation is what can be read. Its error is
// Load's for id itself (wrapping ErrNotFound for an unknown id).
func LoadConversation(stateDir, id string) (Conversation, error) {
	info, err := Load(stateDir, id)
	if err != nil {
		return Conversation{}, err
	}
	return ConversationOf(stateDir, info), nil
}

// ConversationOf returns the conversation of the run info records, as LoadConversation
// does, reading the other runs' records under stateDir.
func ConversationOf(stateDir string, info Info) Conversation {
	seen := map[string]bool{info.ID: true}
	first := info
	for first.ContinuedFrom != "" && len(seen) < maxConversationRuns {
		parent, ok := loadLinked(stateDir, first.ContinuedFrom, seen)
		// A continuation works in its parent's checkout: a record edited to name a run
		// elsewhere as its parent does not pull that checkout's work in.
		if !ok || parent.Checkout != first.Checkout {
			break
		}
		seen[parent.ID] = true
		first = parent
	}
	c := Conversation{Runs: []Info{first}}
	in := map[string]bool{first.ID: true}
	for i := 0; i < len(c.Runs) && len(c.Runs) < maxConversationRuns; i++ {
		for _, next := range c.Runs[i].ContinuedBy {
			if in[next] {
				continue
			}
			var child Info
			var ok bool
			if next == info.ID {
				child, ok = info, true
			} else {
				child, ok = loadLinked(stateDir, next, nil)
			}
			if !ok || child.ContinuedFrom != c.Runs[i].ID || child.Checkout != first.Checkout {
				continue
			}
			in[child.ID] = true
			c.Runs = append(c.Runs, child)
		}
	}
	if !in[info.ID] {
		// The record the walk started from is not reached from the first run (its parent
		// does not name it): it is the conversation's last word all the same.
		c.Runs = append(c.Runs, info)
	}
	slices.SortStableFunc(c.Runs, func(a, b Info) int {
		if d := a.Created.Compare(b.Created); d != 0 {
			return d
		}
		return strings.Compare(a.ID, b.ID)
	})
	return c
}

// loadLinked reads the record of the run id that another record names, by its whole id
// only (never a part of one), unless seen holds it already.
func loadLinked(stateDir, id string, seen map[string]bool) (Info, bool) {
	if seen[id] || id == "" || strings.ContainsAny(id, `/\`) || id == "." || id == ".." {
		return Info{}, false
	}
	info, err := ReadInfo(filepath.Join(RunsDir(stateDir), id))
	if err != nil || info.ID != id {
		return Info{}, false
	}
	return info, true
}

// First is the conversation's first run: what it was asked to do.
func (c Conversation) First() Info { return c.Runs[0] }

// Last is the conversation's latest run: what was said last.
func (c Conversation) Last() Info { return c.Runs[len(c.Runs)-1] }

// IDs are the ids of the conversation's runs, in order.
func (c Conversation) IDs() []string {
	ids := make([]string, len(c.Runs))
	for i, r := range c.Runs {
		ids[i] = r.ID
	}
	return ids
}

// Live returns a run of the conversation that has not ended, if any: its work is not done,
// and nothing of it is committed or pushed until it is.
func (c Conversation) Live() (Info, bool) {
	for _, r := range c.Runs {
		if !r.State.Final() {
			return r, true
		}
	}
	return Info{}, false
}

// Base is where the conversation's changes are counted from: its first run's base, or,
// when that run recorded none (an older segwi recorded it, or its checkout was not a git
// work tree then), the first base a later run of it recorded. It is the zero Base when
// none did (changes.Take then says why).
func (c Conversation) Base() Base {
	for _, r := range c.Runs {
		if r.Base.Known() {
			return *r.Base
		}
	}
	if b := c.First().Base; b != nil {
		return *b
	}
	return Base{}
}

// CostUSD is what the conversation's runs cost in all.
func (c Conversation) CostUSD() float64 {
	var sum float64
	for _, r := range c.Runs {
		sum += r.CostUSD
	}
	return sum
}

// Name names the conversation for a person: "run ID", or "runs ID, ID and ID".
func (c Conversation) Name() string {
	if len(c.Runs) == 1 {
		return "run " + c.Runs[0].ID
	}
	ids := c.IDs()
	return "runs " + strings.Join(ids[:len(ids)-1], ", ") + " and " + ids[len(ids)-1]
}

// RunsTrailer is the key of the trailer segwi's commits carry, naming the runs whose work
// a commit holds (Conversation.Trailer).
const RunsTrailer = "Segwi-Runs"

// Trailer is the trailer line naming the conversation's runs, for a commit of its work:
// "Segwi-Runs: 20250314-092653-5e1f00, 20250314-101502-a1b2c3".
func (c Conversation) Trailer() string {
	return fmt.Sprintf("%s: %s", RunsTrailer, strings.Join(c.IDs(), ", "))
}

// WithTrailer returns the commit message msg with trailer (a "Key: value" line) at its
// end, as git interpret-trailers puts one: in the message's last paragraph when that is a
// block of trailers already, else in a paragraph of its own after a blank line. A message
// that holds the line already is returned as it is.
func WithTrailer(msg, trailer string) string {
	msg = strings.TrimRight(msg, " \t\r\n")
	if msg == "" {
		return trailer
	}
	lines := strings.Split(msg, "\n")
	last := len(lines)
	for last > 0 && strings.TrimSpace(lines[last-1]) != "" {
		last--
	}
	paragraph := lines[last:]
	for _, l := range paragraph {
		if strings.TrimSpace(l) == trailer {
			return msg
		}
	}
	if last > 0 && allTrailers(paragraph) {
		return msg + "\n" + trailer
	}
	return msg + "\n\n" + trailer
}

// allTrailers reports whether every line of a paragraph is a "Key: value" trailer.
func allTrailers(lines []string) bool {
	for _, l := range lines {
		key, _, ok := strings.Cut(l, ": ")
		if !ok || key == "" || strings.ContainsAny(key, " \t") {
			return false
		}
	}
	return len(lines) > 0
}

// GroupConversations groups the summaries sums into conversations, as ConversationOf
// reads them from the records: each group is a first run, then the runs that continue it
// (and continue those), in the order they were created. A run whose parent is not among
// sums, or is in another checkout, starts a group of its own. The groups come newest
// first, by the creation of their latest run: a conversation continued today comes before
// a run of yesterday's. It reads nothing: it is what a list of runs shows.
func GroupConversations(sums []Summary) [][]Summary {
	byID := make(map[string]int, len(sums))
	for i, s := range sums {
		byID[s.ID] = i
	}
	first := make([]int, len(sums)) // the index of each run's first run, -1 until known
	for i := range first {
		first[i] = -1
	}
	var rootOf func(i, depth int) int
	rootOf = func(i, depth int) int {
		if first[i] >= 0 {
			return first[i]
		}
		first[i] = i // a loop of records ends here
		p, ok := byID[sums[i].ContinuedFrom]
		if ok && p != i && sums[p].Checkout == sums[i].Checkout && depth < maxConversationRuns {
			first[i] = rootOf(p, depth+1)
		}
		return first[i]
	}
	groups := map[int][]Summary{}
	var order []int
	for i := range sums {
		r := rootOf(i, 0)
		if _, ok := groups[r]; !ok {
			order = append(order, r)
		}
		groups[r] = append(groups[r], sums[i])
	}
	out := make([][]Summary, 0, len(order))
	for _, r := range order {
		g := groups[r]
		root := sums[r].ID
		slices.SortStableFunc(g, func(a, b Summary) int {
			switch {
			case a.ID == root:
				return -1
			case b.ID == root:
				return 1
			}
			if d := a.Created.Compare(b.Created); d != 0 {
				return d
			}
			return strings.Compare(a.ID, b.ID)
		})
		out = append(out, g)
	}
	latest := func(g []Summary) Summary {
		l := g[0]
		for _, s := range g[1:] {
			if s.Created.After(l.Created) || (s.Created.Equal(l.Created) && s.ID > l.ID) {
				l = s
			}
		}
		return l
	}
	slices.SortStableFunc(out, func(a, b []Summary) int {
		la, lb := latest(a), latest(b)
		if d := lb.Created.Compare(la.Created); d != 0 {
			return d
		}
		return strings.Compare(lb.ID, la.ID)
	})
	return out
}
