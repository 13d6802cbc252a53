// Package approvals answers the permission requests that Claude Code escalates from a run.
//
// segwi wires one approval tool into every run (--permission-prompt-tool
// mcp__segwi__approve). Claude Code calls it over a loopback MCP server with the run's own
// bearer token. A request is answered only by a trusted-command rule the person configured,
// by a person (through a Decider: a desktop popup or a terminal prompt), or by a timeout,
// which denies and says so. No HTTP or MCP route answers a request.
//
// The parts: the MCP server (package approvals/mcpserver: the endpoint and its refusals,
// Host, Origin, token, size, deadlines, a cap on connections) hands each call to a Broker,
// which applies the Trusted commands, keeps each run's pending requests, puts the rest in
// front of a Decider until the approval timeout, and records every request and answer on
// the Run. TerminalDecider is the Decider of headless `segwi run`; the desktop popup lives
// in the app package. This package holds no server and links no MCP code, so the window
// process, which shows requests and answers, does not link them either.
//
// Request.View is what a person is shown of a request, the same wherever they are asked:
// the popup, the run window, the approval page and the terminal render it and nothing else.
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
	// Name is the repository's name as the settings give it, when the one who asks the
	// person knows it; Describe names the checkout's folder without it.
	Name string
	// Prompt is the task or question as the person typed it, when known: two runs in one
	// checkout are told apart by it.
	Prompt string
	// Agent is the run's agent as a person calls it, its runtime's name ("codex"), when
	// it is not Claude Code: the answers the broker words name it. "" for Claude Code.
	Agent string
}

// agentWords is how an answer names info's agent: its runtime, or Claude Code.
func (info RunInfo) agentWords() string { return AgentWords(info.Agent) }

// DenyReasonHint says, beside the box where a person types why they deny a request, who
// reads it, for a run whose agent is agent (RunInfo.Agent): Claude Code shows the reason to
// the model; an ACP agent is sent it in the answer's _meta, which none tried reads, so it
// is sure only to be on the run's record.
func DenyReasonHint(agent string) string {
	if agent == "" {
		return "Claude sees it"
	}
	return "kept on the run's record; " + agent + " may not see it"
}

// AgentWords is how a person is told of a run's agent, agent being its runtime's name
// (RunInfo.Agent, runs.Info.Runtime): that name, or "Claude Code" for "".
func AgentWords(agent string) string {
	if agent == "" {
		return "Claude Code"
	}
	return agent
}

// Run is what the broker and the approvals server need of a run while it is registered.
type Run interface {
	// RecordApproval appends a request to the run's record: once when it arrives
	// (Answer nil) and once with its answer. It is never called once the run's removal
	// (Broker.RemoveRun, or the server's Unregister) has returned.
	RecordApproval(Record)
	// SetPending tells the run how many of its requests now wait for a person;
	// the run is in state waiting while that is above zero. Calls for one run come in
	// order; the last one before Unregister returns reports zero.
	SetPending(n int)
	// Stop asks the run to stop, as the person's "deny and stop the run" does. It is
	// called on a goroutine of its own once the deny is decided, and may come around or
	// just after Unregister; it must not wait for the run to end.
	Stop()
	// Connected tells the run that a request with its token arrived: Claude Code has read
	// the run's MCP configuration, so the file holding the token can go. It is called once,
	// on the request's goroutine, and may come around or just after Unregister.
	Connected()
	// ToolCallRunning reports whether Claude Code is making the tool call toolUseID: the
	// call appeared on the run's output and has no result yet. A request may arrive before
	// the run has read the line that announces its call, so it waits for the call to
	// appear; it returns false when ctx is done first (the broker bounds the wait).
	ToolCallRunning(ctx context.Context, toolUseID string) bool
	// Ending reports whether the run is on its way to its end: it was asked to stop, or
	// its Claude Code exited. A request whose Claude Code hangs up then was cut short by
	// the run's end; one it hangs up on while the run goes on was withdrawn by Claude
	// Code's own tool-call timeout. It must not block.
	Ending() bool
	// Ends returns when the run is to be ended whatever happens meanwhile (its
	// runs.maxDuration after it started, as the settings say now), or the zero time when
	// nothing ends it at a time known yet. A request waits no longer: its Deadline is the
	// earlier of this and the approval timeout. It must not block.
	Ends() time.Time
}

// Request is one call of the approval tool.
type Request struct {
	ID        string          // segwi's id for the request, unique within the process
	Run       RunInfo         // the run it belongs to
	ToolName  string          // the tool Claude Code wants to use, e.g. "Bash"
	Input     json.RawMessage // the tool's input, as Claude Code sent it
	ToolUseID string
	Asked     time.Time
	// Deadline is when segwi denies it for want of an answer: approvals.timeout after it
	// was asked, or sooner for a run started under a shorter timeout (see
	// Registration.ToolTimeout), or the run's own end when that comes first (RunEnds).
	// Every countdown shows it.
	Deadline time.Time
	// RunEnds says that Deadline is the run's end (Run.Ends, its runs.maxDuration), which
	// comes before the approval timeout: then the run is stopped, and the request is
	// denied with it (ByRunEnded), not timed out.
	RunEnds bool
	// Note tells the person what segwi noticed about the call, when anything: why the
	// trusted commands could not check it (too long, a control character, an input that is
	// not exactly the tool's). Empty for most requests.
	Note string
}

// Answerer says who or what answered a request.
type Answerer string

