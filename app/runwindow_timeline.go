package app

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
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
}

// Marks of the timeline's rows.
const (
	markSession  = "Session"
	markClaude   = "Claude"
	markTool     = "Tool"
	markResult   = "  ↳ result"
	markError    = "  ↳ error"
	markRefused  = "⛔ Refused"
	markAsks     = "⚠ Asks you"
	markAllowed  = "✔ Allowed"
	markDenied   = "✖ Denied"
	markDone     = "■ Result"
	markYou      = "You"
	markStatus   = "Status"
	markState    = "State"
	markExit     = "Exit"
	markStderr   = "Output"
	markEvent    = "Event"
	markMissed   = "… Missed"
	droppedRowsF = "… %d earlier rows are not shown here (segwi runs events %s has them all)"
)

// rowMaker turns a run's events into timeline rows. It remembers tool names by call id so
// that a result names its tool. Not safe for concurrent use: the feeder goroutine owns it.
type rowMaker struct {
	tools map[string]string
}

// rows returns the rows of e; none for events the timeline does not show.
func (m *rowMaker) rows(e runs.Event) []timelineRow {
	if m.tools == nil {
		m.tools = map[string]string{}
	}
	switch e.Type {
	case runs.EventInit:
		if e.Init == nil {
			return one(markSession, "started")
		}
		return one(markSession, fmt.Sprintf("started: model %s, %s mode", orDefault(e.Init.Model, "default"), orDefault(e.Init.PermissionMode, "default")))
	case runs.EventText:
		return lines(markClaude, e.Text, maxTextLines)
	case runs.EventPrompt:
		return lines(markYou, e.Text, maxTextLines)
	case runs.EventToolCall:
		if len(m.tools) > 4096 { // a bound on a very long run; old calls lose their names
			clear(m.tools)
		}
		m.tools[e.ToolUseID] = e.ToolName
		return lines(markTool, e.ToolName+": "+toolSummary(e.ToolName, e.Input), maxResultLines)
	case runs.EventToolResult:
		mark, name := markResult, m.tools[e.ToolUseID]
		if e.IsError {
			mark = markError
		}
		text := e.Text
		if name != "" {
			text = name + ": " + text
		}
		if strings.TrimSpace(e.Text) == "" {
			text = orDefault(name, "tool") + ": (no output)"
		}
		return lines(mark, text, maxResultLines)
	case runs.EventRefusal:
		return lines(markRefused, fmt.Sprintf("%s (%s): %s", orDefault(e.ToolName, "a call"), refusedBy(e.Source), e.Text), maxResultLines)
	case runs.EventApprovalRequest:
		text := e.ToolName + ": " + toolSummary(e.ToolName, e.Input)
		if e.Approval != nil && !e.Approval.Deadline.IsZero() {
			text += " (answer in the popup)"
		}
		return lines(markAsks, text, maxResultLines)
	case runs.EventApprovalAnswer:
		return one(answerMark(e.Approval), answerText(e))
	case runs.EventResult:
		return one(markDone, resultText(e))
	case runs.EventStatus:
		if e.Text == "" {
			return one(markStatus, e.Subtype)
		}
		return lines(markStatus, e.Subtype+": "+e.Text, maxResultLines)
	case runs.EventLeftover:
		return one(markStatus, e.Text)
	case runs.EventState:
		if e.State == nil {
			return nil
		}
		text := string(e.State.To)
		if e.State.Reason != "" {
			text += ": " + e.State.Reason
		}
		return one(markState, text)
	case runs.EventExit:
		if e.Exit == nil {
			return one(markExit, "the process ended")
		}
		if e.Exit.Signal != "" {
			return one(markExit, "ended by "+e.Exit.Signal)
		}
		return one(markExit, fmt.Sprintf("exit code %d", e.Exit.Code))
	case runs.EventOutput:
		return lines(markStderr, e.Text, maxResultLines)
	case runs.EventRaw:
		if len(e.Raw) > 0 {
			return one(markEvent, string(e.Raw))
		}
		return one(markEvent, e.Text)
	case runs.EventDropped:
		return one(markMissed, fmt.Sprintf("%d events arrived too fast for this window (the run's record has them)", e.Dropped))
	}
	return nil
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

// toolSummary is the part of a tool's input a person wants to see first.
func toolSummary(tool string, input json.RawMessage) string {
	var fields map[string]any
	if json.Unmarshal(input, &fields) == nil {
		for _, k := range []string{"command", "file_path", "path", "pattern", "url", "query", "prompt"} {
			if v, ok := fields[k].(string); ok && v != "" {
				return v
			}
		}
	}
	var buf bytes.Buffer
	if json.Compact(&buf, input) == nil {
		return buf.String()
	}
	return string(input)
}

func refusedBy(source string) string {
	switch source {
	case "hook":
		return "a hook"
	case "user_reject":
		return "the approver"
	case "disallowed":
		return "not allowed in this run"
	case "classifier":
		return "auto mode"
	case "":
		return "refused"
	}
	return source
}

func answerMark(a *runs.ApprovalInfo) string {
	if a != nil && a.Allow {
		return markAllowed
	}
	return markDenied
}

func answerText(e runs.Event) string {
	a := e.Approval
	if a == nil {
		return e.ToolName
	}
	who := map[string]string{
		"person": "by you", "trusted": "by a trusted command", "timeout": "nobody answered in time",
		"run-ended": "the run ended", "limit": "too many requests waiting", "failure": "the popup failed",
		"cancelled": "Claude Code withdrew it", "invalid": "the request could be read two ways",
	}[a.By]
	text := orDefault(e.ToolName, "the call")
	if who != "" {
		text += " (" + who + ")"
	}
	if a.Rule != "" {
		text += ": " + a.Rule
	} else if a.Message != "" {
		text += ": " + a.Message
	}
	if a.Interrupt {
		text += ", and the run was stopped"
	}
	return text
}

func resultText(e runs.Event) string {
	res := e.Result
	if res == nil {
		return e.Subtype
	}
	text := fmt.Sprintf("%s after %d turns, $%.4f", orDefault(e.Subtype, "done"), res.NumTurns, res.CostUSD)
	if n := len(res.Denials); n > 0 {
		text += fmt.Sprintf(", %d calls refused", n)
	}
	return text
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
