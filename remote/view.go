package remote

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/segwi/segwi/control"
	"github.com/segwi/segwi/internal/visible"
)

// What the page shows is worked out here, from the control channel's messages, so that the
// browser only puts text in place: every text has passed through visible.Escape (what the
// person approves is what they read: a control character or a bidirectional override
// shows as an escape, as in the desktop popup), and a tool's input is shown as the
// command, the file and its change, or indented JSON, cut at maxShownInput.

// maxShownInput caps how much of a tool's input the page shows, as the popup does; the
// page says how much it left out, so the person can deny what they cannot see whole.
const maxShownInput = 64 << 10

// maxShownPrompt caps the task shown with each run.
const maxShownPrompt = 4 << 10

// pageRun is a run as the page lists it.
type pageRun struct {
	ID      string    `json:"id"`
	Kind    string    `json:"kind"`
	Name    string    `json:"name"`             // the repository's name, else the checkout's folder
	Prompt  string    `json:"prompt,omitempty"` // the task or question
	State   string    `json:"state"`
	Reason  string    `json:"reason,omitempty"`
	Created time.Time `json:"created"`
	End     time.Time `json:"end,omitzero"`
}

func pageRunOf(r control.Run) pageRun {
	return pageRun{
		ID: r.ID, Kind: show(string(r.Kind)), Name: show(r.Name), Prompt: cut(show(r.Prompt), maxShownPrompt),
		State: string(r.State), Reason: show(r.Reason), Created: r.Created, End: r.End,
	}
}

// pageApproval is a waiting request as the page shows it.
type pageApproval struct {
	Request     string     `json:"request"`
	Run         string     `json:"run"`
	Kind        string     `json:"kind"`
	Name        string     `json:"name"`
	Prompt      string     `json:"prompt,omitempty"`
	Tool        string     `json:"tool"`
	Caption     string     `json:"caption"`               // what Text is: "Command", "Input", ...
	File        string     `json:"file,omitempty"`        // the file a Write or Edit changes
	Text        string     `json:"text,omitempty"`        // the command, the content, or the input as JSON
	Diff        []diffLine `json:"diff,omitempty"`        // an Edit's change
	Description string     `json:"description,omitempty"` // a Bash call's own description
	Left        int        `json:"left,omitempty"`        // bytes of the input not shown
	Asked       time.Time  `json:"asked"`
	Deadline    time.Time  `json:"deadline"`
}

// diffLine is one line of an Edit's change: "-" removed, "+" added.
type diffLine struct {
	Op   string `json:"op"`
	Text string `json:"text"`
}

// toolInput is the part of a tool's input the page knows how to show.
type toolInput struct {
	Command     *string `json:"command"`
	Description string  `json:"description"`
	FilePath    string  `json:"file_path"`
	Content     *string `json:"content"`
	OldString   *string `json:"old_string"`
	NewString   *string `json:"new_string"`
	ReplaceAll  bool    `json:"replace_all"`
	Edits       []struct {
		OldString string `json:"old_string"`
		NewString string `json:"new_string"`
	} `json:"edits"`
}

func pageApprovalOf(a control.Approval) pageApproval {
	p := pageApproval{
		Request: a.Request, Run: a.Run.ID, Kind: show(string(a.Run.Kind)), Name: show(a.Run.Name),
		Prompt: cut(show(a.Run.Prompt), maxShownPrompt), Tool: show(orDefault(a.Tool, "a tool")),
		Asked: a.Asked, Deadline: a.Deadline,
	}
	var in toolInput
	known := json.Unmarshal(a.Input, &in) == nil
	budget := maxShownInput
	take := func(s string) string {
		s = show(s)
		if len(s) <= budget {
			budget -= len(s)
			return s
		}
		shown := cut(s, budget)
		p.Left += len(s) - len(shown)
		budget = 0
		return shown
	}
	switch {
	case known && a.Tool == "Bash" && in.Command != nil:
		p.Caption, p.Text, p.Description = "Command", take(*in.Command), take(strings.TrimSpace(in.Description))
	case known && a.Tool == "Write" && in.Content != nil:
		p.Caption, p.File, p.Text = "Writes the whole file", take(in.FilePath), take(*in.Content)
	case known && a.Tool == "Edit" && in.OldString != nil && in.NewString != nil:
		p.Caption, p.File = "Changes the file", take(in.FilePath)
		if in.ReplaceAll {
			p.Caption += ", at every place the old text appears"
		}
		p.Diff = diff(*in.OldString, *in.NewString, take)
	case known && a.Tool == "MultiEdit" && len(in.Edits) > 0:
		p.Caption, p.File = fmt.Sprintf("Changes the file in %d places", len(in.Edits)), take(in.FilePath)
		for _, e := range in.Edits {
			p.Diff = append(p.Diff, diff(e.OldString, e.NewString, take)...)
		}
	default:
		p.Caption, p.Text = "Input", take(indent(a.Input))
	}
	return p
}

// diff shows an edit as its old lines removed and its new lines added.
func diff(old, new string, take func(string) string) []diffLine {
	var out []diffLine
	for _, l := range strings.Split(old, "\n") {
		out = append(out, diffLine{"-", take(l)})
	}
	for _, l := range strings.Split(new, "\n") {
		out = append(out, diffLine{"+", take(l)})
	}
	return out
}

// pageGone says that a request no longer waits, and why, for the page to take it away.
type pageGone struct {
	Request string `json:"request"`
	Run     string `json:"run"`
	Text    string `json:"text"` // what happened, for a person: "Allowed by phone (alice@...)"
}

func pageGoneOf(g control.ApprovalGone) pageGone {
	var text string
	switch g.Why {
	case control.WhyAnswered:
		text = "Denied"
		if g.Allow {
			text = "Allowed"
		}
		if g.By != "" {
			text += " by " + g.By
		}
	case control.WhyTimedOut:
		text = "Denied: nobody answered in time"
	case control.WhyRunEnded:
		text = "The run ended first"
	case control.WhyElsewhere:
		text = "Answered at the computer running segwi"
	default:
		text = "Claude Code withdrew the request"
	}
	return pageGone{Request: g.Request, Run: g.Run, Text: show(text)}
}

// indent shows a tool's input as indented JSON, or as it came when it is not JSON.
func indent(input json.RawMessage) string {
	var buf bytes.Buffer
	if json.Indent(&buf, input, "", "  ") != nil {
		return string(input)
	}
	return buf.String()
}

// show makes a text safe to put before a person.
func show(s string) string { return visible.Escape(s) }

// cut shortens s to at most n bytes, on a character boundary.
func cut(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n]
}

func orDefault(s, def string) string {
	if s == "" {
		return def
	}
	return s
}
