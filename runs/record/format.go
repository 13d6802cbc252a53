package record

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"syscall"
	"time"
	"unicode/utf8"

	"github.com/segwi/segwi/approvals"
	"github.com/segwi/segwi/internal/lib/visible"
)

// Words is an event put in words for a person: the one wording that `segwi run`,
// `segwi runs events` and the run window all show. The command line prints the label
// and the text on one line; the run window shows the label as a mark and the text as
// one or more rows.
type Words struct {
	// Label says in a word what the event is: "claude", "tool", "allowed", "push", ...
	Label string
	// Text says what happened. It keeps the newlines of the event's own text (a message,
	// a tool's output); it is never cut.
	Text string
}

// Narrator puts a run's events in words, in order. It remembers each tool call, so that
// a refusal or an approval answer, which carry only the tool's name, can say what the call
// was. The zero Narrator is ready to use; it is not safe for concurrent use.
type Narrator struct {
	calls  map[string]string   // "Bash: go test ./..." by tool_use id
	denied map[string]struct{} // the calls whose approval request was denied, by tool_use id
}

// maxRemembered bounds a Narrator's memory of calls; past it, older calls are forgotten
// and their refusals and answers name only the tool.
const maxRemembered = 4096

// FormatEvent renders e as one line for a person to read, the time, a short label and
// what happened: Narrator.Line for an event seen on its own.
func FormatEvent(e Event) string {
	var n Narrator
	return n.Line(e)
}

// Line renders e as one line, as `segwi run` and `segwi runs events` print it: the time,
// the label, and the text, with newlines shown as "⏎" and a long text shortened. The
// JSON form (Event.AppendJSON) has everything. It returns "" for an event that says
// nothing new (see Words): print nothing for it.
func (n *Narrator) Line(e Event) string {
	w := n.Words(e)
	if w.Label == "" {
		return ""
	}
	return fmt.Sprintf("%s %-9s %s", e.Time.Local().Format("15:04:05"), w.Label, OneLine(w.Text, 400))
}

// Words returns the words of e. They are empty (no Label) for an event that says nothing
// new: Claude Code's refusal of a call that a person or segwi had denied already, which
// the answer said. Show nothing for those.
func (n *Narrator) Words(e Event) Words {
	switch e.Type {
	case EventInit:
		return Words{"session", initText(e.Init)}
	case EventText:
		if e.Subtype == TextFromACP {
			return Words{"agent", e.Text} // another agent than Claude Code (runs/acp)
		}
		return Words{"claude", e.Text}
	case EventPrompt:
		return Words{"you", promptText(e.Text)}
	case EventToolCall:
		call := callText(e.ToolName, e.Input)
		n.remember(e.ToolUseID, call)
		return Words{"tool", call}
	case EventToolResult:
		label, out := "output", e.Text
		if e.IsError {
			label = "error"
		}
		if strings.TrimSpace(out) == "" {
			out = "(no output)"
		}
		if e.ToolName != "" {
			out = e.ToolName + ": " + out
		}
		return Words{label, out}
	case EventRefusal:
		if _, ok := n.denied[e.ToolUseID]; ok && e.Source == "user_reject" {
			return Words{} // the deny said it: "denied Bash: ls (by you)"
		}
		text := n.call(e)
		if by := refusedBy(e.Source); by != "" {
			text += " (" + by + ")"
		}
		if e.Text != "" {
			text += ": " + e.Text
		}
		return Words{"refused", text}
	case EventApprovalRequest:
		call := callText(e.ToolName, e.Input)
		n.remember(e.ToolUseID, call)
		if a := e.Approval; a != nil && a.RunEnds && !a.Deadline.IsZero() {
			// As the terminal and the notification said while it was asked.
			call += " (answer by " + a.Deadline.Local().Format("15:04:05") + ": the run ends then, at runs.maxDuration, and segwi denies it)"
		}
		if e.Approval != nil && e.Approval.Note != "" {
			return Words{"approve?", call + " (" + e.Approval.Note + ")"}
		}
		return Words{"approve?", call}
	case EventApprovalAnswer:
		return n.answerWords(e)
	case EventResult:
		return Words{"result", resultText(e)}
	case EventUsage:
		if e.Usage != nil {
			return Words{"usage", UsageText(e.Usage.Usage) + modelsText(e.Usage.Models)}
		}
	case EventBudget:
		return Words{"budget", e.Text}
	case EventStatus:
		return statusWords(e)
	case EventOutput:
		return Words{"stderr", e.Text}
	case EventState:
		if e.State == nil {
			return Words{"state", "changed"}
		}
		text := string(e.State.To)
		if e.State.Reason != "" {
			text += ": " + e.State.Reason
		}
		return Words{"state", text}
	case EventExit:
		switch {
		case e.Exit == nil:
			return Words{"exit", "the process ended"}
		case e.Exit.Signal != "" && e.Exit.Code > 128:
			return Words{"exit", fmt.Sprintf("code %d, %s", e.Exit.Code, SignalWords(syscall.Signal(e.Exit.Code-128)))}
		case e.Exit.Signal != "":
			return Words{"exit", fmt.Sprintf("code %d (%s)", e.Exit.Code, e.Exit.Signal)}
		}
		return Words{"exit", fmt.Sprintf("code %d", e.Exit.Code)}
	case EventPush:
		return Words{"push", pushText(e)}
	case EventBase:
		return Words{"base", BaseText(e.Base)}
	case EventCommit:
		if e.Commit != nil {
			return Words{"commit", CommitText(*e.Commit)}
		}
	case EventPullRequest:
		if e.PullRequest != nil {
			return Words{"pull request", fmt.Sprintf("#%d %s (%s into %s)", e.PullRequest.Number, e.PullRequest.URL, e.PullRequest.Head, e.PullRequest.Base)}
		}
	case EventContinued:
		return Words{"continued", "by run " + e.Text}
	case EventLeftover:
		return Words{"leftover", e.Text}
	case EventWorktree:
		return Words{"worktree", e.Text}
	case EventSetup:
		return Words{"setup", e.Text}
	case EventPorts:
		return Words{"ports", e.Text + " (SEGWI_PORT, SEGWI_PORT_COUNT)"}
	case EventRaw:
		return rawWords(e)
	case EventCapped:
		return Words{"capped", e.Text}
	case EventDropped:
		where := "the run's record has them, up to its cap"
		if e.RunID != "" {
			where = "segwi runs events " + e.RunID + " shows what the record kept of them"
		}
		return Words{"missed", fmt.Sprintf("%d events not shown: they came faster than they could be shown; %s", e.Dropped, where)}
	}
	if e.Text != "" {
		return Words{string(e.Type), e.Text}
	}
	return Words{string(e.Type), "(an event this segwi does not know)"}
}

