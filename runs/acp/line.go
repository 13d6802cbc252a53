package acp

import (
	"encoding/json"
	"fmt"
	"strings"

	acpsdk "github.com/coder/acp-go-sdk"

	"github.com/segwi/segwi/runs"
)

// line is one line of a session's output, one JSON object, with one of its fields set:
// what the session writes and, once the run has redacted it, Parse reads. Its own shape,
// rather than the protocol's messages, because the session has already answered those
// (the handshake, the permission requests) and gathered the agent's chunks, and because
// the agent's stderr shares the stream.
type line struct {
	Init    *initLine       `json:"init,omitempty"`    // the session started
	Text    *string         `json:"text,omitempty"`    // the agent's message, gathered from its chunks
	Thought *string         `json:"thought,omitempty"` // its thoughts, gathered likewise
	Update  json.RawMessage `json:"update,omitempty"`  // any other session/update, as the agent sent it
	Asked   *askedCall      `json:"asked,omitempty"`   // a call the agent asked about before it announced it
	Refused *refusal        `json:"refused,omitempty"` // a request segwi refused without asking (an ask run)
	Result  *turnResult     `json:"result,omitempty"`  // a turn's end
	Stderr  *string         `json:"stderr,omitempty"`  // a line the agent wrote on stderr
	Status  string          `json:"status,omitempty"`  // what the session noticed
}

type initLine struct {
	Session string `json:"session"`
	Agent   string `json:"agent,omitempty"` // its name and version, as initialize says
	CWD     string `json:"cwd"`
	Loaded  bool   `json:"loaded,omitempty"` // an earlier session taken up again (session/load, resume)
}

type askedCall struct {
	ToolCallID string          `json:"toolCallId"`
	Tool       string          `json:"tool"`
	Input      json.RawMessage `json:"input"`
}

type refusal struct {
	ToolCallID string          `json:"toolCallId"`
	Tool       string          `json:"tool"`
	Input      json.RawMessage `json:"input,omitempty"`
	Why        string          `json:"why"`
}

type turnResult struct {
	StopReason string        `json:"stopReason,omitempty"`
	Usage      *acpsdk.Usage `json:"usage,omitempty"`
	CostUSD    float64       `json:"costUSD,omitempty"` // the session's so far, from usage_update
	// TurnCostUSD is what this turn cost: how much the session's cost (usage_update) grew
	// while the turn ran.
	TurnCostUSD float64 `json:"turnCostUSD,omitempty"`
	Turns       int     `json:"turns"`           // turns of this run so far
	Error       string  `json:"error,omitempty"` // why the turn did not end as the agent's
}

// Parse turns one line of the session's output into events (runs.Session.Parse).
func (s *session) Parse(b []byte, emit func(runs.Event)) {
	if len(b) == 0 {
		return
	}
	var l line
	if err := json.Unmarshal(b, &l); err != nil {
		emit(runs.OutputEvent(b)) // not the session's: cannot happen, but keep it
		return
	}
	switch {
	case l.Init != nil:
		emit(runs.Event{Type: runs.EventInit, SessionID: l.Init.Session,
			Init: &runs.InitInfo{CWD: l.Init.CWD, Version: l.Init.Agent, PermissionMode: "acp"}})
	case l.Text != nil:
		emit(runs.Event{Type: runs.EventText, Subtype: runs.TextFromACP, Text: *l.Text})
	case l.Thought != nil:
		emit(runs.Event{Type: runs.EventStatus, Subtype: "thought", Text: *l.Thought})
	case l.Stderr != nil:
		emit(runs.OutputEvent([]byte(*l.Stderr)))
	case l.Status != "":
		emit(runs.Event{Type: runs.EventStatus, Subtype: "acp", Text: l.Status})
	case l.Asked != nil:
		emit(runs.Event{Type: runs.EventToolCall, ToolUseID: l.Asked.ToolCallID, ToolName: l.Asked.Tool, Input: l.Asked.Input})
	case l.Refused != nil:
		emit(runs.Event{Type: runs.EventRefusal, ToolUseID: l.Refused.ToolCallID, ToolName: l.Refused.Tool,
			Input: l.Refused.Input, Source: "ask-run", Text: l.Refused.Why})
	case l.Result != nil:
		if u := turnUsage(l.Result); u != nil {
			emit(runs.Event{Type: runs.EventUsage, Usage: u})
		}
		emit(resultEvent(l.Result))
	case l.Update != nil:
		parseUpdate(l.Update, emit)
	default:
		emit(runs.RawEvent(b))
	}
}

