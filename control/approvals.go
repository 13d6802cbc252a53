package control

import (
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/segwi/segwi/approvals"
	"github.com/segwi/segwi/runs/record"
)

// RunRef names the run a request belongs to, with what a person needs to tell it apart.
type RunRef struct {
	ID       string      `json:"id"`
	Kind     record.Kind `json:"kind"`
	Checkout string      `json:"checkout"`
	Name     string      `json:"name"`             // the repository's name, else the folder's
	Prompt   string      `json:"prompt,omitempty"` // the task or question, as the person typed it
	Agent    string      `json:"agent,omitempty"`  // the run's agent, when not Claude Code (approvals.RunInfo.Agent)
}

// Approval is a request that waits for a person. As a message, it says that it now waits
// (sent whole, so applying it twice is harmless).
type Approval struct {
	Request   string          `json:"request"` // the broker's request id
	Run       RunRef          `json:"run"`
	Tool      string          `json:"tool"`            // the tool Claude Code wants to use, e.g. "Bash"
	Input     json.RawMessage `json:"input,omitempty"` // the tool's input, as Claude Code sent it
	ToolUseID string          `json:"toolUseID,omitempty"`
	Asked     time.Time       `json:"asked"`
	Deadline  time.Time       `json:"deadline"` // when it is denied for want of an answer
	// RunEnds says that Deadline is the run's end, its runs.maxDuration, which comes before
	// the approval timeout (approvals.Request.RunEnds): the run ends then too.
	RunEnds bool `json:"runEnds,omitempty"`
	// Note is what segwi noticed about the call (approvals.Request.Note), when anything.
	Note string `json:"note,omitempty"`
}

// MessageType returns TypeApproval.
func (Approval) MessageType() Type { return TypeApproval }

func (a Approval) check() error {
	if a.Request == "" {
		return errors.New("no request id")
	}
	return needRun(a.Run.ID)
}

// ApprovalOf is the Approval of req, whose run is known to a person as name and was
// started with prompt.
func ApprovalOf(req approvals.Request, name, prompt string) Approval {
	return Approval{
		Request:   req.ID,
		Run:       RunRef{ID: req.Run.ID, Kind: record.Kind(req.Run.Kind), Checkout: req.Run.Checkout, Name: name, Prompt: prompt, Agent: req.Run.Agent},
		Tool:      req.ToolName,
		Input:     req.Input,
		ToolUseID: req.ToolUseID,
		Asked:     req.Asked,
		Deadline:  req.Deadline,
		RunEnds:   req.RunEnds,
		Note:      req.Note,
	}
}

// Broker is the request as the approvals broker holds it (approvals.Request), on which the
// window process's popups are built.
func (a Approval) Broker() approvals.Request {
	return approvals.Request{
		ID: a.Request,
		Run: approvals.RunInfo{ID: a.Run.ID, Kind: string(a.Run.Kind), Checkout: a.Run.Checkout,
			Name: a.Run.Name, Prompt: a.Run.Prompt, Agent: a.Run.Agent},
		ToolName:  a.Tool,
		Input:     a.Input,
		ToolUseID: a.ToolUseID,
		Asked:     a.Asked,
		Deadline:  a.Deadline,
		RunEnds:   a.RunEnds,
		Note:      a.Note,
	}
}

// Approvals is a snapshot of every request waiting for a person, oldest first. A client
// replaces what it knew with it.
type Approvals struct {
	Waiting []Approval `json:"waiting"`
}

// MessageType returns TypeApprovals.
func (Approvals) MessageType() Type { return TypeApprovals }

// Why says why a request no longer waits.
type Why string

// The reasons a request stops waiting.
const (
	WhyAnswered  Why = "answered"  // a person answered it (By says who)
	WhyTimedOut  Why = "timed-out" // nobody answered within approvals.timeout: denied
	WhyRunEnded  Why = "run-ended" // its run ended: denied
	WhyWithdrawn Why = "withdrawn" // the run's agent stopped waiting for it (its own timeout), or it could not be asked
	// WhyElsewhere: the person answered it where segwi asked too, outside this channel (the
	// terminal of a headless segwi run, approvals.ErrAnsweredElsewhere).
	WhyElsewhere Why = "answered-elsewhere"
)

// ApprovalGone says that a request no longer waits: a client closes its popup.
type ApprovalGone struct {
	Request string `json:"request"`
	Run     string `json:"run"`
	Why     Why    `json:"why"`
	Allow   bool   `json:"allow,omitempty"` // the answer, when Why is WhyAnswered
	By      string `json:"by,omitempty"`    // who answered, when Why is WhyAnswered
	// WaitedMS is how long it waited, in milliseconds, when it stopped waiting without an
	// answer (GoneBecause): a person is told after how long the agent gave up.
	WaitedMS int64 `json:"waitedMS,omitempty"`
	// Agent is the run's agent, its runtime's name, when it is not Claude Code
	// (approvals.RunInfo.Agent): a person is told who stopped waiting.
	Agent string `json:"agent,omitempty"`
}

