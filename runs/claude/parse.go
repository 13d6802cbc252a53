package claude

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	fastjson "github.com/segmentio/encoding/json"

	"github.com/segwi/segwi/runs"
)

// parser turns Claude Code's stream-json lines into events. It remembers the names of
// the tools called, so that a refusal, which only carries the call's id, can name its
// tool. One parser per run, used from the run's reader goroutine.
type parser struct {
	toolNames map[string]string
	// used is what the session used so far, per model, as its last result said
	// (modelUsage): a result without model_usage_since_last_result is told from it.
	used map[string]runs.Usage
}

func newParser() *parser { return &parser{toolNames: map[string]string{}} }

// NewParser returns a parser of one Claude Code session's stream-json output, line by
// line and in order, as a session parses it (runs.Session.Parse): for output read outside
// a run.
func NewParser() func(line []byte, emit func(runs.Event)) { return newParser().parseLine }

// maxToolNames bounds the memory of tool ids; beyond it the oldest are forgotten at once.
const maxToolNames = 4096

// wireLine is the union of the stream-json line shapes segwi reads.
type wireLine struct {
	Type      string  `json:"type"`
	Subtype   string  `json:"subtype"`
	SessionID string  `json:"session_id"`
	Message   wireMsg `json:"message"`

	// system/init
	CWD            string           `json:"cwd"`
	Tools          []string         `json:"tools"`
	MCPServers     []runs.MCPServer `json:"mcp_servers"`
	Model          string           `json:"model"`
	PermissionMode string           `json:"permissionMode"`
	Version        string           `json:"claude_code_version"`

	// other system lines
	Content  json.RawMessage `json:"content"`
	Status   json.RawMessage `json:"status"`
	ToolName string          `json:"tool_name"`
	HookName string          `json:"hook_name"`

	// user lines with tool results
	ToolResultMeta []wireMeta `json:"tool_result_meta"`

	// result
	IsError        bool            `json:"is_error"`
	NumTurns       int             `json:"num_turns"`
	Result         string          `json:"result"`
	TotalCostUSD   float64         `json:"total_cost_usd"`
	DurationMS     int64           `json:"duration_ms"`
	Usage          json.RawMessage `json:"usage"`
	Denials        []wireDenial    `json:"permission_denials"`
	TerminalReason string          `json:"terminal_reason"`
	// rate_limit_event: what a claude.ai subscription's rate limit says (Claude Code
	// sends it only when the API answers with its unified rate limit headers).
	RateLimit *wireRateLimit `json:"rate_limit_info"`
	// ModelUsage is what the session (this process) used so far, per model;
	// ModelUsageSince what the turn that ended used.
	ModelUsage      map[string]wireModelUsage `json:"modelUsage"`
	ModelUsageSince map[string]wireModelUsage `json:"model_usage_since_last_result"`
}

// wireRateLimit is a rate_limit_event's rate_limit_info.
type wireRateLimit struct {
	Status        string   `json:"status"`   // allowed, allowed_warning, rejected
	ResetsAt      int64    `json:"resetsAt"` // Unix seconds; 0 when not said
	RateLimitType string   `json:"rateLimitType"`
	Utilization   *float64 `json:"utilization"` // 0 to 1, when said
	UsingOverage  bool     `json:"isUsingOverage"`
}

// text says what w says, for a person, after "rate limit: ": "five_hour allowed_warning,
// 91% used, resets 2026-12-04 18:00 UTC".
func (w *wireRateLimit) text() string {
	var sb strings.Builder
	if w.RateLimitType != "" {
		sb.WriteString(w.RateLimitType + " ")
	}
	sb.WriteString(w.Status)
	if w.Utilization != nil {
		fmt.Fprintf(&sb, ", %.0f%% used", *w.Utilization*100)
	}
	if w.UsingOverage {
		sb.WriteString(", using overage")
	}
	if w.ResetsAt > 0 {
		sb.WriteString(", resets " + time.Unix(w.ResetsAt, 0).UTC().Format("2006-01-02 15:04 UTC"))
	}
	return sb.String()
}

