package runs

import (
	"encoding/json"
	"strings"
	"testing"
	"time"
)

func TestFormatEvent(t *testing.T) {
	at := time.Date(2025, 1, 2, 15, 4, 5, 0, time.Local)
	tests := []struct {
		name string
		e    Event
		want string
	}{
		{"assistant text shows on one line", Event{Type: EventText, Text: "one\ntwo"}, "claude    one⏎two"},
		{"a Bash call shows its command", Event{Type: EventToolCall, ToolName: "Bash", Input: json.RawMessage(`{"command":"ls -la","description":"list"}`)}, "tool      Bash: ls -la"},
		{"a refusal by a hook says so", Event{Type: EventRefusal, ToolName: "Bash", Source: "hook", Text: "denied"}, "refused   Bash (a hook): denied"},
		{"a result shows cost and turns", Event{Type: EventResult, Subtype: "success", Result: &ResultInfo{NumTurns: 2, CostUSD: 0.0123, Denials: []Denial{{ToolName: "Write"}}}}, "result    success after 2 turns, $0.0123, 1 refused"},
		{"a state change shows its reason", Event{Type: EventState, State: &StateChange{From: StateRunning, To: StateStopping, Reason: "stopped by a person"}}, "state     stopping: stopped by a person"},
		{"an exit by signal names it", Event{Type: EventExit, Exit: &ExitInfo{Code: 137, Signal: "killed"}}, "exit      code 137 (killed)"},
		{"an approval request shows what segwi noticed", Event{Type: EventApprovalRequest, ToolName: "Bash", Input: json.RawMessage(`{"command":"ls|ls"}`), Approval: &ApprovalInfo{Note: "Not checked: too long."}}, "approve?  Bash: ls|ls (Not checked: too long.)"},
		{"an approval answer says who and how long", Event{Type: EventApprovalAnswer, Approval: &ApprovalInfo{By: "timeout", WaitedMS: 1500, Message: "no answer"}}, "approval  denied by timeout after 1.5s: no answer"},
		{"an init line summarises the session", Event{Type: EventInit, Init: &InitInfo{Model: "m", PermissionMode: "auto", Tools: []string{"a", "b"}, MCPServers: []MCPServer{{"segwi", "connected"}}}}, "session   started: model m, auto mode, 2 tools, MCP segwi connected"},
		{"an escape is made visible", Event{Type: EventOutput, Text: "\x1b[?25h"}, "stderr    ␛[?25h"},
		{"a process the run left says what became of it", Event{Type: EventLeftover, Text: "killed process 7, which the run left running: sleep 311",
			Process: &ProcessInfo{PID: 7, Command: "sleep 311", Killed: true}}, "leftover  killed process 7, which the run left running: sleep 311"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tt.e.Time = at
			want := "15:04:05 " + tt.want
			if got := FormatEvent(tt.e); got != want {
				t.Errorf("got  %q\nwant %q", got, want)
			}
		})
	}
	long := FormatEvent(Event{Type: EventText, Text: strings.Repeat("x", 1000), Time: at})
	if !strings.HasSuffix(long, "…") || len([]rune(long)) > 430 {
		t.Errorf("a long text: got %d runes ending %q, want it shortened with …", len([]rune(long)), long[len(long)-5:])
	}
}