// MessageType returns TypeApprovalGone.
func (ApprovalGone) MessageType() Type { return TypeApprovalGone }

func (g ApprovalGone) check() error {
	if g.Request == "" {
		return errors.New("no request id")
	}
	switch g.Why {
	case WhyAnswered, WhyTimedOut, WhyRunEnded, WhyWithdrawn, WhyElsewhere:
		return needRun(g.Run)
	}
	return fmt.Errorf("unknown reason %q", g.Why)
}

// GoneOf is the ApprovalGone of a request answered with a; by is who answered, for a
// person's answer.
func GoneOf(req approvals.Request, a approvals.Answer, by string) ApprovalGone {
	g := ApprovalGone{Request: req.ID, Run: req.Run.ID, Allow: a.Allow, Agent: req.Run.Agent}
	switch a.By {
	case approvals.ByPerson, approvals.ByTrusted:
		g.Why, g.By = WhyAnswered, by
		if a.By == approvals.ByTrusted {
			g.By = "a trusted-command rule"
		}
	case approvals.ByTimeout:
		g.Why = WhyTimedOut
	case approvals.ByRunEnded:
		g.Why = WhyRunEnded
	default:
		g.Why = WhyWithdrawn
	}
	return g
}

// GoneBecause is the ApprovalGone of a request that stopped waiting before anyone
// answered it, at now, for the cause its context ended with (approvals.ErrTimedOut,
// approvals.ErrRunEnded, approvals.ErrAnsweredElsewhere, or anything else: withdrawn, as
// approvals.ErrWithdrawn is).
func GoneBecause(req approvals.Request, cause error, now time.Time) ApprovalGone {
	g := ApprovalGone{Request: req.ID, Run: req.Run.ID, Why: WhyWithdrawn, WaitedMS: now.Sub(req.Asked).Milliseconds(), Agent: req.Run.Agent}
	switch {
	case errors.Is(cause, approvals.ErrTimedOut):
		g.Why = WhyTimedOut
	case errors.Is(cause, approvals.ErrRunEnded):
		g.Why = WhyRunEnded
	case errors.Is(cause, approvals.ErrAnsweredElsewhere):
		g.Why = WhyElsewhere
	}
	return g
}

// Decision is a person's answer to a request.
type Decision string

// The decisions.
const (
	Allow       Decision = "allow"
	Deny        Decision = "deny"          // with an optional reason, which Claude Code sees
	DenyAndStop Decision = "deny-and-stop" // deny, and stop the run
)

// ByThisDesktop is who answers in the window process: its popups answer only on a click.
const ByThisDesktop = "the person at this desktop"

// Answer is a person's answer to a waiting request. The first answer wins, from any
// client; a later one is refused.
type Answer struct {
	Request  string   `json:"request"`
	Decision Decision `json:"decision"`
	Reason   string   `json:"reason,omitempty"` // for a deny: the person's words
	// By says who answered, for the run's record: ByThisDesktop from the window process.
	// A server fills it from what it knows of the connection for any other role.
	By string `json:"by"`
}

// MessageType returns TypeAnswer.
func (Answer) MessageType() Type { return TypeAnswer }

func (a Answer) check() error {
	if a.Request == "" {
		return errors.New("no request id")
	}
	switch a.Decision {
	case Allow, Deny, DenyAndStop:
		return nil
	}
	return fmt.Errorf("unknown decision %q: use allow, deny or deny-and-stop", a.Decision)
}

// AnswerOf is the Answer of a request that a person gave through a Decider (a popup):
// allow, deny or deny and stop, with their words.
func AnswerOf(request string, a approvals.Answer, by string) Answer {
	out := Answer{Request: request, Decision: Allow, By: by}
	if !a.Allow || a.Interrupt {
		out.Decision, out.Reason = Deny, a.Message
		if a.Interrupt {
			out.Decision = DenyAndStop
		}
	}
	return out
}

// Approval is the person's answer as the approvals broker takes it from a Decider. An
// answer from elsewhere than this desktop names where it came from (By) as the answer's
// Who, which the run records.
func (a Answer) Approval() approvals.Answer {
	out := approvals.Answer{By: approvals.ByPerson, Allow: a.Decision == Allow}
	if a.By != ByThisDesktop {
		out.Who = a.By
	}
	if !out.Allow {
		out.Interrupt = a.Decision == DenyAndStop
		out.Message = a.Reason
	}
	return out
}