// wireModelUsage is one model's usage in a result's modelUsage.
type wireModelUsage struct {
	InputTokens              int64   `json:"inputTokens"`
	OutputTokens             int64   `json:"outputTokens"`
	CacheReadInputTokens     int64   `json:"cacheReadInputTokens"`
	CacheCreationInputTokens int64   `json:"cacheCreationInputTokens"`
	CostUSD                  float64 `json:"costUSD"`
}

func (w wireModelUsage) usage() runs.Usage {
	return runs.Usage{
		InputTokens: w.InputTokens, OutputTokens: w.OutputTokens,
		CacheReadTokens: w.CacheReadInputTokens, CacheWriteTokens: w.CacheCreationInputTokens,
		CostUSD: w.CostUSD,
	}
}

// wireMsg is a "message" field: an object with content (a string or blocks) for
// assistant and user lines, a plain string on some system lines.
type wireMsg struct {
	Text    string // a message that is a plain string
	Content wireContent
}

func (m *wireMsg) UnmarshalJSON(b []byte) error {
	switch {
	case len(b) == 0 || b[0] == 'n':
		return nil
	case b[0] == '"':
		return fastjson.Unmarshal(b, &m.Text)
	case b[0] == '{':
		var v struct {
			Content wireContent `json:"content"`
		}
		err := fastjson.Unmarshal(b, &v)
		m.Content = v.Content
		return err
	}
	return nil
}

// wireContent is a content field: a string or an array of blocks.
type wireContent struct {
	Text   string
	Blocks []wireBlock
}

// UnmarshalJSON decodes a string or an array of blocks. b was validated with the whole
// line, so the scan of the array is the only extra pass.
func (c *wireContent) UnmarshalJSON(b []byte) error {
	switch {
	case len(b) == 0 || b[0] == 'n':
		return nil
	case b[0] == '"':
		s, ok := unquote(b)
		if !ok {
			return fastjson.Unmarshal(b, &c.Text)
		}
		c.Text = s
		return nil
	case b[0] == '[':
		return fastjson.Unmarshal(b, &c.Blocks)
	}
	return nil
}

// unquote decodes a JSON string without escapes cheaply; ok is false when it has any.
func unquote(b []byte) (string, bool) {
	if len(b) < 2 || bytes.IndexByte(b[1:len(b)-1], '\\') >= 0 {
		return "", false
	}
	return string(b[1 : len(b)-1]), true
}

// text returns the content as text: the string, or its text blocks joined.
func (c wireContent) text() string {
	if c.Blocks == nil {
		return c.Text
	}
	var sb strings.Builder
	for _, b := range c.Blocks {
		switch b.Type {
		case "text":
			if sb.Len() > 0 {
				sb.WriteByte('\n')
			}
			sb.WriteString(b.Text)
		case "image":
			sb.WriteString("[image]")
		}
	}
	return sb.String()
}

type wireBlock struct {
	Type      string          `json:"type"`
	Text      string          `json:"text"`
	ID        string          `json:"id"`
	Name      string          `json:"name"`
	Input     json.RawMessage `json:"input"`
	ToolUseID string          `json:"tool_use_id"`
	Content   wireContent     `json:"content"`
	IsError   bool            `json:"is_error"`
}

type wireMeta struct {
	ID                 string `json:"id"`
	PermissionDecision *struct {
		Decision string `json:"decision"`
		Source   string `json:"source"`
	} `json:"permission_decision"`
}

type wireDenial struct {
	ToolName  string          `json:"tool_name"`
	ToolUseID string          `json:"tool_use_id"`
	ToolInput json.RawMessage `json:"tool_input"`
}