// The answerers a request's record can name.
const (
	ByPerson      Answerer = "person"
	ByTrusted     Answerer = "trusted"      // a trusted-command rule (Answer.Rule names it)
	ByTimeout     Answerer = "timeout"      // nobody answered within approvals.timeout
	ByRunEnded    Answerer = "run-ended"    // the run ended while the request waited
	ByNoTerminal  Answerer = "no-terminal"  // headless, and no person at a terminal
	ByLimit       Answerer = "limit"        // too many requests of the run were pending
	ByFailure     Answerer = "failure"      // the Decider failed, so nobody could be asked
	ByCancelled   Answerer = "cancelled"    // Claude Code stopped waiting (its own tool-call timeout) before an answer
	ByUnknownCall Answerer = "unknown-call" // it named no tool call the run's Claude Code is making
	ByInvalid     Answerer = "invalid"      // the request's arguments could be read two ways
)

// Answer is the answer to a request.
type Answer struct {
	Allow     bool
	Interrupt bool   // deny and stop: Claude Code aborts the turn
	Message   string // for a deny: who denied and why (Claude Code shows it to the model)
	By        Answerer
	Rule      string        // the trusted prefix that matched, when By is ByTrusted
	Waited    time.Duration // from the request's arrival to its answer
	// Who says where the person answered from, when not at this machine: a device of
	// theirs and its login, e.g. "phone (alice@example.com)". Empty for a popup, a
	// terminal prompt, and every answer not by a person.
	Who string
}

// Record is a request, with its answer once it has one.
type Record struct {
	Request Request
	Answer  *Answer
}

// A Decider puts a request in front of a person.
//
// The answer it returns carries the person's choice (Allow, or a deny with Interrupt for
// "deny and stop the run") and, for a deny, the person's own words in Message (empty when
// they gave none); segwi turns them into the message Claude Code sees ("Denied by the
// person at segwi: ..."). Who, for an answer from another device, is recorded as it is.
// With By ByNoTerminal, Message is used as it is. Any other By is taken as ByPerson;
// Waited and Rule are ignored.
type Decider interface {
	// Decide shows req to a person and returns their answer (By ByPerson, or ByNoTerminal
	// when no person can be asked). It returns when they answer or when ctx is done: ctx
	// is cancelled when the request times out, when its run ends, or when Claude Code
	// hangs up (context.Cause(ctx) is then ErrTimedOut, ErrRunEnded or ErrWithdrawn), and
	// the Decider must then take the request away from the person's view. Calls may come
	// concurrently, from several runs.
	Decide(ctx context.Context, req Request) (Answer, error)
}

// Registration is what a run needs to reach the approvals server.
type Registration struct {
	URL   string // the MCP endpoint, http://127.0.0.1:PORT/mcp
	Token string // the run's bearer token; valid until the run is unregistered
	// ToolTimeout is how long the run's Claude Code is to wait for the answer to one call
	// of the approval tool: the approval timeout in force when the run was registered, plus
	// ToolTimeoutSlack. MCPConfig tells Claude Code so. A request of the run waits for a
	// person at most that approval timeout, even once a reload makes it longer, so that
	// segwi's answer always comes before Claude Code stops waiting.
	ToolTimeout time.Duration
}

// ToolTimeoutSlack is how much longer than a request may wait for a person Claude Code is
// told to wait for the approval tool's answer: segwi's deny at the deadline must reach it
// before it gives up. Claude Code starts counting when it sends the call, a few
// milliseconds before segwi does on loopback; a minute also covers a machine so loaded
// that the call or the answer takes seconds. A larger slack costs nothing while segwi
// answers; it only lengthens Claude Code's wait when segwi is gone.
const ToolTimeoutSlack = time.Minute

// MaxCallBytes is the largest request a call of the approval tool may come in: the server
// refuses a larger body (413) before reading it.
const MaxCallBytes = 1 << 20

// ServerName and ToolName make up the tool name Claude Code is given:
// --permission-prompt-tool mcp__segwi__approve.
const (
	ServerName = "segwi"
	ToolName   = "approve"
	PromptTool = "mcp__" + ServerName + "__" + ToolName
)

// MCPConfig returns the --mcp-config document that points Claude Code at the server with
// the run's token and gives the server's tool calls ToolTimeout. It holds the token: write
// it only to a 0600 file in the run's folder, and remove that file when Run.Connected is
// called.
//
// Claude Code 2.1.328 gives a call to an HTTP MCP server 60 s unless told otherwise: its
// fetch gives up after 60 s (raised by MCP_TOOL_TIMEOUT), and a call that gets no answer
// or progress for 5 minutes is aborted (CLAUDE_CODE_MCP_TOOL_IDLE_TIMEOUT). A server's own
// "timeout" (milliseconds) sets both for that server alone, whatever the person's
// environment says (it overrides MCP_TOOL_TIMEOUT, and raises the idle limit to itself),
// and leaves their other MCP servers as they configured them.
func (r Registration) MCPConfig() []byte {
	server := map[string]any{
		"type":    "http",
		"url":     r.URL,
		"headers": map[string]string{"Authorization": "Bearer " + r.Token},
	}
	if r.ToolTimeout > 0 {
		server["timeout"] = r.ToolTimeout.Milliseconds()
	}
	doc := map[string]any{"mcpServers": map[string]any{ServerName: server}}
	b, err := json.MarshalIndent(doc, "", "  ")
	if err != nil {
		panic(err) // a map of strings always marshals
	}
	return b
}
