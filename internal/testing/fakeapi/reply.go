package fakeapi

import (
	"crypto/rand"
	"encoding/json"
	"fmt"
	"strings"
)

// Block is one content block, both in requests the server parses (text, tool_use,
// tool_result, ...) and in replies it sends (text and tool_use).
type Block struct {
	Type string `json:"type"`
	// Text is a text block's text.
	Text string `json:"text,omitempty"`
	// ID, Name and Input are a tool_use block's id (toolu_...), tool name and input object.
	ID    string          `json:"id,omitempty"`
	Name  string          `json:"name,omitempty"`
	Input json.RawMessage `json:"input,omitempty"`
	// ToolUseID, Content and IsError are a tool_result block's fields; Content is a string
	// or a list of blocks, raw.
	ToolUseID string          `json:"tool_use_id,omitempty"`
	Content   json.RawMessage `json:"content,omitempty"`
	IsError   bool            `json:"is_error,omitempty"`

	// Verdict is what auto mode's classifier says about a tool_use block of a reply.
	Verdict Verdict `json:"-"`
}

// ResultText returns a tool_result block's content as text: the string itself, or the text
// of its text blocks joined by newlines.
func (b Block) ResultText() string {
	blocks, err := parseContent(b.Content)
	if err != nil {
		return string(b.Content)
	}
	var parts []string
	for _, c := range blocks {
		if c.Type == "text" {
			parts = append(parts, c.Text)
		}
	}
	return strings.Join(parts, "\n")
}

// Text returns a text block for a reply.
func Text(s string) Block {
	return Block{Type: "text", Text: s}
}

// Input is a tool_use block's input, for ToolUse.
type Input map[string]any

// ToolUse returns a tool_use block for a reply with a fresh id (toolu_...), the tool's name
// and its input (anything that marshals to a JSON object, usually an Input). Its verdict is
// NotFlagged unless changed with WithVerdict. It panics if input does not marshal, which is
// a mistake in the test's script.
func ToolUse(name string, input any) Block {
	raw, err := json.Marshal(input)
	if err != nil {
		panic(fmt.Sprintf("fakeapi.ToolUse(%q): marshaling input: %v", name, err))
	}
	return Block{Type: "tool_use", ID: NewToolUseID(), Name: name, Input: raw}
}

// WithVerdict returns a copy of the tool_use block b that auto mode's classifier judges as v.
func (b Block) WithVerdict(v Verdict) Block {
	b.Verdict = v
	return b
}

// NewToolUseID returns a fresh tool_use id shaped like the API's: toolu_01 and 22 letters or
// digits.
func NewToolUseID() string {
	const alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"
	var raw [22]byte
	rand.Read(raw[:])
	id := []byte("toolu_01")
	for _, c := range raw {
		id = append(id, alphabet[int(c)%len(alphabet)])
	}
	return string(id)
}

// Verdict is auto mode's classifier outcome for one tool_use block, sent in the reply's
// message_delta as safeguard_results. The zero Verdict is NotFlagged.
type Verdict struct {
	// Outcome is "not_flagged" or "flagged"; empty means not_flagged.
	Outcome string
	// Explanation is the classifier's reason, shown to the model when it flags a call.
	Explanation string
	// omit leaves the tool_use block out of the verdicts.
	omit bool
}

// Verdicts a tool_use block can carry.
var (
	// NotFlagged lets auto mode run the call. It is every tool_use block's default.
	NotFlagged = Verdict{Outcome: "not_flagged"}
	// NoVerdict leaves the call out of the reply's verdicts; auto mode then denies it.
	NoVerdict = Verdict{omit: true}
)

// Flagged returns a verdict that makes auto mode deny the call, giving explanation as the
// reason.
func Flagged(explanation string) Verdict {
	return Verdict{Outcome: "flagged", Explanation: explanation}
}

// Reply is the server's answer to one Messages request.
type Reply struct {
	// Content is the assistant message's blocks: Text and ToolUse blocks.
	Content []Block
	// StopReason is the reply's stop_reason; empty means "tool_use" when Content holds a
	// tool_use block and "end_turn" otherwise.
	StopReason string
	// Usage is the token usage the reply reports; nil reports a plausible one (the
	// request's size in tokens read, about one token per four bytes written). Server.Sent
	// says what each request was told.
	Usage *Usage
	// NoSafeguards leaves safeguard_results out of the reply entirely (a server that does
	// not run auto mode's classifier).
	NoSafeguards bool
	// Hang makes a streamed reply send message_start and then nothing until the client goes
	// away or the server closes: a model that is still thinking, for stop tests.
	Hang bool
	// ErrorStatus, when not 0, makes the reply an API error with this HTTP status and
	// ErrorType/ErrorMessage in the body instead of a message.
	ErrorStatus  int
	ErrorType    string
	ErrorMessage string

	// unscripted says why the script had no reply for the request; the server reports it
	// as a test failure.
	unscripted string
}

// Say returns a reply holding the given blocks.
func Say(blocks ...Block) Reply {
	return Reply{Content: blocks}
}

// WithUsage returns a copy of r that reports u as its usage.
func (r Reply) WithUsage(u Usage) Reply {
	r.Usage = &u
	return r
}

// Hang returns a reply that never finishes; see Reply.Hang.
func Hang() Reply {
	return Reply{Hang: true}
}

// APIError returns a reply that fails with an API error, e.g. 400 "invalid_request_error".
// The client may retry errors such as 429 and 5xx, slowly.
func APIError(status int, errType, message string) Reply {
	return Reply{ErrorStatus: status, ErrorType: errType, ErrorMessage: message}
}

// Unexpected returns a reply that ends the turn with a short text and makes the server
// report a test failure saying why: for scripts asked something they did not plan for.
func Unexpected(format string, args ...any) Reply {
	why := fmt.Sprintf(format, args...)
	return Reply{Content: []Block{Text("fakeapi: " + why)}, unscripted: why}
}

// stopReason returns the stop_reason the reply ends with.
func (r Reply) stopReason() string {
	if r.StopReason != "" {
		return r.StopReason
	}
	for _, b := range r.Content {
		if b.Type == "tool_use" {
			return "tool_use"
		}
	}
	return "end_turn"
}

// Script decides the reply to each scripted request: the requests of the agent's own
// conversation (see Server for the side requests a script never sees). It is called on the
// server's goroutines, one request at a time.
type Script func(req *Request) Reply

// Turns returns a Script that answers turn n of the conversation (the number of assistant
// messages the request already holds, see Request.Turn) with replies[n]. A request past the
// last reply gets Unexpected, which fails the test.
func Turns(replies ...Reply) Script {
	return func(req *Request) Reply {
		n := req.Turn()
		if n >= len(replies) {
			return Unexpected("script has %d replies, got a request for turn %d", len(replies), n)
		}
		return replies[n]
	}
}