// parseLine turns one output line into events and hands each to emit. The line is
// already redacted, its newline removed and its terminal control sequences stripped
// (see runs.Session.Parse). A line that is not JSON becomes an output event; a JSON line of an
// unknown type, or of a known type in an unknown shape, becomes a raw event; an empty
// line (a line of terminal escapes, such as the ESC[?25h Claude Code writes on exit)
// becomes none.
func (p *parser) parseLine(line []byte, emit func(runs.Event)) {
	js := bytes.TrimRight(line, "\r")
	if len(js) == 0 {
		return
	}
	if js[0] != '{' {
		emit(runs.OutputEvent(js))
		return
	}
	var w wireLine
	if err := fastjson.Unmarshal(js, &w); err != nil {
		emit(runs.OutputEvent(js))
		return
	}
	switch w.Type {
	case "system":
		p.system(&w, js, emit)
	case "assistant":
		p.assistant(&w, js, emit)
	case "user":
		p.user(&w, js, emit)
	case "result":
		if u := p.turnUsage(&w); u != nil {
			emit(runs.Event{Type: runs.EventUsage, SessionID: w.SessionID, Usage: u})
		}
		emit(runs.Event{
			Type:      runs.EventResult,
			Subtype:   w.Subtype,
			SessionID: w.SessionID,
			Text:      w.Result,
			Result: &runs.ResultInfo{
				IsError:        w.IsError,
				NumTurns:       w.NumTurns,
				CostUSD:        w.TotalCostUSD,
				DurationMS:     w.DurationMS,
				TerminalReason: w.TerminalReason,
				Usage:          w.Usage,
				Denials:        denials(w.Denials),
			},
		})
	case "rate_limit_event":
		if w.RateLimit == nil {
			emit(runs.RawEvent(js))
			return
		}
		ev := runs.Event{Type: runs.EventStatus, Subtype: SubtypeRateLimit, Text: w.RateLimit.text()}
		if len(js) <= runs.MaxFieldBytes {
			ev.Raw = json.RawMessage(bytes.Clone(js))
		}
		emit(ev)
	default:
		emit(runs.RawEvent(js))
	}
}

// SubtypeRateLimit is the subtype of the status event that says what Claude Code's
// rate_limit_event said: a claude.ai subscription's limit, how much of it is used, when
// it resets. Its Raw holds the whole line.
const SubtypeRateLimit = "rate-limit"

func (p *parser) system(w *wireLine, js []byte, emit func(runs.Event)) {
	switch w.Subtype {
	case "init":
		emit(runs.Event{Type: runs.EventInit, SessionID: w.SessionID, Init: &runs.InitInfo{
			Model: w.Model, CWD: w.CWD, PermissionMode: w.PermissionMode, Version: w.Version,
			Tools: w.Tools, MCPServers: w.MCPServers,
		}})
	default:
		// status, informational, permission_denied, hook_started, hook_response, and
		// whatever later versions add: shown as status, the whole line kept.
		text := w.Message.Text
		if text == "" {
			text = jsonText(w.Content)
		}
		if text == "" {
			text = jsonText(w.Status)
		}
		if text == "" && w.HookName != "" {
			text = w.HookName
		}
		ev := runs.Event{Type: runs.EventStatus, Subtype: w.Subtype, ToolName: w.ToolName, Text: text}
		if len(js) <= runs.MaxFieldBytes {
			ev.Raw = json.RawMessage(bytes.Clone(js))
		}
		emit(ev)
	}
}

func (p *parser) assistant(w *wireLine, js []byte, emit func(runs.Event)) {
	c := w.Message.Content
	if c.Blocks == nil && c.Text == "" {
		emit(runs.RawEvent(js))
		return
	}
	if c.Blocks == nil {
		emit(runs.Event{Type: runs.EventText, Text: c.Text})
		return
	}
	for _, b := range c.Blocks {
		switch b.Type {
		case "text":
			emit(runs.Event{Type: runs.EventText, Text: b.Text})
		case "tool_use":
			p.remember(b.ID, b.Name)
			emit(runs.Event{Type: runs.EventToolCall, ToolUseID: b.ID, ToolName: b.Name, Input: b.Input})
		case "thinking", "redacted_thinking":
			// Not shown and not recorded as text: the model's private reasoning.
		default:
			emit(runs.RawEventOf(b))
		}
	}
}

