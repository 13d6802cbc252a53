package app

import (
	"fmt"
	"sort"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"

	"github.com/segwi/segwi/approvals"
	"github.com/segwi/segwi/internal/lib/visible"
	"github.com/segwi/segwi/runs/record"
)

// Bounds of the run window's timeline, so that a long run keeps its memory bounded.
const (
	maxTimelineEntries = 5000     // entries kept; the oldest go first, a tenth at a time, with a note
	maxTimelineRunes   = 2 << 20  // their text in all; past it the oldest go too
	maxEntryRunes      = 16 << 10 // the text of one message shown; a click on it opens the rest
	maxRowRunes        = 400      // a line of a tool's call or output is cut here
	maxResultLines     = 6        // lines of one tool call or output shown
	maxQuestionRunes   = 64 << 10 // Claude's last message kept for the reply banner
)

// timelineRow is one row of the timeline as the list shows it: the mark of its entry on
// the entry's first row (none on the rows after), a piece of the entry's text, and the
// number of its event.
type timelineRow struct {
	Mark string
	Text string
	Seq  int64 // the event's number in the run, for its text in full; 0 for a note of the window's
	Dim  bool  // drawn dimmer: a tool's output, the run's housekeeping
}

// droppedEntriesF is the first row once the oldest entries were dropped.
const droppedEntriesF = "… %d earlier events are not shown here (segwi runs events %s has them all)"

// marks are the timeline's marks for runs' labels that take a sign or an indent; any other
// label shows capitalised ("claude" as "Claude").
var marks = map[string]string{
	"output":   "  ↳ output",
	"error":    "  ↳ error",
	"refused":  "⛔ Refused",
	"approve?": "⚠ Approve?",
	"allowed":  "✔ Allowed",
	"denied":   "✖ Denied",
	"result":   "■ Result",
	"missed":   "… Missed",
}

// markOf is the mark of a label.
func markOf(label string) string {
	if m, ok := marks[label]; ok {
		return m
	}
	r, size := utf8.DecodeRuneInString(label)
	return string(unicode.ToUpper(r)) + label[size:]
}

// entry is what the timeline shows of one event, or of a few folded into one (the run's
// start, a request a trusted rule allowed): a mark saying what it is, and its text, laid
// out in rows for the timeline's width.
type entry struct {
	mark string
	// text is what the entry says. Prose (messages, segwi's words) is broken into rows at
	// the timeline's width; the other entries (a tool's call and output) show a row per
	// line, each cut to the width.
	text  string
	prose bool
	dim   bool   // a tool's output, the run's housekeeping: drawn dimmer than the conversation
	seq   int64  // the event's number in the run; 0 for a note of the window's
	whole bool   // text is all there is to read (a fold, a note): opened as it is, not from the record
	full  string // what a click opens when it says more than text (the events of a fold, a line each); "" for text
	key   string // a later event replaces the entry by this key: "state:…", "request:…"; "" for none
	rows  []string
}

// detail is what a click on the entry opens when it is whole: full, else its text.
func (e *entry) detail() string {
	if e.full != "" {
		return e.full
	}
	return e.text
}

// runes is the length of what the entry keeps, in runes.
func (e *entry) runes() int { return utf8.RuneCountInString(e.text) + utf8.RuneCountInString(e.full) }

// layout breaks the entry's text into rows for room, the width of the text column, at
// text size; a room of 0 (the width is not known yet) breaks only at newlines.
func (e *entry) layout(room, size float32) {
	if e.prose {
		e.rows = breakProse(e.text, room, size)
		return
	}
	e.rows = strings.Split(e.text, "\n")
	if room > 0 {
		for i, r := range e.rows {
			e.rows[i] = fitRow(r, room, size)
		}
	}
}

// fitRow cuts s to what fits in room at size, ending in "…" when it cut.
func fitRow(s string, room, size float32) string {
	if proseWidths.width(s, size) <= room*(1-proseSlack) {
		return s
	}
	limit := room*(1-proseSlack) - proseWidths.of('…', size)
	x := float32(0)
	for i, r := range s {
		x += proseWidths.of(r, size)
		if x > limit {
			return s[:i] + "…"
		}
	}
	return s
}

// change is what an event does to the timeline: it adds an entry, or replaces the entry
// of a key with a fuller one (a fold).
type change struct {
	entry   entry
	replace string // the key of the entry this one replaces; "" adds it
}

// eventRows turns a run's events into the timeline's changes, each event once: the
// record's, the live ones, and those appended after the run ended (a push). The words are
// runs'; the timeline adds the marks, the layout and the folds. It also keeps Claude's last
// message, the question a run waiting for a reply waits on. Safe for concurrent use.
type eventRows struct {
	mu       sync.Mutex
	narrator record.Narrator
	last     int64             // the last sequence number taken
	state    *stateFold        // the run's state row, while nothing but housekeeping came after it
	requests map[string]string // the key of each approval request's entry, by request id
	question string            // Claude's last message since your last one; "" when none
	session  string            // the words of the session's start, shown once while they stay the same
}

