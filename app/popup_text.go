package app

import (
	"fmt"
	"strings"
	"time"
	"unicode/utf8"

	"fyne.io/fyne/v2/theme"

	"github.com/segwi/segwi/approvals"
	"github.com/segwi/segwi/internal/lib/visible"
	"github.com/segwi/segwi/runs/record"
)

// maxShownInput caps how much text the details window of a timeline row renders: a label of
// megabytes would freeze it; it says how much it left out. (A request's view has its own
// bound, approvals.MaxShown.)
const maxShownInput = 64 << 10

// Messages a deny carries. The broker prefixes them with who denied, so each reads as the
// reason that follows "Denied by the person at segwi: ".
const (
	msgDeclined     = "the person declined this call"
	msgWindowClosed = "the person closed the approval window without answering"
	timeLeftNoLimit = "No time limit"
	timeLeftExpired = "Time is up: the request is being denied"
)

// denyPlaceholder is the hint in the box for a deny's reason, for a run whose agent is
// agent (approvals.RunInfo.Agent, record.Info.Runtime): who reads the reason.
func denyPlaceholder(agent string) string {
	return "Reason for denying (optional): " + approvals.DenyReasonHint(visible.Escape(agent))
}

// requestView is what a popup and the run window show of a request, worked out once when
// it arrives: the request's one view (approvals.View, as the page and the terminal show
// it) and the run it comes from.
type requestView struct {
	approvals.View
	title    string // the window title: the tool, the run and its task
	task     string // "Task: …" or "Question: …", the run's; empty when unknown
	checkout string // "Checkout: <path>"
}

// viewOf works out what a popup shows for req. Every text is passed through
// visible.Escape: what the person approves is what they read.
func viewOf(req approvals.Request) requestView {
	run := req.Run.Describe()
	v := requestView{
		View:     req.View(),
		title:    fmt.Sprintf("Approve %s? · %s", req.Tool(), run),
		checkout: "Checkout: " + orDefault(req.Run.Checkout, "(unknown)"),
	}
	if req.Run.Prompt != "" {
		// Two runs in one checkout are told apart by what they were asked.
		v.task = taskText(record.Kind(req.Run.Kind), req.Run.Prompt)
		v.title += " · " + visible.FirstLine(req.Run.Prompt, 40)
	}
	for _, text := range []*string{&v.title, &v.task, &v.checkout} {
		*text = visible.Escape(*text)
	}
	return v
}

// mainLines are the lines of v's main text: its command, its change (each line marked
// and coloured: removed in the theme's error colour, added in its success colour), or its
// JSON; then what it leaves out, when anything.
func (v requestView) mainLines() []wrapLine {
	var lines []wrapLine
	switch v.Shape {
	case approvals.ShapeCommand:
		lines = textLines(v.Command)
	case approvals.ShapeChange:
		for _, l := range v.Change {
			line := wrapLine{mark: l.Op + " ", text: l.Text}
			switch l.Op {
			case approvals.OpRemoved:
				line.color = theme.ColorNameError
			case approvals.OpAdded:
				line.color = theme.ColorNameSuccess
			case approvals.OpHeading:
				line = wrapLine{mark: "@@ ", text: l.Text + " @@", color: theme.ColorNamePrimary}
			}
			lines = append(lines, line)
		}
		if len(v.Change) == 0 {
			lines = append(lines, wrapLine{text: "(no text)", color: saidColor})
		}
	default:
		lines = textLines(v.JSON)
	}
	if v.Cut != "" {
		lines = append(lines, wrapLine{text: "… " + v.Cut, color: saidColor})
	}
	return lines
}

// jsonLines are the lines of v's JSON, and what it leaves out.
func (v requestView) jsonLines() []wrapLine {
	lines := textLines(v.JSON)
	if v.JSONCut != "" {
		lines = append(lines, wrapLine{text: "… " + v.JSONCut, color: saidColor})
	}
	return lines
}

// textLines are the lines of s, plain.
func textLines(s string) []wrapLine {
	var lines []wrapLine
	for l := range strings.SplitSeq(s, "\n") {
		lines = append(lines, wrapLine{text: l})
	}
	return lines
}

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
func timeLeftText(deadline, now time.Time, runEnds bool) string {
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
	if runEnds {
		return "Time left: " + d + ", then the run ends (runs.maxDuration) and it is denied"
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