func (p *parser) user(w *wireLine, js []byte, emit func(runs.Event)) {
	if w.Message.Content.Blocks == nil {
		emit(runs.RawEvent(js)) // a user message echoed back, or a shape segwi does not know
		return
	}
	for _, b := range w.Message.Content.Blocks {
		if b.Type != "tool_result" {
			emit(runs.RawEventOf(b))
			continue
		}
		text := b.Content.text()
		ev := runs.Event{Type: runs.EventToolResult, ToolUseID: b.ToolUseID, ToolName: p.toolNames[b.ToolUseID], Text: text, IsError: b.IsError}
		if src := refusalSource(b, w.ToolResultMeta); src != "" {
			ev.Type, ev.Source = runs.EventRefusal, src
		}
		emit(ev)
	}
}

// refusalSource says who refused the call whose result is b, or "" when it was not
// refused (it ran, and may still have failed).
func refusalSource(b wireBlock, meta []wireMeta) string {
	if !b.IsError {
		return ""
	}
	for _, m := range meta {
		if m.ID == b.ToolUseID && m.PermissionDecision != nil && m.PermissionDecision.Decision == "reject" {
			if m.PermissionDecision.Source != "" {
				return m.PermissionDecision.Source
			}
			return "rule"
		}
	}
	text := b.Content.text()
	switch {
	case strings.Contains(text, "No such tool available"):
		return "disallowed"
	case strings.Contains(text, "hook error"):
		return "hook"
	case strings.Contains(text, "auto mode classifier"):
		return "classifier"
	}
	return ""
}

func (p *parser) remember(id, name string) {
	if id == "" {
		return
	}
	if len(p.toolNames) >= maxToolNames {
		clear(p.toolNames)
	}
	p.toolNames[id] = name
}

// turnUsage is what the turn whose result w is used, per model: the result's
// model_usage_since_last_result, or (from a Claude Code that does not send it) what its
// modelUsage, the session's so far, adds to the last result's. Nil for a result that says
// nothing of usage.
func (p *parser) turnUsage(w *wireLine) *runs.UsageInfo {
	since := w.ModelUsageSince
	if since == nil && w.ModelUsage != nil {
		since = map[string]wireModelUsage{}
		for model, m := range w.ModelUsage {
			before := p.used[model]
			since[model] = wireModelUsage{
				InputTokens: m.InputTokens - before.InputTokens, OutputTokens: m.OutputTokens - before.OutputTokens,
				CacheReadInputTokens:     m.CacheReadInputTokens - before.CacheReadTokens,
				CacheCreationInputTokens: m.CacheCreationInputTokens - before.CacheWriteTokens,
				CostUSD:                  m.CostUSD - before.CostUSD,
			}
		}
	}
	if w.ModelUsage != nil {
		p.used = map[string]runs.Usage{}
		for model, m := range w.ModelUsage {
			p.used[model] = m.usage()
		}
	}
	if since == nil {
		return nil
	}
	u := &runs.UsageInfo{Requests: w.NumTurns}
	for _, model := range slices.Sorted(maps.Keys(since)) {
		m := since[model].usage()
		if m.IsZero() {
			continue // a model of the session this turn did not use
		}
		u.Models = append(u.Models, runs.ModelUsage{Model: model, Usage: m})
		u.Usage.Add(m)
	}
	return u
}

func denials(ws []wireDenial) []runs.Denial {
	var ds []runs.Denial
	for _, w := range ws {
		ds = append(ds, runs.Denial{ToolName: w.ToolName, ToolUseID: w.ToolUseID, Input: w.ToolInput})
	}
	return ds
}

// jsonText returns a JSON value as text: a string as is, anything else compact.
func jsonText(raw json.RawMessage) string {
	if len(raw) == 0 || string(raw) == "null" {
		return ""
	}
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	var c wireContent
	if json.Unmarshal(raw, &c) == nil && c.Blocks != nil {
		return c.text()
	}
	return string(raw)
}
