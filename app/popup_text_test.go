package app

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/theme"

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
			if got := timeLeftText(tt.deadline, tt.now, false); got != tt.want {
				t.Errorf("timeLeftText = %q, want %q", got, tt.want)
			}
		})
	}
}

// A request whose deadline is its run's end (runs.maxDuration before approvals.timeout)
// says that the run ends then, not only that the request is denied.
func TestTimeLeftTextAtTheRunsEnd(t *testing.T) {
	deadline := popupT0.Add(2 * time.Minute)
	want := "Time left: 2m 00s, then the run ends (runs.maxDuration) and it is denied"
	if got := timeLeftText(deadline, popupT0, true); got != want {
		t.Errorf("timeLeftText = %q, want %q", got, want)
	}
}

func TestViewOf(t *testing.T) {
	tests := []struct {
		name     string
		req      approvals.Request
		input    string
		caption  string
		heading  string
		unread   string
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
			caption:  "Command",
			heading:  "The ask run in web wants to use Bash",
			checkout: "Checkout: /src/web/",
		},
		{
			name: "a Bash input without a command is shown as JSON, saying why",
			req: approvals.Request{
				Run:      approvals.RunInfo{Kind: "build", Checkout: "/src/web"},
				ToolName: "Bash",
				Input:    json.RawMessage(`{"description":"odd"}`),
			},
			input:    "{\n  \"description\": \"odd\"\n}",
			caption:  "Input",
			heading:  "The build run in web wants to use Bash",
			unread:   `Shown as JSON, whole: its input is not exactly what the tool takes (it has no "command"), so segwi does not read it as the tool would.`,
			checkout: "Checkout: /src/web",
		},
		{
			name: "input that is not JSON is shown as it came",
			req: approvals.Request{
				ToolName: "mcp__db__query",
				Input:    json.RawMessage(`not json`),
			},
			input:    "not json",
			caption:  "Input",
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
			caption:  "Input",
			heading:  "The build run in web wants to use WebFetch",
			checkout: "Checkout: /src/web",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			v := viewOf(tt.req)
			var main []string
			for _, l := range v.mainLines() {
				main = append(main, l.mark+l.text)
			}
			for _, f := range []struct{ field, got, want string }{
				{"input", strings.Join(main, "\n"), tt.input},
				{"caption", v.Caption, tt.caption},
				{"heading", v.Heading, tt.heading},
				{"unread", v.Unread, tt.unread},
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
	edit := viewOf(approvals.Request{ToolName: "Edit", Run: approvals.RunInfo{Checkout: "/src/web"},
		Input: json.RawMessage(`{"file_path":"/src/web/a\u202e.txt","old_string":"ok","new_string":"ok\rrm -rf ~"}`)})
	for _, f := range []struct{ field, got, want string }{
		{"input", bash.Command, `ls \u202e# ~ fr- mr\u202c\x1b[8m`},
		{"description", bash.Description, `List\u200f\x0d files`},
		{"checkout", bash.checkout, `Checkout: /src/we\u202eb`},
		{"heading", bash.Heading, `The build run in we\u202eb wants to use Bash`},
		{"title", bash.title, `Approve Bash? · build run in we\u202eb`},
		{"note", bash.Note, `Not checked\u2067.`},
		{"another tool's name", other.Heading, `The run wants to use mcp__db\u2066`},
		{"another tool's input", other.JSON, "{\n  \"sql\": \"drop\\u202e\"\n}"},
		{"a change's path", edit.Caption, `Edit a\u202e.txt`},
		{"a change's line", edit.Change[len(edit.Change)-1].Text, `ok\x0drm -rf ~`},
	} {
		if f.got != f.want {
			t.Errorf("%s = %q, want %q", f.field, f.got, f.want)
		}
	}
}

// A command past what a popup shows (approvals.MaxShown) ends its text with what it left
// out, in words.
func TestLongInputIsCappedAndSaysSo(t *testing.T) {
	long := strings.Repeat("é", approvals.MaxShown) // two bytes a rune: twice the cap
	lines := viewOf(approvals.Request{ToolName: "Bash", Input: popupJSON(t, map[string]string{"command": long})}).mainLines()
	last := lines[len(lines)-1]
	if want := "… 65536 more bytes of the command are not shown: deny it if you cannot judge it"; last.text != want || last.color != saidColor {
		t.Errorf("the last line is %q (in %q), want %q in %q", last.text, last.color, want, saidColor)
	}
	if short := capText("ls", maxShownInput); short != "ls" {
		t.Errorf("capText changed a short text to %q", short)
	}
}

// Texts Claude Code chooses, a path and a command's description, cannot make a popup's
// labels long enough for Fyne's wrapping to freeze it, nor put the end of a path off the
// popup's edge: the path is broken to fit the popup at its narrowest, the description cut.
func TestLongPathsAndDescriptionsStayShortInAPopup(t *testing.T) {
	h := newPopupHarness(t)
	path := "/home/ada/src/web/" + strings.Repeat("deep/", 400) + "a.txt"
	req := writeRequest("w1")
	req.Run.Checkout = "/home/ada/src/web"
	req.Input = popupJSON(t, map[string]string{"file_path": path, "content": "x"})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	p, done := h.decide(ctx, req)
	ui(func() {
		drv := fyne.CurrentApp().Driver()
		at := drv.AbsolutePositionForObject(p.panel.caption)
		right := min(at.X+p.panel.caption.Size().Width, p.win.Canvas().Size().Width)
		for _, l := range strings.Split(p.panel.caption.Text, "\n") {
			if w := fyne.MeasureText(l, theme.TextSize(), fyne.TextStyle{Monospace: true}).Width; at.X+w > right {
				t.Errorf("a caption line %q ends at x %.0f, past the popup's edge at %.0f", l, at.X+w, right)
			}
		}
		if got := strings.ReplaceAll(strings.ReplaceAll(p.panel.caption.Text, wrapMark+"\n", ""), "\n", ""); !strings.Contains(got, strings.TrimPrefix(path, "/home/ada/src/web/")) {
			t.Errorf("the caption %q does not hold the whole path", got)
		}
	})
	cancel()
	decideResult(t, done)

	bash, _ := json.Marshal(map[string]string{"command": "ls", "description": strings.Repeat("why ", 2000)})
	if d := viewOf(approvals.Request{ToolName: "Bash", Input: bash}).Description; len([]rune(d)) > 401 {
		t.Errorf("a description of %d runes, want it cut at 400", len([]rune(d)))
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
