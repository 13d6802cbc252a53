package claudetest

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"
)

// UserMessage returns a prompt as the stream-json line Claude Code reads on stdin, with its
// newline.
func UserMessage(prompt string) []byte {
	line, _ := json.Marshal(map[string]any{
		"type":    "user",
		"message": map[string]any{"role": "user", "content": prompt},
	})
	return append(line, '\n')
}

// parseEvent reads one stdout line as an event; lines that are not a JSON object are not.
func parseEvent(line []byte) (Event, bool) {
	line = bytes.TrimSpace(line)
	if len(line) == 0 || line[0] != '{' {
		return Event{}, false
	}
	var ev Event
	if err := json.Unmarshal(line, &ev); err != nil {
		return Event{}, false
	}
	ev.Raw = append(json.RawMessage(nil), line...)
	return ev, true
}

// Event is one stream-json line of Claude Code's stdout.
type Event struct {
	Type    string `json:"type"`
	Subtype string `json:"subtype,omitempty"`
	// Raw is the whole line.
	Raw json.RawMessage `json:"-"`
	// Received is when the harness read the line.
	Received time.Time `json:"-"`
}

// Decode unmarshals the whole event into v.
func (e Event) Decode(v any) error {
	if err := json.Unmarshal(e.Raw, v); err != nil {
		return fmt.Errorf("decoding %s event: %w", e.Type, err)
	}
	return nil
}

// Kinds returns each event's type (and "/subtype" when it has one), in order: a compact
// picture of a run for test logs and assertions.
func (r *Result) Kinds() []string {
	kinds := make([]string, len(r.Events))
	for i, e := range r.Events {
		kinds[i] = e.Type
		if e.Subtype != "" {
			kinds[i] += "/" + e.Subtype
		}
	}
	return kinds
}

// Find returns the first event of the given type and subtype ("" matches any subtype).
func (r *Result) Find(typ, subtype string) (Event, bool) {
	for _, e := range r.Events {
		if e.Type == typ && (subtype == "" || e.Subtype == subtype) {
			return e, true
		}
	}
	return Event{}, false
}

// InitEvent is the system/init event that starts a session.
type InitEvent struct {
	CWD            string   `json:"cwd"`
	SessionID      string   `json:"session_id"`
	Tools          []string `json:"tools"`
	Model          string   `json:"model"`
	PermissionMode string   `json:"permissionMode"`
	APIKeySource   string   `json:"apiKeySource"`
	Version        string   `json:"claude_code_version"`
	MCPServers     []struct {
		Name   string `json:"name"`
		Status string `json:"status"`
	} `json:"mcp_servers"`
}

// Init returns the run's system/init event, failing the test when there is none.
func (r *Result) Init(t testing.TB) InitEvent {
	t.Helper()
	var init InitEvent
	r.decodeFirst(t, "system", "init", &init)
	return init
}

// ResultEvent is the result event that ends each prompt's turn.
type ResultEvent struct {
	Subtype           string             `json:"subtype"`
	IsError           bool               `json:"is_error"`
	NumTurns          int                `json:"num_turns"`
	Result            string             `json:"result"`
	TotalCostUSD      float64            `json:"total_cost_usd"`
	PermissionDenials []PermissionDenial `json:"permission_denials"`
	TerminalReason    string             `json:"terminal_reason"`
	SessionID         string             `json:"session_id"`
}

// PermissionDenial is one refused tool call listed in a result event.
type PermissionDenial struct {
	ToolName  string          `json:"tool_name"`
	ToolUseID string          `json:"tool_use_id"`
	ToolInput json.RawMessage `json:"tool_input"`
}

// Final returns the run's last result event, failing the test when there is none.
func (r *Result) Final(t testing.TB) ResultEvent {
	t.Helper()
	for i := len(r.Events) - 1; i >= 0; i-- {
		if r.Events[i].Type == "result" {
			var res ResultEvent
			if err := r.Events[i].Decode(&res); err != nil {
				t.Fatal(err)
			}
			return res
		}
	}
	t.Fatalf("no result event; events: %v\nstderr:\n%s", r.Kinds(), r.Stderr)
	return ResultEvent{}
}

// ToolResultEvent is one tool_result block of a user event, with the permission decision
// Claude Code attached to it.
type ToolResultEvent struct {
	ToolUseID string
	IsError   bool
	// Text is the result's content as text.
	Text string
	// Decision and Source are tool_result_meta's permission_decision ("accept"/"reject";
	// "config", "hook", "user_reject", ...), empty when the event carries none.
	Decision, Source string
	// NonExecutionKind is tool_result_meta's non_execution_kind, when the call did not run.
	NonExecutionKind string
}

// ToolResults returns every tool_result of the run's user events, in order.
func (r *Result) ToolResults(t testing.TB) []ToolResultEvent {
	t.Helper()
	var results []ToolResultEvent
	for _, e := range r.Events {
		if e.Type != "user" {
			continue
		}
		var user struct {
			Message struct {
				Content json.RawMessage `json:"content"`
			} `json:"message"`
			Meta []struct {
				ID                 string `json:"id"`
				PermissionDecision struct {
					Decision string `json:"decision"`
					Source   string `json:"source"`
				} `json:"permission_decision"`
				NonExecutionKind string `json:"non_execution_kind"`
			} `json:"tool_result_meta"`
		}
		if err := e.Decode(&user); err != nil {
			t.Fatal(err)
		}
		var blocks []struct {
			Type      string          `json:"type"`
			ToolUseID string          `json:"tool_use_id"`
			IsError   bool            `json:"is_error"`
			Content   json.RawMessage `json:"content"`
		}
		if json.Unmarshal(user.Message.Content, &blocks) != nil {
			continue // a plain-text user message (the prompt echoed back)
		}
		for _, b := range blocks {
			if b.Type != "tool_result" {
				continue
			}
			tr := ToolResultEvent{ToolUseID: b.ToolUseID, IsError: b.IsError, Text: contentText(b.Content)}
			for _, m := range user.Meta {
				if m.ID == b.ToolUseID {
					tr.Decision, tr.Source = m.PermissionDecision.Decision, m.PermissionDecision.Source
					tr.NonExecutionKind = m.NonExecutionKind
				}
			}
			results = append(results, tr)
		}
	}
	return results
}

// ToolResult returns the tool_result for the tool_use with the given id, failing the test
// when the run has none.
func (r *Result) ToolResult(t testing.TB, toolUseID string) ToolResultEvent {
	t.Helper()
	for _, tr := range r.ToolResults(t) {
		if tr.ToolUseID == toolUseID {
			return tr
		}
	}
	t.Fatalf("no tool_result for %s; events: %v", toolUseID, r.Kinds())
	return ToolResultEvent{}
}

// contentText returns tool_result content (a string or a list of blocks) as text.
func contentText(raw json.RawMessage) string {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	var blocks []struct {
		Type string `json:"type"`
		Text string `json:"text"`
	}
	if json.Unmarshal(raw, &blocks) != nil {
		return string(raw)
	}
	var parts []string
	for _, b := range blocks {
		if b.Type == "text" {
			parts = append(parts, b.Text)
		}
	}
	return strings.Join(parts, "\n")
}

func (r *Result) decodeFirst(t testing.TB, typ, subtype string, v any) {
	t.Helper()
	e, ok := r.Find(typ, subtype)
	if !ok {
		t.Fatalf("no %s/%s event; events: %v\nstderr:\n%s", typ, subtype, r.Kinds(), r.Stderr)
	}
	if err := e.Decode(v); err != nil {
		t.Fatal(err)
	}
}
