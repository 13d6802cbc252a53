package remote

import (
	"fmt"
	"time"
	"unicode/utf8"

	"github.com/segwi/segwi/approvals"
	"github.com/segwi/segwi/control"
	"github.com/segwi/segwi/internal/lib/visible"
)

// What the page shows is worked out here, from the control channel's messages, so that the
// browser only puts text in place. A request shows as its one view (approvals.View), as the
// desktop popup, the run window and the terminal show it: its exact input, never redacted,
// every text passed through visible.Escape (a control character or a bidirectional override
// shows as an escape), a file relative to the checkout, a change as a diff.

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
	// AtBudget says that the run waits at its budget ("budget reached"), for the person to
	// raise it (Raise and go on) or stop it; Budget is its budget then, whose bounds the
	// page offers to raise, each by itself again to start with.
	AtBudget bool        `json:"atBudget,omitempty"`
	Budget   *pageBudget `json:"budget,omitempty"`
}

// pageBudget is a run's budget as the page offers to raise it: a zero bound is none.
type pageBudget struct {
	Cost   float64 `json:"cost,omitempty"`
	Tokens int64   `json:"tokens,omitempty"`
	Turns  int     `json:"turns,omitempty"`
}

func pageRunOf(r control.Run) pageRun {
	p := pageRun{
		ID: r.ID, Kind: show(string(r.Kind)), Name: show(r.Name), Prompt: cut(show(r.Prompt), maxShownPrompt),
		State: string(r.State), Reason: show(r.Reason), Created: r.Created, End: r.End,
	}
	if r.WaitsAtBudget() && r.Budget != nil {
		p.AtBudget = true
		p.Budget = &pageBudget{Cost: r.Budget.CostUSD, Tokens: r.Budget.Tokens, Turns: r.Budget.Turns}
	}
	return p
}

// pageApproval is a waiting request as the page shows it: the run it comes from, and the
// request's view.
type pageApproval struct {
	Request string `json:"request"`
	Run     string `json:"run"`
	Kind    string `json:"kind"`
	Name    string `json:"name"`
	Prompt  string `json:"prompt,omitempty"`
	Tool    string `json:"tool"`
	// Shape says what Text is: the command ("command"), the input's JSON ("json"), or,
	// for "change", nothing: Diff is the file's change.
	Shape       approvals.Shape        `json:"shape"`
	Caption     string                 `json:"caption"`        // what the main text is: "Command", "Edit docs/a.go", "Input"
	File        string                 `json:"file,omitempty"` // the file a file tool changes, relative to the checkout
	Text        string                 `json:"text,omitempty"` // the command, or the input as JSON
	Diff        []approvals.ChangeLine `json:"diff,omitempty"` // a file tool's change
	JSON        string                 `json:"json"`           // the input as JSON, for every shape
	Description string                 `json:"description,omitempty"`
	Runs        string                 `json:"runs,omitempty"`    // how a Bash call asks to run, beyond its command
	Unread      string                 `json:"unread,omitempty"`  // why the input shows as JSON
	Note        string                 `json:"note,omitempty"`    // what segwi noticed about the request
	Secret      string                 `json:"secret,omitempty"`  // that the input looks as though it holds a secret
	SHA256      string                 `json:"sha256"`            // of the exact input
	Cut         string                 `json:"cut,omitempty"`     // what the main text leaves out
	JSONCut     string                 `json:"jsonCut,omitempty"` // what JSON leaves out
	Asked       time.Time              `json:"asked"`
	Deadline    time.Time              `json:"deadline"`
	RunEnds     bool                   `json:"runEnds,omitempty"` // the deadline is the run's end (runs.maxDuration)
	ReasonHint  string                 `json:"reasonHint"`        // who reads a deny's reason (approvals.DenyReasonHint)
}

func pageApprovalOf(a control.Approval) pageApproval {
	v := a.Broker().View()
	p := pageApproval{
		Request: a.Request, Run: a.Run.ID, Kind: show(string(a.Run.Kind)), Name: show(a.Run.Name),
		Prompt: cut(show(a.Run.Prompt), maxShownPrompt), Tool: v.Tool, Shape: v.Shape, Caption: v.Caption,
		File: v.File, Diff: v.Change, JSON: v.JSON, Description: v.Description, Runs: v.Runs, Unread: v.Unread,
		Note: v.Note, Secret: v.Secret, SHA256: v.SHA256, Cut: v.Cut, JSONCut: v.JSONCut,
		Asked: a.Asked, Deadline: a.Deadline, RunEnds: a.RunEnds, ReasonHint: show(approvals.DenyReasonHint(a.Run.Agent)),
	}
	switch v.Shape {
	case approvals.ShapeCommand:
		p.Text = v.Command
	case approvals.ShapeJSON:
		p.Text = v.JSON
	}
	return p
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
		agent := approvals.AgentWords(g.Agent)
		text = agent + " stopped waiting for it (its own timeout); nobody declined it"
		if g.WaitedMS > 0 {
			waited := (time.Duration(g.WaitedMS) * time.Millisecond).Round(time.Second)
			text = fmt.Sprintf("%s stopped waiting for it after %s (its own timeout); nobody declined it", agent, waited)
		}
	}
	return pageGone{Request: g.Request, Run: g.Run, Text: show(text)}
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