// remember keeps a call's words for the events that refer to it.
func (n *Narrator) remember(id, call string) {
	if id == "" {
		return
	}
	if n.calls == nil || len(n.calls) >= maxRemembered {
		n.calls = map[string]string{}
	}
	n.calls[id] = call
}

// call is the words of the call e refers to: remembered, else its tool's name.
func (n *Narrator) call(e Event) string {
	if c := n.calls[e.ToolUseID]; c != "" {
		return c
	}
	if e.ToolName != "" {
		return e.ToolName
	}
	return "a call"
}

// answerWords says how an approval request was answered: allowed or denied, the call,
// who answered and how long it waited, and the message Claude Code got.
func (n *Narrator) answerWords(e Event) Words {
	a := e.Approval
	if a == nil {
		return Words{"approval", n.call(e)}
	}
	label := "denied"
	if a.Allow {
		label = "allowed"
	} else if a.By == string(approvals.ByCancelled) {
		label = "withdrawn" // Claude Code stopped waiting: nobody denied it
	} else if e.ToolUseID != "" {
		if n.denied == nil || len(n.denied) >= maxRemembered {
			n.denied = map[string]struct{}{}
		}
		n.denied[e.ToolUseID] = struct{}{}
	}
	var why []string
	if who := answeredBy(a); who != "" {
		why = append(why, who)
	}
	if a.WaitedMS > 0 && a.By != string(approvals.ByTrusted) { // a rule answers at once: its wait says nothing
		why = append(why, "after "+waited(a.WaitedMS))
	}
	text := n.call(e)
	if len(why) > 0 {
		text += " (" + strings.Join(why, ", ")
		if a.Interrupt {
			text += ", and the run was stopped"
		}
		text += ")"
	} else if a.Interrupt {
		text += " (and the run was stopped)"
	}
	if a.Message != "" {
		text += ": " + a.Message
	}
	return Words{label, text}
}

// answeredBy says who or what answered, from approvals' Answerer values.
func answeredBy(a *ApprovalInfo) string {
	switch a.By {
	case "person":
		if a.Who != "" {
			return "by you from " + a.Who
		}
		return "by you"
	case "trusted":
		if a.Rule != "" {
			return "trusted: " + a.Rule
		}
		return "by a trusted rule"
	case "timeout":
		return "nobody answered in time"
	case "run-ended":
		return "the run ended first"
	case "no-terminal":
		return "no person at a terminal"
	case "limit":
		return "too many requests waiting"
	case "failure":
		return "nobody could be asked"
	case "cancelled":
		return "by Claude Code's own timeout"
	case "unknown-call":
		return "not a call Claude Code is making"
	case "invalid":
		return "a request that reads two ways"
	case "":
		return ""
	}
	return "by " + a.By
}

// waited renders a wait of ms milliseconds: "3ms", "1.5s", "2m3.4s".
func waited(ms int64) string {
	d := time.Duration(ms) * time.Millisecond
	if d >= time.Second {
		d = d.Round(100 * time.Millisecond)
	}
	return d.String()
}