// stateFold is the row of the run's state that later states fold into, with the
// housekeeping between them (the base recorded, segwi's status notes): one line,
// "queued → starting → running · base: main at 1a2b3c4, clean · processes: kept in …", whose
// click opens each of its events on a line of its own.
type stateFold struct {
	key    string
	states string   // the states, "queued → starting → running", each with its reason when new
	notes  []string // the housekeeping folded in, in words, "base: main at 1a2b3c4, clean"
	lines  []string // every event folded in, in order, a line each: what a click opens
	reason string   // the last state's reason
	seq    int64    // the event of the fold's first state
}

// maxFoldLines bounds the events one state row keeps: a run that says a status note after
// another, with nothing else between, does not grow it without end.
const maxFoldLines = 64

// add folds a housekeeping event, whose words are w, into the row.
func (f *stateFold) add(w record.Words) {
	if len(f.lines) >= maxFoldLines {
		return
	}
	words := visible.Escape(w.Text)
	if w.Label == "status" {
		f.notes = append(f.notes, words) // "processes: kept in cgroup …"
	} else {
		f.notes = append(f.notes, w.Label+": "+words)
	}
	f.lines = append(f.lines, markOf(w.Label)+": "+words)
}

// entry is the timeline's entry of the row: one line, cut to the timeline's width.
func (f *stateFold) entry() entry {
	text := strings.Join(append([]string{f.states}, f.notes...), " · ")
	return entry{mark: markOf("state"), text: strings.Join(strings.Fields(text), " "), dim: true, seq: f.seq,
		whole: true, full: strings.Join(f.lines, "\n"), key: f.key}
}

// changes returns what e does to the timeline, or nothing when e was seen already or says
// nothing the timeline shows.
func (m *eventRows) changes(e record.Event) []change {
	m.mu.Lock()
	defer m.mu.Unlock()
	if e.Type != record.EventDropped { // a dropped note carries the sequence number before it
		if e.Seq != 0 && e.Seq <= m.last {
			return nil
		}
		m.last = max(m.last, e.Seq)
	}
	w := m.narrator.Words(e)
	if w.Label == "" {
		return nil // it says nothing new: a refusal of a call the answer denied
	}
	switch e.Type {
	case record.EventBase, record.EventStatus:
		// The housekeeping between two states folds into the state row.
		if m.state != nil {
			m.state.add(w)
			return []change{{entry: m.state.entry(), replace: m.state.key}}
		}
	case record.EventState, record.EventInit, record.EventExit:
		// The run's start of a session and its exit keep rows of their own, and the state
		// row open for the next state.
	default:
		m.state = nil
	}
	switch e.Type {
	case record.EventText:
		m.question = capRunes(visible.Escape(e.Text), maxQuestionRunes)
	case record.EventPrompt:
		m.question = "" // a question after this one is the next one
	case record.EventState:
		if e.State != nil {
			return m.stateChange(e)
		}
	case record.EventInit:
		// Claude Code starts its session anew for each message you send: a start that says
		// what the last said shows no row.
		if w.Text == m.session {
			return nil
		}
		m.session = w.Text
	case record.EventToolResult:
		w.Text = resultWords(e, w.Text)
	case record.EventApprovalRequest:
		if e.Approval != nil && e.Approval.RequestID != "" {
			if m.requests == nil || len(m.requests) >= 4096 {
				m.requests = map[string]string{}
			}
			key := "request:" + e.Approval.RequestID
			m.requests[e.Approval.RequestID] = key
			ent := entryOf(e, w)
			ent.key = key
			return []change{{entry: ent}}
		}
	case record.EventApprovalAnswer:
		if a := e.Approval; a != nil && a.RequestID != "" {
			key, ok := m.requests[a.RequestID]
			delete(m.requests, a.RequestID)
			if ok && a.Allow && a.By == string(approvals.ByTrusted) {
				// A trusted rule answered at once: one row says which rule allowed what,
				// where the request showed.
				return []change{{entry: entryOf(e, w), replace: key}}
			}
		}
	}
	return []change{{entry: entryOf(e, w)}}
}

