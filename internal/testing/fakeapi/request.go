package fakeapi

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"time"
)

// The betas Claude Code sends on every Messages request in auto mode, and the safeguard type
// of the dangerous-tool-use classifier it asks the server to run.
const (
	BetaDangerousToolUse      = "dangerous-tool-use-2026-09-03"
	BetaAFKMode               = "afk-mode-2026-01-31"
	SafeguardDangerousToolUse = "dangerous_tool_use"
)

// Request is one HTTP request the server received, with the Messages API fields parsed when
// the body is a Messages request.
type Request struct {
	// Seq numbers the requests in the order they arrived, from 0.
	Seq int
	// Received is when the server read the request.
	Received time.Time
	// Method, Path and Query are those of the HTTP request (Query without the '?').
	Method, Path, Query string
	// Header holds the request's headers (x-api-key, anthropic-beta, ...).
	Header http.Header
	// Body is the raw request body.
	Body []byte

	// Model is the body's model id.
	Model string
	// Stream reports whether the body asked for a streamed reply.
	Stream bool
	// System is the body's system prompt: a string or a list of text blocks.
	System json.RawMessage
	// Messages is the conversation the request carries.
	Messages []Message
	// Tools are the names of the tools the request offers the model, in order.
	Tools []string
	// Safeguards holds the body's safeguards field, raw (auto mode's classifier request).
	Safeguards json.RawMessage

	// Side reports whether the request was answered as a side request (not from the script).
	Side bool
}

// Message is one message of a request's conversation.
type Message struct {
	Role    string
	Content []Block
}

// UnmarshalJSON accepts a message whose content is a plain string as one text block.
func (m *Message) UnmarshalJSON(data []byte) error {
	var raw struct {
		Role    string          `json:"role"`
		Content json.RawMessage `json:"content"`
	}
	if err := json.Unmarshal(data, &raw); err != nil {
		return err
	}
	m.Role = raw.Role
	blocks, err := parseContent(raw.Content)
	if err != nil {
		return fmt.Errorf("message content: %w", err)
	}
	m.Content = blocks
	return nil
}

// parseContent reads content that is either a string or a list of blocks.
func parseContent(raw json.RawMessage) ([]Block, error) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || string(raw) == "null" {
		return nil, nil
	}
	if raw[0] == '"' {
		var s string
		if err := json.Unmarshal(raw, &s); err != nil {
			return nil, err
		}
		return []Block{{Type: "text", Text: s}}, nil
	}
	var blocks []Block
	if err := json.Unmarshal(raw, &blocks); err != nil {
		return nil, err
	}
	return blocks, nil
}

// ToolResult is a tool_result block the client sent back to the model.
type ToolResult struct {
	// ToolUseID is the id of the tool_use block this result answers.
	ToolUseID string
	// IsError reports whether the client marked the result as an error (a refusal, a
	// failed command, a tool that does not exist).
	IsError bool
	// Text is the result's text: the string content, or its text blocks joined by newlines.
	Text string
}

// parseBody fills the Messages API fields of req from its body. A body that is not JSON
// leaves them empty.
func (req *Request) parseBody() error {
	if len(req.Body) == 0 {
		return nil
	}
	var body struct {
		Model      string            `json:"model"`
		Stream     bool              `json:"stream"`
		System     json.RawMessage   `json:"system"`
		Messages   []Message         `json:"messages"`
		Tools      []json.RawMessage `json:"tools"`
		Safeguards json.RawMessage   `json:"safeguards"`
	}
	if err := json.Unmarshal(req.Body, &body); err != nil {
		return fmt.Errorf("parsing request body: %w", err)
	}
	req.Model, req.Stream, req.System = body.Model, body.Stream, body.System
	req.Messages, req.Safeguards = body.Messages, body.Safeguards
	for _, raw := range body.Tools {
		var tool struct {
			Name string `json:"name"`
		}
		if json.Unmarshal(raw, &tool) == nil {
			req.Tools = append(req.Tools, tool.Name)
		}
	}
	return nil
}

// Betas returns the betas named in the request's anthropic-beta headers. The ?beta=true
// query flag is not a beta name and is not counted.
func (req *Request) Betas() []string {
	var betas []string
	for _, h := range req.Header.Values("anthropic-beta") {
		for b := range strings.SplitSeq(h, ",") {
			if b = strings.TrimSpace(b); b != "" {
				betas = append(betas, b)
			}
		}
	}
	return betas
}

// HasBeta reports whether the request named beta in its anthropic-beta header.
func (req *Request) HasBeta(beta string) bool {
	return slices.Contains(req.Betas(), beta)
}

// AutoMode reports whether the request carried what auto mode sends: both auto-mode betas
// and a safeguards entry of type dangerous_tool_use. If not, the error says what is missing.
func (req *Request) AutoMode() error {
	var missing []string
	for _, beta := range []string{BetaDangerousToolUse, BetaAFKMode} {
		if !req.HasBeta(beta) {
			missing = append(missing, "beta "+beta)
		}
	}
	if !slices.Contains(req.safeguardTypes(), SafeguardDangerousToolUse) {
		missing = append(missing, "safeguard "+SafeguardDangerousToolUse)
	}
	if len(missing) > 0 {
		return fmt.Errorf("request %d (%s %s) lacks auto mode's %s", req.Seq, req.Method, req.Path, strings.Join(missing, ", "))
	}
	return nil
}

// safeguardTypes returns the type of each entry of the body's safeguards field.
func (req *Request) safeguardTypes() []string {
	var safeguards []struct {
		Type string `json:"type"`
	}
	json.Unmarshal(req.Safeguards, &safeguards)
	types := make([]string, len(safeguards))
	for i, s := range safeguards {
		types[i] = s.Type
	}
	return types
}

// Turn returns how many assistant messages the conversation already holds: 0 for the first
// request of a session, 1 after the model's first reply, and so on.
func (req *Request) Turn() int {
	n := 0
	for _, m := range req.Messages {
		if m.Role == "assistant" {
			n++
		}
	}
	return n
}

// ToolResults returns every tool_result block of the conversation, oldest first.
func (req *Request) ToolResults() []ToolResult {
	var results []ToolResult
	for _, m := range req.Messages {
		if m.Role != "user" {
			continue
		}
		for _, b := range m.Content {
			if b.Type == "tool_result" {
				results = append(results, ToolResult{ToolUseID: b.ToolUseID, IsError: b.IsError, Text: b.ResultText()})
			}
		}
	}
	return results
}

// ToolResult returns the tool_result answering the tool_use block with the given id, and
// whether the conversation holds one.
func (req *Request) ToolResult(toolUseID string) (ToolResult, bool) {
	for _, r := range req.ToolResults() {
		if r.ToolUseID == toolUseID {
			return r, true
		}
	}
	return ToolResult{}, false
}

// UserText returns the text of every user message's text blocks, oldest first: the prompts
// (and anything the client added as text, such as reminders).
func (req *Request) UserText() []string {
	var texts []string
	for _, m := range req.Messages {
		if m.Role != "user" {
			continue
		}
		for _, b := range m.Content {
			if b.Type == "text" {
				texts = append(texts, b.Text)
			}
		}
	}
	return texts
}
