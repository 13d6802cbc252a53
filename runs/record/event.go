package record

import (
	"encoding/json"
	"time"

	"github.com/segwi/segwi/runs/ports"
)

// EventType says what an Event is. The first group comes from Claude Code's stream-json
// output, the second from segwi itself.
type EventType string

// The event types.
const (
	EventInit       EventType = "init"        // the session started: model, tools, MCP servers
	EventText       EventType = "text"        // assistant text
	EventToolCall   EventType = "tool-call"   // the assistant calls a tool
	EventToolResult EventType = "tool-result" // a tool's result
	EventRefusal    EventType = "refusal"     // a tool call refused: a hook, a rule, a disallowed tool, auto mode or a person
	EventStatus     EventType = "status"      // status and informational system messages
	EventResult     EventType = "result"      // a turn's result: cost, turns, usage, denials
	EventUsage      EventType = "usage"       // what a turn used: tokens and cost, per model (see usage.go)
	EventRaw        EventType = "raw"         // a JSON line of a type segwi does not know, kept whole

	EventPrompt          EventType = "prompt"           // a message segwi sent to the run's input
	EventOutput          EventType = "output"           // a line that is not JSON: stderr, terminal escapes
	EventState           EventType = "state"            // the run changed state
	EventExit            EventType = "exit"             // the process ended
	EventApprovalRequest EventType = "approval-request" // Claude Code asked for approval
	EventApprovalAnswer  EventType = "approval-answer"  // and got this answer
	EventBudget          EventType = "budget"           // the run reached its budget, or the person raised it
	EventDropped         EventType = "dropped"          // a slow subscriber missed events (never recorded)
)

// Event is one thing that happened in a run. Which fields are set depends on Type; every
// event has RunID, Seq (1, 2, ... within the run) and Time. Text fields longer than
// MaxFieldBytes are cut, with Truncated set.
type Event struct {
	RunID string    `json:"run"`
	Seq   int64     `json:"seq"`
	Time  time.Time `json:"time"`
	Type  EventType `json:"type"`

	Subtype   string `json:"subtype,omitempty"`   // the stream-json subtype (status, result)
	SessionID string `json:"session,omitempty"`   // init, result
	Text      string `json:"text,omitempty"`      // text, tool-result, refusal, status, prompt, output
	ToolUseID string `json:"toolUseID,omitempty"` // tool-call, tool-result, refusal, approvals
	ToolName  string `json:"tool,omitempty"`      // tool-call, refusal, approvals
	// Input is a tool call's input (tool-call, approval-request), as Claude Code sent it.
	Input   json.RawMessage `json:"input,omitempty"`
	IsError bool            `json:"isError,omitempty"` // tool-result
	// Source says who refused a call: hook, user_reject, config, disallowed, classifier, ...
	Source    string `json:"source,omitempty"`
	Truncated bool   `json:"truncated,omitempty"` // a text field was cut at MaxFieldBytes

	Init     *InitInfo     `json:"init,omitempty"`
	Result   *ResultInfo   `json:"result,omitempty"`
	Usage    *UsageInfo    `json:"usage,omitempty"`  // usage: what the turn that ended used
	Budget   *BudgetInfo   `json:"budget,omitempty"` // budget: the run's budget, and a raise
	State    *StateChange  `json:"state,omitempty"`
	Exit     *ExitInfo     `json:"exit,omitempty"`
	Approval *ApprovalInfo `json:"approval,omitempty"`
	Push     *Attempt      `json:"push,omitempty"` // push: an attempt to push the run's branch
	Base     *Base         `json:"base,omitempty"` // base: where the checkout stood at the start
	// Commit is a commit of the run's changes made for the person (commit).
	Commit *Committed `json:"commit,omitempty"`
	// PullRequest is a pull request opened for the run's branch (pull-request).
	PullRequest *PullRequest `json:"pullRequest,omitempty"`
	Process     *ProcessInfo `json:"process,omitempty"` // leftover: a process the run left behind
	// Worktree is the worktree the run works in (worktree).
	Worktree *Worktree `json:"worktree,omitempty"`
	// Ports are the TCP ports in the run's environment (ports).
	Ports   *ports.Range    `json:"ports,omitempty"`
	Raw     json.RawMessage `json:"raw,omitempty"` // the whole line of a raw event
	Dropped int             `json:"dropped,omitempty"`
}

// TextFromACP is the Subtype of a text event of an ACP agent's (runs/acp), which a
// narration calls the agent's rather than Claude Code's.
const TextFromACP = "acp"

// MaxFieldBytes is where an event's text fields are cut; output.log keeps more.
const MaxFieldBytes = 256 << 10

// InitInfo is what the session start says.
type InitInfo struct {
	Model          string      `json:"model,omitempty"`
	CWD            string      `json:"cwd,omitempty"`
	PermissionMode string      `json:"permissionMode,omitempty"`
	Version        string      `json:"version,omitempty"`
	Tools          []string    `json:"tools,omitempty"`
	MCPServers     []MCPServer `json:"mcpServers,omitempty"`
}