// turnUsage is what the turn r used, as the agent reported it: the prompt result's tokens
// and the growth of the session's cost; nil when it reported neither. ACP names no model.
func turnUsage(r *turnResult) *runs.UsageInfo {
	if r.Usage == nil && r.TurnCostUSD == 0 {
		return nil
	}
	u := &runs.UsageInfo{Usage: runs.Usage{CostUSD: r.TurnCostUSD}}
	if t := r.Usage; t != nil {
		u.InputTokens, u.OutputTokens = int64(t.InputTokens), int64(t.OutputTokens)
		if t.CachedReadTokens != nil {
			u.CacheReadTokens = int64(*t.CachedReadTokens)
		}
		if t.CachedWriteTokens != nil {
			u.CacheWriteTokens = int64(*t.CachedWriteTokens)
		}
	}
	return u
}

// resultEvent is a turn's end as Claude Code's result is: its usage in Claude Code's
// names (input_tokens, output_tokens, cache_read_input_tokens,
// cache_creation_input_tokens), so that what reads a result's usage reads an ACP turn's.
func resultEvent(r *turnResult) runs.Event {
	info := &runs.ResultInfo{NumTurns: r.Turns, CostUSD: r.CostUSD, TerminalReason: r.StopReason,
		IsError: r.Error != "" || r.StopReason != string(acpsdk.StopReasonEndTurn)}
	if u := r.Usage; u != nil {
		usage := map[string]int{"input_tokens": u.InputTokens, "output_tokens": u.OutputTokens}
		if u.CachedReadTokens != nil {
			usage["cache_read_input_tokens"] = *u.CachedReadTokens
		}
		if u.CachedWriteTokens != nil {
			usage["cache_creation_input_tokens"] = *u.CachedWriteTokens
		}
		info.Usage = mustJSON(usage)
	}
	text := r.Error
	if text == "" && info.IsError {
		text = "the turn ended: " + r.StopReason
	}
	return runs.Event{Type: runs.EventResult, Subtype: r.StopReason, Text: text, Result: info}
}

