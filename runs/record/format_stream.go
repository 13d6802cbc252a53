package record

import (
	"encoding/json"
	"fmt"
	"strings"
)

// The words of what Claude Code's stream says: the session's start, the turns' results,
// its system events and the lines segwi has no type for, and the messages segwi sent it.

// initText says how the session started: the model, the mode, the tools and the MCP servers.
func initText(in *InitInfo) string {
	if in == nil {
		return "started"
	}
	var parts []string
	if in.Model != "" {
		parts = append(parts, "model "+in.Model)
	}
	if in.PermissionMode != "" {
		parts = append(parts, in.PermissionMode+" mode")
	}
	if len(in.Tools) > 0 {
		parts = append(parts, Plural(len(in.Tools), "tool"))
	}
	if len(in.MCPServers) > 0 {
		var servers []string
		for _, s := range in.MCPServers {
			servers = append(servers, s.Name+" "+s.Status)
		}
		parts = append(parts, "MCP "+strings.Join(servers, ", "))
	}
	if len(parts) == 0 {
		return "started"
	}
	return "started: " + strings.Join(parts, ", ")
}

// resultText says how a turn ended: Claude Code's result subtype and terminal reason in
// words, the turns, the cost and the refusals.
func resultText(e Event) string {
	res := e.Result
	outcome := resultOutcomes[e.Subtype]
	if outcome == "" {
		outcome = words(e.Subtype)
	}
	if res == nil {
		return outcome
	}
	text := fmt.Sprintf("%s after %s, $%.4f", outcome, Plural(res.NumTurns, "turn"), res.CostUSD)
	if n := len(res.Denials); n > 0 {
		text += ", " + Plural(n, "call") + " refused"
	}
	switch r := res.TerminalReason; r {
	case "", "completed":
	case "aborted_tools":
		text += ", stopped at a tool call"
	default:
		text += ", " + words(r)
	}
	return text
}

// resultOutcomes words Claude Code's result subtypes.
var resultOutcomes = map[string]string{
	"":                       "done",
	"success":                "done",
	"error_during_execution": "ended with an error",
	"error_max_turns":        "stopped at the turn limit",
}

// promptText is a message segwi sent, as the person knows it: an ask run's question
// without segwi's instruction around it, a ready run's notes after a word on what it asks.
func promptText(text string) string {
	if q, ok := strings.CutPrefix(text, AskPrefix); ok {
		return "Question: " + q
	}
	if rest, ok := strings.CutPrefix(text, ReadyPrompt); ok {
		text = "Get the current branch ready for review (segwi's instructions)"
		if notes := strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(rest), "Notes from the person:")); notes != "" {
			text += "\nNotes: " + notes
		}
	}
	return text
}

// statusLabels word the system events that say what Claude Code is doing; a subtype
// that is not here shows with its underscores as spaces.
var statusLabels = map[string]string{
	"task_started":      "task started",
	"task_progress":     "task progress",
	"task_notification": "task update",
	"task_updated":      "task update",
	"task_summary":      "task summary",
	"hook_started":      "hook started",
	"hook_progress":     "hook running",
	"hook_response":     "hook answered",
	"compact_boundary":  "conversation compacted",
	"api_retry":         "retrying the model request",
	"api_error":         "model request failed",
	"permission_denied": "not permitted",
	"model_fallback":    "model changed",
	"turn_duration":     "turn took",
}

// statusFields are the fields of a system event whose text says what happened, most
// telling first, for events whose message the parser did not find.
var statusFields = []string{"description", "summary", "status", "message", "detail", "reason", "error"}

// statusWords words a system event: what it is, in words, and its text.
func statusWords(e Event) Words {
	text := e.Text
	if text == "" {
		text = fieldText(e.Raw, statusFields)
	}
	switch e.Subtype {
	case "", "status", "informational", "notification":
		if text == "" {
			return Words{"status", words(orString(e.Subtype, "status"))}
		}
		return Words{"status", text}
	}
	what := statusLabels[e.Subtype]
	if what == "" {
		what = words(e.Subtype)
	}
	if text == "" {
		return Words{"status", what}
	}
	return Words{"status", what + ": " + text}
}

// rawWords words a line or block of a kind segwi does not know: its type in words and
// the text it carries. The record keeps it whole; `segwi runs events --json` shows it.
func rawWords(e Event) Words {
	var head struct {
		Type    string `json:"type"`
		Subtype string `json:"subtype"`
		Text    string `json:"text"`
	}
	if len(e.Raw) == 0 || json.Unmarshal(e.Raw, &head) != nil {
		if e.Text == "" {
			return Words{"event", "(an event this segwi does not know)"}
		}
		return Words{"event", "(an event this segwi does not know, " + Plural(len(e.Text), "byte") + ")"}
	}
	switch head.Type {
	case "text": // a text block in a user message: Claude Code's own notes ("[Request interrupted by user]")
		return Words{"note", head.Text}
	case "image":
		return Words{"note", "[image]"}
	}
	what := words(orString(head.Type, "event"))
	if head.Subtype != "" {
		what += " (" + words(head.Subtype) + ")"
	}
	text := head.Text
	if text == "" {
		text = fieldText(e.Raw, statusFields)
	}
	if text == "" {
		return Words{"event", what}
	}
	return Words{"event", what + ": " + text}
}

// fieldText returns the first of keys that raw, a JSON object, holds as a non-empty string.
func fieldText(raw json.RawMessage, keys []string) string {
	var fields map[string]any
	if len(raw) == 0 || json.Unmarshal(raw, &fields) != nil {
		return ""
	}
	for _, k := range keys {
		if v, ok := fields[k].(string); ok && strings.TrimSpace(v) != "" {
			return v
		}
	}
	return ""
}

// words writes an identifier of Claude Code's (task_started, rate_limit_event) as words.
func words(id string) string { return strings.ReplaceAll(id, "_", " ") }

func orString(s, otherwise string) string {
	if s == "" {
		return otherwise
	}
	return s
}