// MCPServer is an MCP server and whether Claude Code reached it.
type MCPServer struct {
	Name   string `json:"name"`
	Status string `json:"status"`
}

// ResultInfo is the end of a turn.
type ResultInfo struct {
	IsError        bool            `json:"isError"`
	NumTurns       int             `json:"turns"`
	CostUSD        float64         `json:"costUSD"`
	DurationMS     int64           `json:"durationMS,omitempty"`
	TerminalReason string          `json:"terminalReason,omitempty"`
	Usage          json.RawMessage `json:"usage,omitempty"`
	Denials        []Denial        `json:"denials,omitempty"`
}

// Denial is a call listed in a result's permission_denials.
type Denial struct {
	ToolName  string          `json:"tool"`
	ToolUseID string          `json:"toolUseID,omitempty"`
	Input     json.RawMessage `json:"input,omitempty"`
}

// StateChange is a run's move from one state to another, and why.
type StateChange struct {
	From   State  `json:"from,omitempty"`
	To     State  `json:"to"`
	Reason string `json:"reason,omitempty"`
	// Waiting says what a run moving to StateWaiting waits for: an approval, or the
	// person's reply. A waiting run may change what it waits for without changing state.
	Waiting WaitReason `json:"waiting,omitempty"`
}

// ExitInfo is how the process ended: its exit code, or the signal that ended it, and the
// CPU it took.
type ExitInfo struct {
	Code   int    `json:"code"`
	Signal string `json:"signal,omitempty"`
	// CPUSeconds is the CPU time (user and system) the agent's process took, with that of
	// the processes it started and waited for, as the kernel counted it at its exit: the
	// run's own cost, which segwi's cost is told from (internal/testing/bench/overhead).
	CPUSeconds float64 `json:"cpuSeconds,omitempty"`
}

// ApprovalInfo is an approval request, and its answer on an approval-answer event.
type ApprovalInfo struct {
	RequestID string    `json:"request"`
	Deadline  time.Time `json:"deadline,omitzero"`
	Note      string    `json:"note,omitempty"` // what segwi noticed about the request, e.g. why no trusted command could check it
	// InputSHA256 is the SHA-256 (hex) of the request's exact input, as Claude Code sent it
	// and the person saw it, on an approval-request event: the event's Input is redacted,
	// and this tells, for a text one holds, whether it is what was approved.
	InputSHA256 string `json:"inputSHA256,omitempty"`
	// RunEnds says, on an approval-request event, that Deadline is the run's end (its
	// runs.maxDuration), which came before approvals.timeout: at it the request is denied
	// and the run ends (approvals.Request.RunEnds).
	RunEnds   bool   `json:"runEnds,omitempty"`
	Allow     bool   `json:"allow,omitempty"`
	Interrupt bool   `json:"interrupt,omitempty"`
	By        string `json:"by,omitempty"`   // person, trusted, timeout, run-ended, no-terminal, limit
	Who       string `json:"who,omitempty"`  // for a person's answer from another device: the device and its login
	Rule      string `json:"rule,omitempty"` // the trusted prefix that matched
	Message   string `json:"message,omitempty"`
	WaitedMS  int64  `json:"waitedMS,omitempty"`
}

// MarshalJSON writes a as encoding/json does, without HTML escaping. It is there for the
// record's encoder (Event.AppendJSON), which does not know omitzero: an answer has no
// deadline, and must not show a zero one.
func (a ApprovalInfo) MarshalJSON() ([]byte, error) {
	type plain ApprovalInfo // without this method
	return appendPlainJSON(nil, plain(a), "")
}

// EventCapped marks where events.jsonl reached MaxEventsBytes, in place of the first bulk
// event it left out (with that event's sequence number); Text says what is kept after it.
const EventCapped EventType = "capped"

// EventLeftover is segwi's own event for a process a run left behind when it ended (one
// that left Claude Code's process group, or outlived Claude Code), and what segwi did
// about it; Event.Process says which process.
const EventLeftover EventType = "leftover"

// ProcessInfo names a process a run left behind.
type ProcessInfo struct {
	PID     int    `json:"pid"`
	Command string `json:"command"`         // its command line, redacted
	Killed  bool   `json:"killed"`          // segwi killed it; false when it could not
	Error   string `json:"error,omitempty"` // why it could not
}

// Bulk reports whether events of type t are of a run's bulk, which may come by the
// thousand: Claude Code's text, its tool calls and their results, status lines and other
// output. What is not bulk says how the run goes, and is never left out: past
// MaxEventsBytes in events.jsonl, nor by a window that reads slowly.
func (t EventType) Bulk() bool {
	switch t {
	case EventText, EventToolCall, EventToolResult, EventStatus, EventOutput, EventRaw:
		return true
	}
	return false
}

// EventPush is segwi's own event for an attempt to push a run's branch (segwi push, the
// run window's Push button), refusals included; Event.Push holds the attempt and
// Event.Text its message. It is appended to the run's events after the run ended, by
// AppendEvent.
const EventPush EventType = "push"

// EventBase is segwi's event for a run's base, recorded before the agent gets its prompt:
// where the checkout stood (Event.Base), what the run's changes are counted from.
const EventBase EventType = "base"
