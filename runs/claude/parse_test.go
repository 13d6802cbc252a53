package claude

import (
	"encoding/json"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/segwi/segwi/runs"
)

func parseAll(lines ...string) []runs.Event {
	p := newParser()
	var evs []runs.Event
	for _, l := range lines {
		p.parseLine([]byte(l), func(e runs.Event) { evs = append(evs, e) })
	}
	return evs
}

func TestParseLine(t *testing.T) {
	tests := []struct {
		name  string
		lines []string
		want  []runs.Event
	}{
		{"an init line starts the session",
			[]string{`{"type":"system","subtype":"init","session_id":"s1","cwd":"/c","tools":["Bash"],"mcp_servers":[{"name":"segwi","status":"connected"}],"model":"m","permissionMode":"auto","claude_code_version":"2.1"}`},
			[]runs.Event{{Type: runs.EventInit, SessionID: "s1", Init: &runs.InitInfo{Model: "m", CWD: "/c", PermissionMode: "auto", Version: "2.1", Tools: []string{"Bash"}, MCPServers: []runs.MCPServer{{Name: "segwi", Status: "connected"}}}}}},
		{"an assistant line with text and a tool call gives two events",
			[]string{`{"type":"assistant","message":{"content":[{"type":"text","text":"hi"},{"type":"tool_use","id":"t1","name":"Bash","input":{"command":"ls"}}]}}`},
			[]runs.Event{{Type: runs.EventText, Text: "hi"}, {Type: runs.EventToolCall, ToolUseID: "t1", ToolName: "Bash", Input: json.RawMessage(`{"command":"ls"}`)}}},
		{"a tool result names its tool",
			[]string{`{"type":"assistant","message":{"content":[{"type":"tool_use","id":"t1","name":"Read","input":{}}]}}`,
				`{"type":"user","message":{"content":[{"type":"tool_result","tool_use_id":"t1","content":[{"type":"text","text":"file body"}],"is_error":false}]}}`},
			[]runs.Event{{Type: runs.EventToolCall, ToolUseID: "t1", ToolName: "Read", Input: json.RawMessage(`{}`)}, {Type: runs.EventToolResult, ToolUseID: "t1", ToolName: "Read", Text: "file body"}}},
		{"a failed tool that was not refused is an error result",
			[]string{`{"type":"user","message":{"content":[{"type":"tool_result","tool_use_id":"t9","content":"exit 1","is_error":true}]}}`},
			[]runs.Event{{Type: runs.EventToolResult, ToolUseID: "t9", Text: "exit 1", IsError: true}}},
		{"a result rejected by a hook is a refusal",
			[]string{`{"type":"user","message":{"content":[{"type":"tool_result","tool_use_id":"t2","content":"PreToolUse:Bash hook error: [g]: no","is_error":true}]},"tool_result_meta":[{"id":"t2","permission_decision":{"decision":"reject","source":"hook"}}]}`},
			[]runs.Event{{Type: runs.EventRefusal, ToolUseID: "t2", Text: "PreToolUse:Bash hook error: [g]: no", IsError: true, Source: "hook"}}},
		{"a person's deny is a refusal",
			[]string{`{"type":"user","message":{"content":[{"type":"tool_result","tool_use_id":"t3","content":"denied by person","is_error":true}]},"tool_result_meta":[{"id":"t3","permission_decision":{"decision":"reject","source":"user_reject"}}]}`},
			[]runs.Event{{Type: runs.EventRefusal, ToolUseID: "t3", Text: "denied by person", IsError: true, Source: "user_reject"}}},
		{"a disallowed tool is a refusal",
			[]string{`{"type":"user","message":{"content":[{"type":"tool_result","tool_use_id":"t4","content":"<tool_use_error>Error: No such tool available: Write</tool_use_error>","is_error":true}]}}`},
			[]runs.Event{{Type: runs.EventRefusal, ToolUseID: "t4", Text: "<tool_use_error>Error: No such tool available: Write</tool_use_error>", IsError: true, Source: "disallowed"}}},
		{"a result line carries cost, turns and denials",
			[]string{`{"type":"result","subtype":"success","is_error":false,"num_turns":3,"result":"ok","total_cost_usd":0.5,"duration_ms":900,"session_id":"s1","usage":{"input_tokens":1},"permission_denials":[{"tool_name":"Write","tool_use_id":"t4","tool_input":{"a":1}}],"terminal_reason":"done"}`},
			[]runs.Event{{Type: runs.EventResult, Subtype: "success", SessionID: "s1", Text: "ok", Result: &runs.ResultInfo{NumTurns: 3, CostUSD: 0.5, DurationMS: 900, TerminalReason: "done",
				Usage: json.RawMessage(`{"input_tokens":1}`), Denials: []runs.Denial{{ToolName: "Write", ToolUseID: "t4", Input: json.RawMessage(`{"a":1}`)}}}}}},
		{"an informational line is a status",
			[]string{`{"type":"system","subtype":"informational","content":"auto mode is off"}`},
			[]runs.Event{{Type: runs.EventStatus, Subtype: "informational", Text: "auto mode is off", Raw: json.RawMessage(`{"type":"system","subtype":"informational","content":"auto mode is off"}`)}}},
		{"an unknown type is kept whole as a raw event",
			[]string{`{"type":"mystery","x":1}`},
			[]runs.Event{{Type: runs.EventRaw, Raw: json.RawMessage(`{"type":"mystery","x":1}`)}}},
		{"a malformed line is kept as output",
			[]string{`{"type":"assis`},
			[]runs.Event{{Type: runs.EventOutput, Text: `{"type":"assis`}}},
		{"an empty line (one of terminal escapes, stripped by the reader) gives no event",
			[]string{"", "\r"},
			nil},
		{"an assistant line without content is kept raw",
			[]string{`{"type":"assistant","message":{}}`},
			[]runs.Event{{Type: runs.EventRaw, Raw: json.RawMessage(`{"type":"assistant","message":{}}`)}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := parseAll(tt.lines...)
			if diff := cmp.Diff(tt.want, got, cmpopts.EquateEmpty()); diff != "" {
				t.Errorf("events (-want +got):\n%s", diff)
			}
		})
	}
}

