package record

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
	"unicode/utf8"

	"github.com/segwi/segwi/approvals"
	"github.com/segwi/segwi/internal/lib/redact"
	"github.com/segwi/segwi/internal/lib/visible"
)

// Story is what happened in a conversation, read from its runs' records, as its commit
// and its pull request tell it: what the person asked, what Claude said it did, and what
// was allowed along the way, and by whom. Everything in it is as recorded: redacted.
type Story struct {
	Conversation Conversation
	// Said is what the person said, in order: each run's task, then the follow-ups sent
	// to it while it went on.
	Said []Said
	// Summary is Claude's final summary: the last text Claude wrote in the conversation's
	// last run (its last turn's result when it wrote none); "" when there is none.
	Summary string
	// Approved are the calls allowed through segwi's approval tool during the
	// conversation, by the person or a trusted rule, in order.
	Approved []Approved
	// Unread names the runs whose events could not be read (a damaged events.jsonl): what
	// they said and allowed is missing from the story.
	Unread []string
}

// Said is a message of the person's to a run of the conversation.
type Said struct {
	Run  string // the run it went to
	Text string // the person's words, as recorded
	// FollowUp says it was sent while the run went on; otherwise it is the run's task.
	FollowUp bool
}

// Approved is a call allowed during a conversation.
type Approved struct {
	Run  string // the run that made it
	Tool string // the tool: Bash, Edit, ...
	// Call is what the call does, as recorded: a Bash call's command, else what it names
	// (a file, a pattern, a URL), relative to the checkout, or its input's JSON.
	Call string
	// By is who allowed it, in words: "you", "you from phone", "your trusted rule"; Rule
	// is the trusted rule's prefix when a rule did.
	By, Rule string
}

// ReadStory reads the story of the conversation c from its runs' events under stateDir.
// A run whose events cannot be read is named in Story.Unread; the rest is told. Its cost
// grows with the size of the records (each event is decoded).
func ReadStory(stateDir string, c Conversation) Story {
	s := Story{Conversation: c}
	for i, run := range c.Runs {
		last := i == len(c.Runs)-1
		if p := strings.TrimSpace(run.Prompt); p != "" {
			s.Said = append(s.Said, Said{Run: run.ID, Text: p})
		}
		if stateDir == "" {
			continue
		}
		var prompts int
		var text, result string
		requests := map[string]Event{}
		err := ReadEvents(stateDir, run.ID, func(e Event) error {
			switch e.Type {
			case EventPrompt:
				if prompts++; prompts > 1 { // the first is the run's task, with its kind's words
					if t := strings.TrimSpace(e.Text); t != "" {
						s.Said = append(s.Said, Said{Run: run.ID, Text: t, FollowUp: true})
					}
				}
			case EventText:
				if t := strings.TrimSpace(e.Text); t != "" {
					text = t
				}
			case EventResult:
				if t := strings.TrimSpace(e.Text); t != "" {
					result = t
				}
			case EventApprovalRequest:
				if e.Approval != nil && len(requests) < maxStoryRequests {
					requests[e.Approval.RequestID] = e
				}
			case EventApprovalAnswer:
				if a := e.Approval; a != nil && a.Allow {
					req, ok := requests[a.RequestID]
					if !ok {
						req = Event{ToolName: e.ToolName}
					}
					s.Approved = append(s.Approved, approvedOf(run, req, a))
				}
			}
			return nil
		})
		if err != nil {
			s.Unread = append(s.Unread, run.ID)
		}
		if last {
			s.Summary = text
			if s.Summary == "" {
				s.Summary = result
			}
		}
	}
	return s
}

// maxStoryRequests bounds the approval requests of one run that ReadStory remembers while
// it waits for their answers.
const maxStoryRequests = 100_000

// approvedOf is the allowed call of run whose request was req and answer a.
func approvedOf(run Info, req Event, a *ApprovalInfo) Approved {
	ap := Approved{Run: run.ID, Tool: req.ToolName}
	if ap.Tool == "" {
		ap.Tool = "a tool"
	}
	var fields map[string]any
	if json.Unmarshal(req.Input, &fields) == nil {
		if cmd, ok := fields["command"].(string); ok && ap.Tool == "Bash" {
			ap.Call = cmd
		}
	}
	if ap.Call == "" {
		ap.Call = inputSummary(req.Input)
		if rel, err := filepath.Rel(run.Checkout, ap.Call); err == nil && filepath.IsAbs(ap.Call) && !strings.HasPrefix(rel, "..") {
			ap.Call = filepath.ToSlash(rel)
		}
	}
	switch a.By {
	case string(approvals.ByTrusted):
		ap.By, ap.Rule = "your trusted rule", a.Rule
	default:
		ap.By = "you"
		if who := deviceOf(a.Who); who != "" {
			ap.By += " from " + who
		}
	}
	return ap
}

// deviceOf is the device of who answered from another device, "phone (alice@example.com)",
// without the login: a pull request is read by others.
func deviceOf(who string) string {
	who = strings.TrimSpace(who)
	if i := strings.LastIndex(who, " ("); i > 0 && strings.HasSuffix(who, ")") {
		who = who[:i]
	}
	return who
}

// Title is what the conversation's commit and pull request are called by default: its
// first run's task's first line (WorkTitle).
func (s Story) Title() string { return WorkTitle(s.Conversation.First()) }

// maxSummaryRunes bounds Claude's summary in a commit message or a pull request's body.
const maxSummaryRunes = 8000

// summary is Claude's final summary, cut at maxSummaryRunes.
func (s Story) summary() string { return cutRunes(s.Summary, maxSummaryRunes) }