// refusedBy names who refused a call, from Claude Code's permission_decision source.
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
	case "config", "rule":
		return "Claude Code's permissions" // its settings' rules, and auto mode's verdicts too
	}
	return source
}

// pushText says how a push attempt ended, in the words segwi push prints.
func pushText(e Event) string {
	a := e.Push
	if a == nil {
		return e.Text
	}
	if a.Outcome == Pushed {
		return a.Message
	}
	return "not pushed: " + a.Message
}

// callText shows a tool call the way a person thinks of it: the tool and the command of
// a Bash call, the file of a Read or Edit, the pattern of a search, else the input's JSON.
func callText(tool string, input json.RawMessage) string {
	if tool == "" {
		tool = "a tool"
	}
	if s := inputSummary(input); s != "" {
		return tool + ": " + s
	}
	return tool
}

// summaryKeys are the input fields that say what a call does, most telling first.
var summaryKeys = []string{"command", "file_path", "notebook_path", "pattern", "path", "url", "query", "description", "prompt"}

func inputSummary(input json.RawMessage) string {
	var fields map[string]any
	if json.Unmarshal(input, &fields) == nil {
		for _, key := range summaryKeys {
			if v, ok := fields[key].(string); ok && v != "" {
				return v
			}
		}
		if len(fields) == 0 {
			return ""
		}
	}
	var b bytes.Buffer
	if json.Compact(&b, input) == nil {
		return b.String()
	}
	return string(input)
}

// Plural counts n of what for a person: "1 file", "3 files".
func Plural(n int, what string) string {
	if n == 1 {
		return "1 " + what
	}
	return fmt.Sprintf("%d %ss", n, what)
}

// OneLine shows s on one line, at most max runes: newlines as "⏎", escapes as "␛", the
// other control characters and the invisible ones escaped (visible.Escape), and "…" when
// it was shortened. Only the start of s that can show is read: a 4 KB text costs what its
// first max runes do.
func OneLine(s string, max int) string {
	s = strings.TrimRight(s, "\r\n")
	// Most texts start with plain ASCII: when the runes that can show are all printable
	// ASCII, they show as they are.
	plain := 0
	for plain < len(s) && plain <= max && s[plain] >= 0x20 && s[plain] < 0x7f {
		plain++
	}
	switch {
	case plain > max:
		return s[:max] + "…"
	case plain == len(s):
		return s
	}
	var b strings.Builder
	b.Grow(min(len(s), max+8))
	n, i, from := 0, 0, 0 // runes shown, where in s, and where the plain text since began
	for i < len(s) && n <= max {
		c := s[i]
		if c != '\r' && c != '\n' && c != '\x1b' {
			// Plain: copied with the rest of its stretch. A rune's bytes go together; a byte
			// that is not UTF-8 goes alone, and is escaped below.
			if c < utf8.RuneSelf {
				i++
			} else {
				_, size := utf8.DecodeRuneInString(s[i:])
				i += size
			}
			n++
			continue
		}
		b.WriteString(s[from:i])
		switch {
		case c == '\r' && i+1 < len(s) && s[i+1] == '\n':
			b.WriteString("⏎")
			i++
		case c == '\n':
			b.WriteString("⏎")
		case c == '\r':
			n-- // shows as nothing
		case c == '\x1b':
			b.WriteString("␛")
		}
		i++
		n++
		from = i
	}
	b.WriteString(s[from:i])
	line := visible.Escape(b.String()) // the other control characters, bidirectional overrides
	if i == len(s) && utf8.RuneCountInString(line) <= max {
		return line
	}
	n = 0
	for j := range line {
		if n == max {
			return line[:j] + "…"
		}
		n++
	}
	return line + "…"
}

// BaseText says where a run started, for a person: "main at 1a2b3c4d5e6f, clean",
// "main at 1a2b3c4d5e6f, 2 files already changed: a.txt, b.txt".
func BaseText(b *Base) string {
	switch {
	case b == nil:
		return "not recorded"
	case b.Error != "":
		return "not known: " + b.Error
	}
	var where string
	switch {
	case b.Detached:
		where = "detached HEAD at " + shortHash(b.Commit)
	case b.Unborn:
		where = b.Branch + ", no commit yet"
	default:
		where = b.Branch + " at " + shortHash(b.Commit)
	}
	if b.DirtyCount == 0 {
		return where + ", clean"
	}
	const shown = 5
	names := b.Dirty[:min(len(b.Dirty), shown)]
	more := ""
	if b.DirtyCount > len(names) {
		more = fmt.Sprintf(" and %d more", b.DirtyCount-len(names))
	}
	return fmt.Sprintf("%s, %s already changed: %s%s", where, Plural(b.DirtyCount, "file"), strings.Join(names, ", "), more)
}
