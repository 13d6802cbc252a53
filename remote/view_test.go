package remote

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/segwi/segwi/approvals"
	"github.com/segwi/segwi/control"
	"github.com/segwi/segwi/runs"
)

func TestThePageShowsWhatIsApprovedAsItReads(t *testing.T) {
	approval := func(tool string, input any) control.Approval {
		raw, err := json.Marshal(input)
		if err != nil {
			t.Fatal(err)
		}
		return control.Approval{Request: "req-1", Run: control.RunRef{ID: "r1", Kind: runs.KindBuild, Name: "web", Prompt: "Fix it"},
			Tool: tool, Input: raw, Asked: time.Unix(100, 0), Deadline: time.Unix(700, 0)}
	}
	t.Run("a Bash call shows its command and description", func(t *testing.T) {
		p := pageApprovalOf(approval("Bash", map[string]string{"command": "go test ./...", "description": " Run the tests "}))
		want := pageApproval{Request: "req-1", Run: "r1", Kind: "build", Name: "web", Prompt: "Fix it", Tool: "Bash",
			Caption: "Command", Text: "go test ./...", Description: "Run the tests", Asked: time.Unix(100, 0), Deadline: time.Unix(700, 0)}
		if diff := cmp.Diff(want, p); diff != "" {
			t.Errorf("(-want +got):\n%s", diff)
		}
	})
	// A command that reads "rm -rf ~/;#" backwards after U+202E would show as a harmless
	// one: the override must show as an escape, as in the desktop popup.
	t.Run("a bidirectional override and control characters show as escapes", func(t *testing.T) {
		p := pageApprovalOf(approval("Bash", map[string]string{"command": "echo safe \u202e#;/~ fr- mr\x1b[2K"}))
		if want := `echo safe \u202e#;/~ fr- mr\x1b[2K`; p.Text != want {
			t.Errorf("shown %q, want %q", p.Text, want)
		}
		p = pageApprovalOf(approval("Write", map[string]string{"file_path": "/src/a\u2066.go", "content": "x"}))
		if want := `/src/a\u2066.go`; p.File != want {
			t.Errorf("file %q, want %q", p.File, want)
		}
	})
	t.Run("an edit shows its old lines removed and its new lines added", func(t *testing.T) {
		p := pageApprovalOf(approval("Edit", map[string]any{"file_path": "/src/a.go", "old_string": "a\nb", "new_string": "c", "replace_all": true}))
		want := []diffLine{{"-", "a"}, {"-", "b"}, {"+", "c"}}
		if diff := cmp.Diff(want, p.Diff); diff != "" || p.File != "/src/a.go" || !strings.Contains(p.Caption, "every place") {
			t.Errorf("diff (-want +got):\n%s\nfile %q, caption %q", diff, p.File, p.Caption)
		}
	})
	t.Run("another tool shows its input as indented JSON", func(t *testing.T) {
		p := pageApprovalOf(approval("WebFetch", map[string]string{"url": "https://example.com"}))
		if p.Caption != "Input" || p.Text != "{\n  \"url\": \"https://example.com\"\n}" {
			t.Errorf("caption %q, text %q", p.Caption, p.Text)
		}
	})
	t.Run("a large input is cut, and the page says how much is not shown", func(t *testing.T) {
		p := pageApprovalOf(approval("Write", map[string]string{"file_path": "/src/big.txt", "content": strings.Repeat("é", maxShownInput)}))
		if len(p.Text)+len(p.File) > maxShownInput || p.Left != 2*maxShownInput-len(p.Text) {
			t.Errorf("shown %d bytes and left %d of %d", len(p.Text), p.Left, 2*maxShownInput)
		}
		if !strings.HasSuffix(p.Text, "é") {
			t.Error("the text is cut inside a character")
		}
	})
	t.Run("a removal says who answered", func(t *testing.T) {
		g := pageGoneOf(control.ApprovalGone{Request: "req-1", Run: "r1", Why: control.WhyAnswered, Allow: true, By: "phone (alice@example.com)"})
		if g.Text != "Allowed by phone (alice@example.com)" {
			t.Errorf("got %q", g.Text)
		}
		if g := pageGoneOf(control.ApprovalGone{Request: "req-1", Run: "r1", Why: control.WhyTimedOut}); !strings.Contains(g.Text, "nobody answered in time") {
			t.Errorf("got %q", g.Text)
		}
		// Answered at the terminal of a headless run: the page's question was taken away.
		req := approvals.Request{ID: "req-1", Run: approvals.RunInfo{ID: "r1"}}
		if g := pageGoneOf(control.GoneBecause(req, approvals.ErrAnsweredElsewhere)); g.Text != "Answered at the computer running segwi" {
			t.Errorf("answered at the terminal: got %q", g.Text)
		}
	})
	t.Run("a run shows no command line, process or folder", func(t *testing.T) {
		r := pageRunOf(control.Run{Name: "web", Info: runs.Info{ID: "r1", Kind: runs.KindAsk, Checkout: "/src/web", Prompt: "Why?",
			Argv: []string{"claude", "-p"}, PID: 42, State: runs.StateRunning, Dir: "/state/r1"}})
		data, _ := json.Marshal(r)
		for _, secret := range []string{"claude", "42", "/state", "/src/web"} {
			if strings.Contains(string(data), secret) {
				t.Errorf("the page's run holds %q: %s", secret, data)
			}
		}
	})
}