// CommitMessage is the default message of a commit of the conversation's work: its title,
// then Claude's final summary. segwi adds the runs' trailer itself (WithTrailer) when the
// settings say so.
func (s Story) CommitMessage() string {
	msg := s.Title()
	if sum := s.summary(); sum != "" {
		msg += "\n\n" + sum
	}
	return strings.TrimSuffix(cleanText(msg), "\n")
}

// The bounds of a pull request's body: GitHub takes at most 65,536 characters.
const (
	maxBodySaid     = 20   // messages of the person's told
	maxSaidRunes    = 2000 // of each
	maxBodyApproved = 100  // allowed calls listed
	maxCallRunes    = 500  // of each
)

// PullRequestBody is the default body of the conversation's pull request: Claude's final
// summary, then the conversation (the runs, what the person asked and followed up with),
// and, when withApprovals is set, what was allowed during it and by whom. It is
// redacted as the records are (and once more), and written as Markdown, with the
// characters that would hide or reorder text shown as escapes (visible.Escape).
func (s Story) PullRequestBody(withApprovals bool) string {
	var b strings.Builder
	if sum := s.summary(); sum != "" {
		b.WriteString(sum)
		b.WriteString("\n\n")
	}
	c := s.Conversation
	b.WriteString("## Conversation\n\n")
	first := c.First()
	kind := string(first.Kind)
	if len(c.Runs) == 1 {
		fmt.Fprintf(&b, "Made by a segwi %s run of Claude Code (`%s`), cost $%.4f.\n", kind, first.ID, c.CostUSD())
	} else {
		fmt.Fprintf(&b, "Made by a segwi %s run of Claude Code and %s (%s), cost $%.4f in all.\n",
			kind, Plural(len(c.Runs)-1, "continuation"), codeList(c.IDs()), c.CostUSD())
	}
	for i, said := range s.Said {
		if i == maxBodySaid {
			fmt.Fprintf(&b, "\n…and %s more.\n", Plural(len(s.Said)-maxBodySaid, "message"))
			break
		}
		who := "**Asked**"
		switch {
		case said.FollowUp:
			who = "**Followed up**"
		case said.Run != first.ID:
			who = "**Continued**"
		}
		fmt.Fprintf(&b, "\n%s (`%s`):\n\n%s\n", who, said.Run, quote(cutRunes(said.Text, maxSaidRunes)))
	}
	if withApprovals {
		b.WriteString("\n## Approvals\n\n")
		if len(s.Approved) == 0 {
			b.WriteString("Nothing was allowed through segwi's approvals: what ran, Claude Code's own permissions and auto mode allowed.\n")
		}
		for i, ap := range s.Approved {
			if i == maxBodyApproved {
				fmt.Fprintf(&b, "- …and %s more.\n", Plural(len(s.Approved)-maxBodyApproved, "call"))
				break
			}
			b.WriteString("- " + ap.Line() + "\n")
		}
	}
	if len(s.Unread) > 0 {
		fmt.Fprintf(&b, "\nThe record of %s could not be read: what was said and allowed in it is missing here.\n", codeList(s.Unread))
	}
	return visible.Escape(redact.New().String(cleanText(b.String())))
}

// Line says what was allowed and by whom, in Markdown: "allowed by you from phone: `rm -rf
// build`", "allowed by your trusted rule `go test`: `go test ./...`", "allowed by you: Edit
// `web/login.go`".
func (ap Approved) Line() string {
	by := "allowed by " + ap.By
	if ap.Rule != "" {
		by += " " + codeSpan(ap.Rule)
	}
	call := codeSpan(cutRunes(ap.Call, maxCallRunes))
	if ap.Tool != "Bash" {
		call = ap.Tool + " " + call
	}
	return by + ": " + call
}

// codeSpan writes s as Markdown code: a span fenced by more backticks than any run of them
// in s, a line break shown as ⏎.
func codeSpan(s string) string {
	s = strings.NewReplacer("\r\n", "⏎", "\n", "⏎", "\r", "⏎").Replace(s)
	longest, run := 0, 0
	for _, r := range s {
		if r == '`' {
			run++
			longest = max(longest, run)
		} else {
			run = 0
		}
	}
	fence := strings.Repeat("`", longest+1)
	if strings.HasPrefix(s, "`") || strings.HasSuffix(s, "`") || s == "" {
		s = " " + s + " "
	}
	return fence + s + fence
}

// codeList writes ids as code, joined: "`a`, `b` and `c`".
func codeList(ids []string) string {
	out := make([]string, len(ids))
	for i, id := range ids {
		out[i] = codeSpan(id)
	}
	if len(out) == 1 {
		return out[0]
	}
	return strings.Join(out[:len(out)-1], ", ") + " and " + out[len(out)-1]
}

// quote writes text as a Markdown block quote.
func quote(text string) string {
	lines := strings.Split(text, "\n")
	for i, l := range lines {
		lines[i] = strings.TrimRight("> "+l, " ")
	}
	return strings.Join(lines, "\n")
}

// cutRunes cuts s at n runes, saying how much it left out.
func cutRunes(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	r := []rune(s)
	return string(r[:n]) + fmt.Sprintf("… (%d more characters)", len(r)-n)
}

// cleanText is text with Windows line ends made plain and trailing white space trimmed.
func cleanText(s string) string {
	s = strings.ReplaceAll(s, "\r\n", "\n")
	lines := strings.Split(s, "\n")
	for i, l := range lines {
		lines[i] = strings.TrimRight(l, " \t\r")
	}
	return strings.TrimSpace(strings.Join(lines, "\n")) + "\n"
}