// stateChange folds a change of the run's state into its state row while nothing but
// housekeeping came after that row; the moves between running and waiting show no row (the
// header, the approval panel and the reply banner say them, and the events around them
// show them).
func (m *eventRows) stateChange(e record.Event) []change {
	s := e.State
	busy := func(st record.State) bool { return st == record.StateRunning || st == record.StateWaiting }
	if busy(s.From) && busy(s.To) {
		return nil
	}
	words := string(s.To)
	if s.Reason != "" && (m.state == nil || s.Reason != m.state.reason) {
		words += ": " + visible.Escape(s.Reason)
	}
	f, replace := m.state, ""
	if f == nil {
		f = &stateFold{key: fmt.Sprintf("state:%d", e.Seq), states: words, seq: e.Seq}
	} else {
		f.states += " → " + words
		replace = f.key
	}
	f.reason = s.Reason
	if len(f.lines) < maxFoldLines {
		f.lines = append(f.lines, markOf("state")+": "+words)
	}
	m.state = f
	if s.To.Final() {
		m.state = nil // what comes after the run's end is news: a row of its own
	}
	return []change{{entry: f.entry(), replace: replace}}
}

// lastQuestion is Claude's last message since your last one: what a run that waits for
// your reply asks.
func (m *eventRows) lastQuestion() string {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.question
}

// entryOf is the entry of e, whose words are w: prose for what a person reads as
// sentences, a row per line (the first few) for a tool's call and output.
func entryOf(e record.Event, w record.Words) entry {
	text := visible.Escape(strings.ReplaceAll(w.Text, "\r\n", "\n"))
	ent := entry{mark: markOf(w.Label), seq: e.Seq}
	switch e.Type {
	case record.EventToolCall, record.EventApprovalRequest, record.EventToolResult, record.EventOutput:
		ent.text = firstLines(text, maxResultLines)
		ent.dim = e.Type == record.EventToolResult || e.Type == record.EventOutput
		return ent
	case record.EventInit, record.EventBase, record.EventExit, record.EventStatus, record.EventUsage:
		ent.dim = true
	}
	ent.prose = true
	ent.text = strings.TrimRight(text, "\n")
	if n := utf8.RuneCountInString(ent.text); n > maxEntryRunes {
		ent.text = string([]rune(ent.text)[:maxEntryRunes]) +
			fmt.Sprintf("…\n(%d more characters: click to read them all)", n-maxEntryRunes)
	}
	if e.Type == record.EventDropped {
		ent.seq, ent.whole = 0, true
	}
	return ent
}

// firstLines is the first limit lines of text, each cut at maxRowRunes, and a line saying
// how many more there are.
func firstLines(text string, limit int) string {
	ls := strings.Split(strings.TrimRight(text, "\n"), "\n")
	var b strings.Builder
	for i, l := range ls {
		if i == limit {
			fmt.Fprintf(&b, "\n… %d more lines", len(ls)-limit)
			break
		}
		if i > 0 {
			b.WriteByte('\n')
		}
		b.WriteString(cutRunes(l, maxRowRunes))
	}
	return b.String()
}

// fileTools are the tools whose output is a file's text, numbered (a Read), or a note
// and a snippet of the file changed: a line of the timeline says what came back, and a
// click opens it.
var fileTools = map[string]bool{"Read": true, "Edit": true, "MultiEdit": true, "Write": true, "NotebookEdit": true}

// resultWords is what the timeline shows of a tool's output, whose words are text
// ("Read: <the file>"): a file tool's in one line (a Read's as how many lines it read),
// any other tool's as it is.
func resultWords(e record.Event, text string) string {
	if e.IsError || !fileTools[e.ToolName] || strings.TrimSpace(e.Text) == "" {
		return text
	}
	lines := strings.Count(strings.TrimRight(e.Text, "\n"), "\n") + 1
	if e.ToolName == "Read" {
		return fmt.Sprintf("%s: %s", e.ToolName, record.Plural(lines, "line"))
	}
	first, _, _ := strings.Cut(text, "\n")
	switch {
	case lines == 2:
		first += " (1 more line)"
	case lines > 2:
		first += fmt.Sprintf(" (%d more lines)", lines-1)
	}
	return first
}

// cutRunes cuts s to limit runes, ending in "…" when it was longer.
func cutRunes(s string, limit int) string {
	if utf8.RuneCountInString(s) <= limit {
		return s
	}
	return string([]rune(s)[:limit]) + "…"
}

// capRunes cuts s to limit runes, without a mark.
func capRunes(s string, limit int) string {
	if len(s) <= limit || utf8.RuneCountInString(s) <= limit {
		return s
	}
	return string([]rune(s)[:limit])
}

// timeline holds the entries a run window shows and their rows for the list's width: at
// most maxEntries entries and maxRunes of text; past either, the oldest go, a tenth at a
// time, and dropped counts them. On Fyne's goroutine, once the window shows it.
type timeline struct {
	entries  []*entry
	runes    int // the text of entries, in runes
	dropped  int
	room     float32  // the width of the text column the rows are broken for; 0: not known yet
	size     float32  // the text size they are broken at
	refs     []rowRef // every row, in order, by its entry and its place in it
	maxEnt   int      // 0: maxTimelineEntries
	maxRunes int      // 0: maxTimelineRunes
}