func TestParseUsage(t *testing.T) {
	const (
		// Two turns of one session, as Claude Code 2.1.328 reports them: modelUsage is the
		// session's so far, model_usage_since_last_result the turn's.
		turn1 = `{"type":"result","subtype":"success","num_turns":2,"total_cost_usd":0.06,"session_id":"s1",` +
			`"modelUsage":{"opus":{"inputTokens":100,"outputTokens":10,"cacheReadInputTokens":1000,"cacheCreationInputTokens":50,"costUSD":0.05},"haiku":{"inputTokens":7,"outputTokens":3,"costUSD":0.01}},` +
			`"model_usage_since_last_result":{"opus":{"inputTokens":100,"outputTokens":10,"cacheReadInputTokens":1000,"cacheCreationInputTokens":50,"costUSD":0.05},"haiku":{"inputTokens":7,"outputTokens":3,"costUSD":0.01}}}`
		turn2 = `{"type":"result","subtype":"success","num_turns":1,"total_cost_usd":0.08,"session_id":"s1",` +
			`"modelUsage":{"opus":{"inputTokens":120,"outputTokens":15,"cacheReadInputTokens":1900,"cacheCreationInputTokens":50,"costUSD":0.07},"haiku":{"inputTokens":7,"outputTokens":3,"costUSD":0.01}},` +
			`"model_usage_since_last_result":{"opus":{"inputTokens":20,"outputTokens":5,"cacheReadInputTokens":900,"costUSD":0.02},"haiku":{}}}`
	)
	want1 := &runs.UsageInfo{
		Usage: runs.Usage{InputTokens: 107, OutputTokens: 13, CacheReadTokens: 1000, CacheWriteTokens: 50, CostUSD: 0.06},
		Models: []runs.ModelUsage{
			{Model: "haiku", Usage: runs.Usage{InputTokens: 7, OutputTokens: 3, CostUSD: 0.01}},
			{Model: "opus", Usage: runs.Usage{InputTokens: 100, OutputTokens: 10, CacheReadTokens: 1000, CacheWriteTokens: 50, CostUSD: 0.05}},
		},
		Requests: 2,
	}
	want2 := &runs.UsageInfo{
		Usage:    runs.Usage{InputTokens: 20, OutputTokens: 5, CacheReadTokens: 900, CostUSD: 0.02},
		Models:   []runs.ModelUsage{{Model: "opus", Usage: runs.Usage{InputTokens: 20, OutputTokens: 5, CacheReadTokens: 900, CostUSD: 0.02}}},
		Requests: 1,
	}
	usages := func(evs []runs.Event) []*runs.UsageInfo {
		var us []*runs.UsageInfo
		for i, e := range evs {
			if e.Type == runs.EventUsage {
				if i+1 >= len(evs) || evs[i+1].Type != runs.EventResult {
					t.Errorf("usage event %d is not followed by its result: %+v", i, evs)
				}
				us = append(us, e.Usage)
			}
		}
		return us
	}
	approx := cmpopts.EquateApprox(0, 1e-12)

	t.Run("each result gives the usage of its turn, per model, before the result", func(t *testing.T) {
		got := usages(parseAll(turn1, turn2))
		if diff := cmp.Diff([]*runs.UsageInfo{want1, want2}, got, approx); diff != "" {
			t.Errorf("usage (-want +got):\n%s", diff)
		}
	})
	t.Run("without model_usage_since_last_result, a turn's usage is what modelUsage added", func(t *testing.T) {
		strip := func(line string) string {
			var m map[string]any
			json.Unmarshal([]byte(line), &m)
			delete(m, "model_usage_since_last_result")
			b, _ := json.Marshal(m)
			return string(b)
		}
		got := usages(parseAll(strip(turn1), strip(turn2)))
		if diff := cmp.Diff([]*runs.UsageInfo{want1, want2}, got, approx); diff != "" {
			t.Errorf("usage (-want +got):\n%s", diff)
		}
	})
	t.Run("a result that says nothing of usage gives no usage event", func(t *testing.T) {
		if got := usages(parseAll(`{"type":"result","subtype":"success","num_turns":1,"total_cost_usd":0}`)); got != nil {
			t.Errorf("usage events: %+v, want none", got)
		}
	})
}

func TestParseRateLimit(t *testing.T) {
	line := `{"type":"rate_limit_event","rate_limit_info":{"status":"allowed_warning","resetsAt":1796407200,"rateLimitType":"five_hour","utilization":0.91,"isUsingOverage":false},"session_id":"s1"}`
	got := parseAll(line)
	want := []runs.Event{{Type: runs.EventStatus, Subtype: SubtypeRateLimit,
		Text: "five_hour allowed_warning, 91% used, resets 2026-12-04 18:00 UTC", Raw: json.RawMessage(line)}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("events (-want +got):\n%s", diff)
	}
}
