// Package approvals answers the permission requests that Claude Code escalates from a run.
//
// segwi wires one approval tool into every run (--permission-prompt-tool
// mcp__segwi__approve). Claude Code calls it over a loopback MCP server with the run's own
// bearer token. A request is answered only by a trusted-command rule the person configured,
// by a person (through a Decider: a desktop popup or a terminal prompt), or by a timeout,
// which denies and says so. No HTTP or MCP route answers a request.
package approvals

import (
	"context"
	"encoding/json"
	"time"
)

// RunInfo identifies a run to the approvals server and to the person who decides.
type RunInfo struct {
	ID       string
	Kind     string // build, ready or ask
	Checkout string
}

// Run is what the approvals server needs of a run while it is registered.
type Run interface {
	// RecordApproval appends a request to the run's record: once when it arrives
	// (Answer nil) and once with its answer.
	RecordApproval(Record)
	// SetPending tells the run how many of its requests now wait for a person;
	// the run is in state waiting while that is above zero.
	SetPending(n int)
	// Stop asks the run to stop, as the person's "deny and stop the run" does.
	Stop()
}

// Request is one call of the approval tool.
type Request struct {
	ID        string          // segwi's id for the request, unique within the process
	Run       RunInfo         // the run it belongs to
	ToolName  string          // the tool Claude Code wants to use, e.g. "Bash"
	Input     json.RawMessage // the tool's input, as Claude Code sent it
	ToolUseID string
	Asked     time.Time
	Deadline  time.Time // when it is denied for want of an answer
}

// Answerer says who or what answered a request.
type Answerer string

// The answerers a request's record can name.
const (
	ByPerson     Answerer = "person"
	ByTrusted    Answerer = "trusted"     // a trusted-command rule (Answer.Rule names it)
	ByTimeout    Answerer = "timeout"     // nobody answered within approvals.timeout
	ByRunEnded   Answerer = "run-ended"   // the run ended while the request waited
	ByNoTerminal Answerer = "no-terminal" // headless, and no person at a terminal
	ByLimit      Answerer = "limit"       // too many requests of the run were pending
)

// Answer is the answer to a request.
type Answer struct {
	Allow     bool
	Interrupt bool   // deny and stop: Claude Code aborts the turn
	Message   string // for a deny: who denied and why (Claude Code shows it to the model)
	By        Answerer
	Rule      string        // the trusted prefix that matched, when By is ByTrusted
	Waited    time.Duration // from the request's arrival to its answer
}

// Record is a request, with its answer once it has one.
type Record struct {
	Request Request
	Answer  *Answer
}

// A Decider puts a request in front of a person.
type Decider interface {
	// Decide shows req to a person and returns their answer (By ByPerson, or ByNoTerminal
	// when no person can be asked). It returns when they answer or when ctx is done:
	// ctx is cancelled when the request times out or is withdrawn because its run ended,
	// and the Decider must then take the request away from the person's view.
	Decide(ctx context.Context, req Request) (Answer, error)
}

// Registration is what a run needs to reach the approvals server.
type Registration struct {
	URL   string // the MCP endpoint, http://127.0.0.1:PORT/mcp
	Token string // the run's bearer token; valid until the run is unregistered
}

// ServerName and ToolName make up the tool name Claude Code is given:
// --permission-prompt-tool mcp__segwi__approve.
const (
	ServerName = "segwi"
	ToolName   = "approve"
	PromptTool = "mcp__" + ServerName + "__" + ToolName
)

// MCPConfig returns the --mcp-config document that points Claude Code at the server with
// the run's token. It holds the token: write it only to a 0600 file in the run's folder.
func (r Registration) MCPConfig() []byte {
	doc := map[string]any{
		"mcpServers": map[string]any{
			ServerName: map[string]any{
				"type":    "http",
				"url":     r.URL,
				"headers": map[string]string{"Authorization": "Bearer " + r.Token},
			},
		},
	}
	b, err := json.MarshalIndent(doc, "", "  ")
	if err != nil {
		panic(err) // a map of strings always marshals
	}
	return b
}
