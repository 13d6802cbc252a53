package app

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/segwi/segwi/approvals"
)

func TestTimeLeftText(t *testing.T) {
	deadline := popupT0.Add(time.Hour)
	tests := []struct {
		name     string
		deadline time.Time
		now      time.Time
		want     string
	}{
		{"no deadline means no limit", time.Time{}, popupT0, timeLeftNoLimit},
		{"over an hour shows hours", popupT0.Add(2*time.Hour + 3*time.Minute + 4*time.Second), popupT0, "Time left: 2h 03m 04s, then it is denied"},
		{"minutes show seconds padded", deadline, deadline.Add(-9*time.Minute - 5*time.Second), "Time left: 9m 05s, then it is denied"},
		{"part of a second rounds up", deadline, deadline.Add(-1500 * time.Millisecond), "Time left: 2s, then it is denied"},
		{"the deadline itself is up", deadline, deadline, timeLeftExpired},
		{"past the deadline is up", deadline, deadline.Add(time.Second), timeLeftExpired},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := timeLeftText(tt.deadline, tt.now); got != tt.want {
				t.Errorf("timeLeftText = %q, want %q", got, tt.want)
			}
		})
	}
}

func TestViewOf(t *testing.T) {
	tests := []struct {
		name     string
		req      approvals.Request
		input    string
		caption  string
		heading  string
		desc     string
		checkout string
	}{
		{
			name: "a multi-line Bash command is shown whole",
			req: approvals.Request{
				Run:      approvals.RunInfo{Kind: "ask", Checkout: "/src/web/"},
				ToolName: "Bash",
				Input:    json.RawMessage(`{"command":"make test\nmake lint"}`),
			},
			input:    "make test\nmake lint",
			caption:  "Command:",
			heading:  "The ask run in web wants to use Bash",
			checkout: "Checkout: /src/web/",
		},
		{
			name: "a Bash input without a command is shown as JSON",
			req: approvals.Request{
				Run:      approvals.RunInfo{Kind: "build", Checkout: "/src/web"},
				ToolName: "Bash",
				Input:    json.RawMessage(`{"description":"odd"}`),
			},
			input:    "{\n  \"description\": \"odd\"\n}",
			caption:  "Input:",
			heading:  "The build run in web wants to use Bash",
			checkout: "Checkout: /src/web",
		},
		{
			name: "input that is not JSON is shown as it came",
			req: approvals.Request{
				ToolName: "mcp__db__query",
				Input:    json.RawMessage(`not json`),
			},
			input:    "not json",
			caption:  "Input:",
			heading:  "The run wants to use mcp__db__query",
			checkout: "Checkout: (unknown)",
		},
		{
			name: "a fetch shows its input",
			req: approvals.Request{
				Run:      approvals.RunInfo{Kind: "build", Checkout: "/src/web"},
				ToolName: "WebFetch",
				Input:    json.RawMessage(`{"url":"https://example.com/x","prompt":"read"}`),
			},
			input:    "{\n  \"url\": \"https://example.com/x\",\n  \"prompt\": \"read\"\n}",
			caption:  "Input:",
			heading:  "The build run in web wants to use WebFetch",
			checkout: "Checkout: /src/web",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			v := viewOf(tt.req)
			for _, f := range []struct{ field, got, want string }{
				{"input", v.input, tt.input},
				{"caption", v.caption, tt.caption},
				{"heading", v.heading, tt.heading},
				{"description", v.description, tt.desc},
				{"checkout", v.checkout, tt.checkout},
			} {
				if f.got != f.want {
					t.Errorf("%s = %q, want %q", f.field, f.got, f.want)
				}
			}
		})
	}
}

// TestViewShowsHiddenCharactersEscaped checks every text of a popup for characters that
// act or reorder instead of showing: a U+202E in a command shows the rest of its line
// backwards, so "rm -rf ~" can read as something else.
func TestViewShowsHiddenCharactersEscaped(t *testing.T) {
	bash := viewOf(approvals.Request{
		Run:      approvals.RunInfo{Kind: "build", Checkout: "/src/we\u202eb"},
		ToolName: "Bash",
		Input:    json.RawMessage(`{"command":"ls \u202e# ~ fr- mr\u202c\u001b[8m","description":"List\u200f\r files"}`),
		Note:     "Not checked\u2067.",
	})
	other := viewOf(approvals.Request{ToolName: "mcp__db\u2066", Input: json.RawMessage(`{"sql":"drop\u202e"}`)})
	for _, f := range []struct{ field, got, want string }{
		{"input", bash.input, `ls \u202e# ~ fr- mr\u202c\x1b[8m`},
		{"description", bash.description, `List\u200f\x0d files`},
		{"checkout", bash.checkout, `Checkout: /src/we\u202eb`},
		{"heading", bash.heading, `The build run in we\u202eb wants to use Bash`},
		{"title", bash.title, `Approve Bash? · build run in we\u202eb`},
		{"note", bash.note, `Not checked\u2067.`},
		{"another tool's name", other.heading, `The run wants to use mcp__db\u2066`},
		{"another tool's input", other.input, "{\n  \"sql\": \"drop\\u202e\"\n}"},
	} {
		if f.got != f.want {
			t.Errorf("%s = %q, want %q", f.field, f.got, f.want)
		}
	}
}

func TestLongInputIsCappedAndSaysSo(t *testing.T) {
	long := strings.Repeat("é", maxShownInput) // two bytes a rune: twice the cap
	req := approvals.Request{ToolName: "Bash", Input: popupJSON(t, map[string]string{"command": long})}

	got := strings.ReplaceAll(viewOf(req).input, wrapMark+"\n", "") // without the breaks of its long line

	shown, note, ok := strings.Cut(got, "\n… (")
	if !ok {
		t.Fatalf("capped input has no note of what was left out; ends %q", got[len(got)-40:])
	}
	if len(shown) != maxShownInput || !strings.HasPrefix(long, shown) {
		t.Errorf("shown %d bytes of the command, want its first %d", len(shown), maxShownInput)
	}
	if want := "65536 more bytes not shown)"; note != want {
		t.Errorf("note = %q, want %q", note, want)
	}
	if short := capText("ls", maxShownInput); short != "ls" {
		t.Errorf("capText changed a short text to %q", short)
	}
}

// A long line is broken into pieces that end in a mark, and the mark in the text itself is
// escaped: a break reads only as a break, never as the command's own newline.
func TestBreakLines(t *testing.T) {
	tests := []struct {
		name, in string
		cols     int
		want     string
	}{
		{"short lines are kept", "ls\ncd /", 4, "ls\ncd /"},
		{"a long line breaks every cols runes", "abcdefghij", 4, "abcd↩\nefgh↩\nij"},
		{"a line of exactly cols runes is kept", "abcd\nabcdé", 4, "abcd\nabcd↩\né"},
		{"the mark in the text is escaped", "a↩\nb", 80, `a\u21a9` + "\nb"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := breakLines(tt.in, tt.cols); got != tt.want {
				t.Errorf("breakLines(%q, %d) = %q, want %q", tt.in, tt.cols, got, tt.want)
			}
		})
	}
}

func TestDenyMessage(t *testing.T) {
	if got := denyMessage("  \n"); got != msgDeclined {
		t.Errorf("denyMessage of blanks = %q, want %q", got, msgDeclined)
	}
	if got := denyMessage(" use make check "); got != "use make check" {
		t.Errorf("denyMessage = %q, want the typed text trimmed", got)
	}
}

func popupJSON(t *testing.T, v any) json.RawMessage {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}
