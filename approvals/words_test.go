package approvals

import (
	"encoding/json"
	"strings"
	"testing"
)

func TestTheNoticeOfARequestNamesTheRunTheToolAndWhatItWorksOn(t *testing.T) {
	tests := []struct {
		name string
		req  Request
		want string
	}{
		{"a multi-line Bash command gives its first line",
			Request{Run: RunInfo{Kind: "ask", Checkout: "/src/web/"}, ToolName: "Bash", Input: json.RawMessage(`{"command":"make test\nmake lint"}`)},
			"The ask run in web wants to use Bash: make test…"},
		{"a Bash input without a command gives no summary",
			Request{Run: RunInfo{Kind: "build", Checkout: "/src/web"}, ToolName: "Bash", Input: json.RawMessage(`{"description":"odd"}`)},
			"The build run in web wants to use Bash"},
		{"a run is named by its repository's name when the asker knows it",
			Request{Run: RunInfo{Kind: "build", Checkout: "/src/web", Name: "Web shop"}, ToolName: "Bash", Input: json.RawMessage(`{"command":"make"}`)},
			"The build run in Web shop wants to use Bash: make"},
		{"input that is not JSON gives no summary, and an unknown run is a run",
			Request{ToolName: "mcp__db__query", Input: json.RawMessage(`not json`)},
			"The run wants to use mcp__db__query"},
		{"a fetch names its URL",
			Request{Run: RunInfo{Kind: "build", Checkout: "/src/web"}, ToolName: "WebFetch", Input: json.RawMessage(`{"url":"https://example.com/x","prompt":"read"}`)},
			"The build run in web wants to use WebFetch: https://example.com/x"},
		{"a long command is cut",
			Request{Run: RunInfo{Kind: "build", Checkout: "/w"}, ToolName: "Bash", Input: json.RawMessage(`{"command":"` + strings.Repeat("a", 130) + `"}`)},
			"The build run in w wants to use Bash: " + strings.Repeat("a", 120) + "…"},
		// A U+202E in a command shows the rest of its line backwards: "rm -rf ~" can read as
		// something else.
		{"hidden characters are escaped",
			Request{Run: RunInfo{Kind: "build", Checkout: "/src/we\u202eb"}, ToolName: "Bash", Input: json.RawMessage(`{"command":"ls \u202e# ~ fr- mr\u202c\u001b[8m"}`)},
			`The build run in we\u202eb wants to use Bash: ls \u202e# ~ fr- mr\u202c\x1b[8m`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := tt.req.Notice(); got != tt.want {
				t.Errorf("Notice = %q, want %q", got, tt.want)
			}
		})
	}
}