// parseUpdate turns one session/update into events: a tool call once its input is known
// (claude-agent-acp announces a call, then sends its input in an update), its result once
// it is over, the agent's plan and usage as status, the rest kept raw.
func parseUpdate(raw json.RawMessage, emit func(runs.Event)) {
	var u acpsdk.SessionUpdate
	if err := json.Unmarshal(raw, &u); err != nil {
		emit(runs.RawEvent(raw))
		return
	}
	switch {
	case u.ToolCall != nil:
		tc := u.ToolCall
		if !emptyInput(tc.RawInput) || hasDiff(tc.Content) || over(&tc.Status) {
			name, input := callFor(tc.Kind, tc.Title, tc.RawInput, tc.Content)
			emit(runs.Event{Type: runs.EventToolCall, ToolUseID: string(tc.ToolCallId), ToolName: name, Input: input})
		}
		if over(&tc.Status) {
			emit(toolResult(tc.ToolCallId, tc.Status, tc.Content, tc.RawOutput))
		}
	case u.ToolCallUpdate != nil:
		tu := u.ToolCallUpdate
		switch {
		case tu.Status != nil && over(tu.Status):
			emit(toolResult(tu.ToolCallId, *tu.Status, tu.Content, tu.RawOutput))
		case !emptyInput(tu.RawInput) || hasDiff(tu.Content):
			kind, title := acpsdk.ToolKind(""), ""
			if tu.Kind != nil {
				kind = *tu.Kind
			}
			if tu.Title != nil {
				title = *tu.Title
			}
			if kind == "" && !emptyInput(tu.RawInput) {
				if m, ok := tu.RawInput.(map[string]any); ok {
					if _, ok := m["command"].(string); ok {
						kind = acpsdk.ToolKindExecute // claude-agent-acp sends the kind with the announcement only
					}
				}
			}
			name, input := callFor(kind, title, tu.RawInput, tu.Content)
			emit(runs.Event{Type: runs.EventToolCall, ToolUseID: string(tu.ToolCallId), ToolName: name, Input: input})
		}
	case u.Plan != nil:
		var b strings.Builder
		for _, e := range u.Plan.Entries {
			fmt.Fprintf(&b, "[%s] %s\n", e.Status, e.Content)
		}
		emit(runs.Event{Type: runs.EventStatus, Subtype: "plan", Text: strings.TrimSuffix(b.String(), "\n")})
	case u.UsageUpdate != nil:
		uu := u.UsageUpdate
		text := fmt.Sprintf("context %d of %d tokens", uu.Used, uu.Size)
		if uu.Cost != nil {
			text += fmt.Sprintf(", %.4f %s so far", uu.Cost.Amount, uu.Cost.Currency)
		}
		emit(runs.Event{Type: runs.EventStatus, Subtype: "usage", Text: text})
	default:
		emit(runs.RawEvent(raw))
	}
}

// over says whether a tool call's status ends it.
func over(st *acpsdk.ToolCallStatus) bool {
	return *st == acpsdk.ToolCallStatusCompleted || *st == acpsdk.ToolCallStatusFailed
}

// toolResult is a tool call's end: its content as text (diffs as unified hunks of the
// whole text), or its raw output when it has none.
func toolResult(id acpsdk.ToolCallId, st acpsdk.ToolCallStatus, content []acpsdk.ToolCallContent, rawOutput any) runs.Event {
	var b strings.Builder
	for _, c := range content {
		switch {
		case c.Content != nil && c.Content.Content.Text != nil:
			b.WriteString(c.Content.Content.Text.Text)
		case c.Diff != nil:
			writeDiff(&b, c.Diff)
		case c.Terminal != nil:
			fmt.Fprintf(&b, "(the agent's terminal %s)", c.Terminal.TerminalId)
		}
		if b.Len() > 0 && !strings.HasSuffix(b.String(), "\n") {
			b.WriteByte('\n')
		}
	}
	text := strings.TrimSuffix(b.String(), "\n")
	if text == "" && rawOutput != nil {
		if s, ok := rawOutput.(string); ok {
			text = s
		} else {
			text = string(mustJSON(rawOutput))
		}
	}
	return runs.Event{Type: runs.EventToolResult, ToolUseID: string(id), Text: text, IsError: st == acpsdk.ToolCallStatusFailed}
}

// writeDiff writes d as a unified diff of the whole old and new text.
func writeDiff(b *strings.Builder, d *acpsdk.ToolCallContentDiff) {
	old := "/dev/null"
	if d.OldText != nil {
		old = "a/" + strings.TrimPrefix(d.Path, "/")
	}
	fmt.Fprintf(b, "--- %s\n+++ b/%s\n", old, strings.TrimPrefix(d.Path, "/"))
	if d.OldText != nil && *d.OldText != "" {
		for _, l := range strings.SplitAfter(strings.TrimSuffix(*d.OldText, "\n"), "\n") {
			b.WriteString("-" + strings.TrimSuffix(l, "\n") + "\n")
		}
	}
	if d.NewText != "" {
		for _, l := range strings.SplitAfter(strings.TrimSuffix(d.NewText, "\n"), "\n") {
			b.WriteString("+" + strings.TrimSuffix(l, "\n") + "\n")
		}
	}
}
