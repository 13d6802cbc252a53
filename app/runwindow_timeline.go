package app

import (
	"fmt"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"

	"github.com/segwi/segwi/runs"
)

// Bounds of the run window's timeline, so that a long run keeps its memory bounded.
const (
	maxTimelineRows = 5000 // rows kept; the oldest go first, with a note
	maxRowRunes     = 400  // a row's text is cut here
	maxTextLines    = 200  // lines of one assistant message shown
	maxResultLines  = 6    // lines of one tool result shown
)

// timelineRow is one line of the timeline: a short mark saying what it is, and its text.
// The first row of an event has the mark; its further lines have none.
type timelineRow struct {
	Mark string
	Text string
	Seq  int64 // the event's number in the run, for its text in full; 0 for a note of the window's
}

// droppedRowsF is the first row once the oldest rows were dropped.
const droppedRowsF = "… %d earlier rows are not shown here (segwi runs events %s has them all)"

// marks are the timeline's marks for runs' labels that take a sign or an indent; any other
// label shows capitalised ("claude" as "Claude").
var marks = map[string]string{
	"output":    "  ↳ output",
	"error":     "  ↳ error",
	"refused":   "⛔ Refused",
	"approve?":  "⚠ Approve?",
	"allowed":   "✔ Allowed",
	"denied":    "✖ Denied",
	"withdrawn": "⌛ Withdrawn", // Claude Code stopped waiting: no one denied it
	"result":    "■ Result",
	"missed":    "… Missed",
}

// markOf is the mark of a label.
func markOf(label string) string {
	if m, ok := marks[label]; ok {
		return m
	}
	r, size := utf8.DecodeRuneInString(label)
	return string(unicode.ToUpper(r)) + label[size:]
}

// linesShown is how many lines of an event's text the timeline shows, by event type: a
// message in full (up to a bound), the start of a tool's output, one line for the rest.
func linesShown(t runs.EventType) int {
	switch t {
	case runs.EventText, runs.EventPrompt:
		return maxTextLines
	case runs.EventToolCall, runs.EventToolResult, runs.EventRefusal, runs.EventApprovalRequest,
		runs.EventStatus, runs.EventOutput:
		return maxResultLines
	}
	return 1
}

// eventRows turns a run's events into timeline rows, each event once: the record's, the
// live ones, and those appended after the run ended (a push). The words are runs'; the
// timeline adds the marks and the layout. Safe for concurrent use.
type eventRows struct {
	mu       sync.Mutex
	narrator runs.Narrator
	last     int64 // the last sequence number turned into rows
}

// rows returns the rows of e, or none when e was seen already.
func (m *eventRows) rows(e runs.Event) []timelineRow {
	m.mu.Lock()
	defer m.mu.Unlock()
	if e.Type != runs.EventDropped { // a dropped note carries the sequence number before it
		if e.Seq != 0 && e.Seq <= m.last {
			return nil
		}
		m.last = max(m.last, e.Seq)
	}
	w := m.narrator.Words(e)
	if w.Label == "" {
		return nil // it says nothing new: a refusal of a call the answer denied
	}
	mark := markOf(w.Label)
	rows := one(mark, w.Text)
	if n := linesShown(e.Type); n > 1 {
		rows = lines(mark, w.Text, n)
	}
	if e.Type != runs.EventDropped {
		for i := range rows {
			rows[i].Seq = e.Seq
		}
	}
	return rows
}

func one(mark, text string) []timelineRow {
	return []timelineRow{{Mark: mark, Text: cutRunes(oneLineText(text), maxRowRunes)}}
}

// lines splits text into rows, at most limit of them and a note of what was left out.
func lines(mark, text string, limit int) []timelineRow {
	ls := strings.Split(strings.TrimRight(text, "\n"), "\n")
	var rows []timelineRow
	for i, l := range ls {
		if i == limit {
			rows = append(rows, timelineRow{Text: fmt.Sprintf("… %d more lines", len(ls)-limit)})
			break
		}
		m := ""
		if i == 0 {
			m = mark
		}
		rows = append(rows, timelineRow{Mark: m, Text: cutRunes(strings.TrimRight(l, "\r"), maxRowRunes)})
	}
	return rows
}

// oneLineText shows newlines as "⏎".
func oneLineText(s string) string {
	return strings.ReplaceAll(strings.TrimRight(s, "\n"), "\n", " ⏎ ")
}

// cutRunes cuts s to limit runes, ending in "…" when it was longer.
func cutRunes(s string, limit int) string {
	if utf8.RuneCountInString(s) <= limit {
		return s
	}
	return string([]rune(s)[:limit]) + "…"
}

// timeline holds the rows a run window shows, at most max of them: past that, the oldest
// go, a tenth at a time, and dropped counts them. On Fyne's goroutine.
type timeline struct {
	rows    []timelineRow
	max     int
	dropped int
}

// add appends rs, dropping the oldest rows past the bound.
func (t *timeline) add(rs ...timelineRow) {
	t.rows = append(t.rows, rs...)
	if len(t.rows) <= t.max {
		return
	}
	keep := t.max - t.max/10
	cut := len(t.rows) - keep
	t.dropped += cut
	t.rows = append(make([]timelineRow, 0, t.max), t.rows[cut:]...)
}

// len is the number of rows shown, the note of dropped rows included.
func (t *timeline) len() int {
	if t.dropped > 0 {
		return len(t.rows) + 1
	}
	return len(t.rows)
}

// row returns shown row i; the first is the note when rows were dropped.
func (t *timeline) row(i int, runID string) timelineRow {
	if t.dropped > 0 {
		if i == 0 {
			return timelineRow{Mark: "…", Text: fmt.Sprintf(droppedRowsF, t.dropped, runID)}
		}
		i--
	}
	if i < 0 || i >= len(t.rows) {
		return timelineRow{}
	}
	return t.rows[i]
}