// rowRef is a row of the timeline: row r of entry e.
type rowRef struct{ e, r int32 }

// apply makes the changes cs: an entry added, or one replaced by its key (added when
// the entry of the key went already).
func (t *timeline) apply(cs ...change) {
	rebuild := false
	for _, c := range cs {
		ent := c.entry
		ent.layout(t.room, t.size)
		if c.replace != "" {
			if i := t.find(c.replace); i >= 0 {
				t.runes += ent.runes() - t.entries[i].runes()
				t.entries[i] = &ent
				rebuild = true
				continue
			}
		}
		t.entries = append(t.entries, &ent)
		t.runes += ent.runes()
		if !rebuild {
			t.addRefs(len(t.entries) - 1)
		}
	}
	if t.trim() || rebuild {
		t.rebuild()
	}
}

// find returns the index of the entry of key, looking from the newest, or -1.
func (t *timeline) find(key string) int {
	for i := len(t.entries) - 1; i >= 0; i-- {
		if t.entries[i].key == key {
			return i
		}
	}
	return -1
}

// trim drops the oldest entries past the bounds and reports whether it dropped any.
func (t *timeline) trim() bool {
	maxEnt, maxRunes := t.maxEnt, t.maxRunes
	if maxEnt == 0 {
		maxEnt = maxTimelineEntries
	}
	if maxRunes == 0 {
		maxRunes = maxTimelineRunes
	}
	if len(t.entries) <= maxEnt && t.runes <= maxRunes {
		return false
	}
	cut := 0
	if over := len(t.entries) - (maxEnt - maxEnt/10); len(t.entries) > maxEnt && over > cut {
		cut = over
	}
	if t.runes > maxRunes {
		keep := maxRunes - maxRunes/10
		runes := t.runes
		n := 0
		for n < len(t.entries)-1 && runes > keep {
			runes -= t.entries[n].runes()
			n++
		}
		cut = max(cut, n)
	}
	for _, e := range t.entries[:cut] {
		t.runes -= e.runes()
	}
	t.dropped += cut
	t.entries = append(make([]*entry, 0, len(t.entries)-cut), t.entries[cut:]...)
	return true
}

// addRefs adds the rows of entry i.
func (t *timeline) addRefs(i int) {
	for r := range t.entries[i].rows {
		t.refs = append(t.refs, rowRef{int32(i), int32(r)})
	}
}

// rebuild makes the rows again from the entries.
func (t *timeline) rebuild() {
	t.refs = t.refs[:0]
	for i := range t.entries {
		t.addRefs(i)
	}
}

// layout breaks every entry's text for room at size and reports whether the rows
// changed.
func (t *timeline) layout(room, size float32) bool {
	if room == t.room && size == t.size {
		return false
	}
	t.room, t.size = room, size
	for _, e := range t.entries {
		e.layout(room, size)
	}
	t.rebuild()
	return true
}

// len is the number of rows shown, the note of dropped entries included.
func (t *timeline) len() int {
	if t.dropped > 0 {
		return len(t.refs) + 1
	}
	return len(t.refs)
}

// ref returns the place of shown row i; false for the note of dropped entries and for a
// row that is not there.
func (t *timeline) ref(i int) (rowRef, bool) {
	if t.dropped > 0 {
		i--
	}
	if i < 0 || i >= len(t.refs) {
		return rowRef{}, false
	}
	return t.refs[i], true
}

// row returns shown row i; the first is the note when entries were dropped.
func (t *timeline) row(i int, runID string) timelineRow {
	ref, ok := t.ref(i)
	if !ok {
		if t.dropped > 0 && i == 0 {
			return timelineRow{Mark: "…", Text: fmt.Sprintf(droppedEntriesF, t.dropped, runID)}
		}
		return timelineRow{}
	}
	e := t.entries[ref.e]
	r := timelineRow{Text: e.rows[ref.r], Seq: e.seq, Dim: e.dim}
	if ref.r == 0 {
		r.Mark = e.mark
	}
	return r
}

// entryAt returns the entry of shown row i, or nil for the note of dropped entries.
func (t *timeline) entryAt(i int) *entry {
	if ref, ok := t.ref(i); ok {
		return t.entries[ref.e]
	}
	return nil
}

// entryIndex returns the index of the entry of shown row i, or -1 for the note of
// dropped entries: a list keeps that entry at its top when the rows are broken again.
func (t *timeline) entryIndex(i int) int {
	if ref, ok := t.ref(i); ok {
		return int(ref.e)
	}
	return -1
}

// firstRow returns the shown row where entry e begins, or 0.
func (t *timeline) firstRow(e int) int {
	i := sort.Search(len(t.refs), func(i int) bool { return int(t.refs[i].e) >= e })
	if i == len(t.refs) {
		return 0
	}
	if t.dropped > 0 {
		return i + 1
	}
	return i
}
