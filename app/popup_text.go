package app

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/segwi/segwi/approvals"
	"github.com/segwi/segwi/internal/visible"
	"github.com/segwi/segwi/runs"
)

// maxShownInput caps how much of a tool's input a popup renders. A Write of a large file
// would otherwise freeze the window while the label lays out megabytes of text; the popup
// says how much it left out, so the person can deny when they cannot see it all.
const maxShownInput = 64 << 10

// Messages a deny carries. The broker prefixes them with who denied, so each reads as the
// reason that follows "Denied by the person at segwi: ".
const (
	msgDeclined     = "the person declined this call"
	msgWindowClosed = "the person closed the approval window without answering"
	denyPlaceholder = "Reason for denying (optional): Claude sees it"
	timeLeftNoLimit = "No time limit"
	timeLeftExpired = "Time is up: the request is being denied"
)

// requestView is what a popup shows of a request, worked out once when it opens.
type requestView struct {
	title       string // the window title: the tool, the run and its task
	heading     string // which run wants which tool
	task        string // "Task: …" or "Question: …", the run's; empty when unknown
	checkout    string // "Checkout: <path>"
	description string // a Bash call's own description; empty for other tools
	caption     string // what input is: the command, or the tool's input
	input       string // the command, or the input as indented JSON, shown in monospace
	note        string // what segwi noticed about the request; empty for most
	// change is an Edit, Write or NotebookEdit call's change, shown as a diff (input
	// then holds the JSON, behind a toggle); nil for other calls.
	change *changeView
}

// viewOf works out what a popup shows for req. Every text is passed through
// visible.Escape: what the person approves is what they read.
func viewOf(req approvals.Request) requestView {
	run := req.Run.Describe()
	v := requestView{
		title:    fmt.Sprintf("Approve %s? · %s", req.Tool(), run),
		heading:  fmt.Sprintf("The %s wants to use %s", run, req.Tool()),
		checkout: "Checkout: " + orDefault(req.Run.Checkout, "(unknown)"),
	}
	if req.Run.Prompt != "" {
		// Two runs in one checkout are told apart by what they were asked.
		v.task = taskText(runs.Kind(req.Run.Kind), req.Run.Prompt)
		v.title += " · " + visible.FirstLine(req.Run.Prompt, 40)
	}
	if cmd, desc, ok := req.Command(); ok {
		v.caption = "Command:"
		v.input = cmd
		// Cut: Fyne takes seconds to wrap a label of thousands of characters, and the
		// description is Claude Code's word on the command, not what runs.
		v.description = cutRunes(strings.TrimSpace(desc), 400)
	} else {
		v.caption = "Input:"
		v.input = indentInput(req.Input)
		if v.change = changeOf(req); v.change != nil {
			v.caption = breakLines(v.change.summary, inputColumns) // a path may be long
		}
	}
	v.input = breakLines(capText(visible.Escape(v.input), maxShownInput), inputColumns)
	v.note = req.Note
	for _, text := range []*string{&v.title, &v.heading, &v.task, &v.checkout, &v.description, &v.note} {
		*text = visible.Escape(*text)
	}
	return v
}

// indentInput returns input as indented JSON, or as it came when it is not JSON.
func indentInput(input json.RawMessage) string {
	if len(bytes.TrimSpace(input)) == 0 {
		return "(no input)"
	}
	var buf bytes.Buffer
	if err := json.Indent(&buf, input, "", "  "); err != nil {
		return string(input)
	}
	return buf.String()
}

// inputColumns is where a popup breaks a long line of input: about the width of its view
// in monospace. Fyne's own wrapping of a label takes seconds for a line of a thousand
// characters (and minutes past 4,000), so the popup breaks lines itself and the view
// scrolls both ways.
const inputColumns = 72

// wrapMark ends a piece of a line broken by breakLines. A wrapMark in the text itself is
// shown as an escape, so that a break reads only as a break.
const (
	wrapMark        = "↩"
	wrapMarkEscaped = `\u21a9`
)

// breakLines breaks each line of s longer than cols runes into pieces of cols runes, each
// but the last ending in wrapMark.
func breakLines(s string, cols int) string {
	s = strings.ReplaceAll(s, wrapMark, wrapMarkEscaped)
	lines := strings.Split(s, "\n")
	for i, l := range lines {
		if utf8.RuneCountInString(l) <= cols {
			continue
		}
		r := []rune(l)
		var b strings.Builder
		for len(r) > cols {
			b.WriteString(string(r[:cols]))
			b.WriteString(wrapMark + "\n")
			r = r[cols:]
		}
		b.WriteString(string(r))
		lines[i] = b.String()
	}
	return strings.Join(lines, "\n")
}

// capText cuts s to at most limit bytes, on a rune boundary, and says how much it cut.
func capText(s string, limit int) string {
	if len(s) <= limit {
		return s
	}
	cut := limit
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + fmt.Sprintf("\n… (%d more bytes not shown)", len(s)-cut)
}

func orDefault(s, unknown string) string {
	if s == "" {
		return unknown
	}
	return s
}

// timeLeftText says how long a person has before the request is denied for them.
func timeLeftText(deadline, now time.Time) string {
	if deadline.IsZero() {
		return timeLeftNoLimit
	}
	left := deadline.Sub(now)
	if left <= 0 {
		return timeLeftExpired
	}
	// Round up: "1s" stays on screen until the deadline itself.
	secs := int64((left + time.Second - 1) / time.Second)
	h, m, s := secs/3600, secs/60%60, secs%60
	var d string
	switch {
	case h > 0:
		d = fmt.Sprintf("%dh %02dm %02ds", h, m, s)
	case m > 0:
		d = fmt.Sprintf("%dm %02ds", m, s)
	default:
		d = fmt.Sprintf("%ds", s)
	}
	return "Time left: " + d + ", then it is denied"
}

// denyMessage is the reason a deny carries: what the person typed, or that they declined.
func denyMessage(typed string) string {
	if typed = strings.TrimSpace(typed); typed != "" {
		return typed
	}
	return msgDeclined
}
