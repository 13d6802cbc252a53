package remote

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/segwi/segwi/approvals"
	"github.com/segwi/segwi/control"
	"github.com/segwi/segwi/internal/testing/coretest"
	"github.com/segwi/segwi/runs"
)

func TestThePageShowsWhatIsApprovedAsItReads(t *testing.T) {
	approval := func(tool string, input any) control.Approval {
		raw, err := json.Marshal(input)
		if err != nil {
			t.Fatal(err)
		}
		return control.Approval{Request: "req-1", Run: control.RunRef{ID: "r1", Kind: runs.KindBuild, Name: "web", Prompt: "Fix it", Checkout: "/home/ada/web"},
			Tool: tool, Input: raw, Asked: time.Unix(100, 0), Deadline: time.Unix(700, 0)}
	}
	t.Run("a Bash call shows its command and description", func(t *testing.T) {
		p := pageApprovalOf(approval("Bash", map[string]string{"command": "go test ./...", "description": " Run the tests "}))
		want := pageApproval{Request: "req-1", Run: "r1", Kind: "build", Name: "web", Prompt: "Fix it", Tool: "Bash",
			Shape: approvals.ShapeCommand, Caption: "Command", Text: "go test ./...", JSON: "{\n  \"command\": \"go test ./...\",\n  \"description\": \" Run the tests \"\n}",
			Description: "Run the tests", SHA256: p.SHA256, Asked: time.Unix(100, 0), Deadline: time.Unix(700, 0),
			ReasonHint: "Claude sees it"}
		if diff := cmp.Diff(want, p); diff != "" {
			t.Errorf("(-want +got):\n%s", diff)
		}
	})
	t.Run("an ACP run's request says its agent may not see a deny's reason", func(t *testing.T) {
		a := approval("Bash", map[string]string{"command": "go test ./..."})
		a.Run.Agent = "codex"
		if got, want := pageApprovalOf(a).ReasonHint, "kept on the run's record; codex may not see it"; got != want {
			t.Errorf("the reason's hint is %q, want %q", got, want)
		}
	})
	// A command that reads "rm -rf ~/;#" backwards after U+202E would show as a harmless
	// one: the override must show as an escape, as in the desktop popup.
	t.Run("a bidirectional override and control characters show as escapes", func(t *testing.T) {
		p := pageApprovalOf(approval("Bash", map[string]string{"command": "echo safe \u202e#;/~ fr- mr\x1b[2K\u200b"}))
		if want := `echo safe \u202e#;/~ fr- mr\x1b[2K\u200b`; p.Text != want {
			t.Errorf("shown %q, want %q", p.Text, want)
		}
		p = pageApprovalOf(approval("Write", map[string]string{"file_path": "/src/a\u2066.go", "content": "x"}))
		if want := `/src/a\u2066.go (outside the checkout)`; p.File != want {
			t.Errorf("file %q, want %q", p.File, want)
		}
	})
	// The page decoded input loosely where the popup was strict, diffed an edit as all old
	// lines then all new, and dropped the request's note: it now shows the one view.
	t.Run("an edit shows its file relative to the checkout and its lines as a diff", func(t *testing.T) {
		a := approval("Edit", map[string]any{"file_path": "/src/web/a.go", "old_string": "a\nb\nc", "new_string": "a\nX\nc", "replace_all": true})
		a.Run.Checkout = "/src/web"
		p := pageApprovalOf(a)
		want := []approvals.ChangeLine{{Op: " ", Text: "a"}, {Op: "-", Text: "b"}, {Op: "+", Text: "X"}, {Op: " ", Text: "c"}}
		if diff := cmp.Diff(want, p.Diff); diff != "" || p.File != "a.go" || p.Caption != "Edit a.go, every occurrence" || p.Shape != approvals.ShapeChange {
			t.Errorf("diff (-want +got):\n%s\nfile %q, caption %q, shape %q", diff, p.File, p.Caption, p.Shape)
		}
	})
	t.Run("an input that is not exactly the tool's shows as JSON, whole, saying why", func(t *testing.T) {
		a := approval("Edit", nil)
		a.Input = json.RawMessage(`{"file_path":"/src/web/a.go","old_string":"x","new_string":"y","file_path":"/etc/passwd"}`)
		p := pageApprovalOf(a)
		if p.Shape != approvals.ShapeJSON || !strings.Contains(p.Text, "/etc/passwd") || !strings.Contains(p.Unread, `the key "file_path" appears twice`) {
			t.Errorf("shape %q, text %q, unread %q", p.Shape, p.Text, p.Unread)
		}
	})
	t.Run("a NotebookEdit shows its cell's change, and the request's note shows", func(t *testing.T) {
		a := approval("NotebookEdit", map[string]string{"notebook_path": "/src/web/lab.ipynb", "cell_id": "c1", "new_source": "print(1)"})
		a.Run.Checkout, a.Note = "/src/web", "Not checked against your trusted commands: too long."
		p := pageApprovalOf(a)
		if p.Caption != "NotebookEdit lab.ipynb: replace cell c1" || len(p.Diff) != 1 || p.Note != a.Note {
			t.Errorf("caption %q, diff %v, note %q", p.Caption, p.Diff, p.Note)
		}
	})
	t.Run("another tool shows its input as indented JSON", func(t *testing.T) {
		p := pageApprovalOf(approval("WebFetch", map[string]string{"url": "https://example.com"}))
		if p.Caption != "Input" || p.Text != "{\n  \"url\": \"https://example.com\"\n}" {
			t.Errorf("caption %q, text %q", p.Caption, p.Text)
		}
	})
	t.Run("what looks like a secret shows whole, and the page says so", func(t *testing.T) {
		command := `git ls-remote https://deploy:$(touch${IFS}PWNED;echo${IFS}x)@github.com/acme/app.git`
		p := pageApprovalOf(approval("Bash", map[string]string{"command": command}))
		if p.Text != command || p.Secret == "" {
			t.Errorf("shown %q, secret %q; want the command whole and a word that it looks like a secret", p.Text, p.Secret)
		}
	})
	t.Run("a large input is cut, and the page says how much is not shown", func(t *testing.T) {
		p := pageApprovalOf(approval("Bash", map[string]string{"command": strings.Repeat("é", approvals.MaxShown)}))
		if len(p.Text) != approvals.MaxShown || !strings.Contains(p.Cut, "65536 more bytes") {
			t.Errorf("shown %d bytes, cut %q", len(p.Text), p.Cut)
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
		if g := pageGoneOf(control.GoneBecause(req, approvals.ErrAnsweredElsewhere, time.Now())); g.Text != "Answered at the computer running segwi" {
			t.Errorf("answered at the terminal: got %q", g.Text)
		}
		// Claude Code hung up: its own timeout ran out, and the page says so, with the wait.
		req.Asked = time.Date(2026, 5, 1, 9, 0, 0, 0, time.UTC)
		g = pageGoneOf(control.GoneBecause(req, approvals.ErrWithdrawn, req.Asked.Add(61*time.Second+400*time.Millisecond)))
		if want := "Claude Code stopped waiting for it after 1m1s (its own timeout); nobody declined it"; g.Text != want {
			t.Errorf("withdrawn by Claude Code: got %q, want %q", g.Text, want)
		}
		// An ACP run's agent hung up: the page names it, not Claude Code, the name having
		// come over the channel.
		req.Run.Agent = "codex"
		b, err := json.Marshal(control.GoneBecause(req, approvals.ErrWithdrawn, req.Asked.Add(5*time.Second)))
		if err != nil {
			t.Fatal(err)
		}
		var over control.ApprovalGone
		if err := json.Unmarshal(b, &over); err != nil {
			t.Fatal(err)
		}
		if want := "codex stopped waiting for it after 5s (its own timeout); nobody declined it"; pageGoneOf(over).Text != want {
			t.Errorf("withdrawn by an ACP agent: got %q, want %q", pageGoneOf(over).Text, want)
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
	t.Run("a run at its budget says how far it went", func(t *testing.T) {
		r := pageRunOf(control.Run{Name: "web", Info: runs.Info{ID: "r1", Kind: runs.KindBuild, State: runs.StateWaiting,
			Waiting: runs.WaitBudget, Reason: "budget reached: $2.04 of $2.00"}})
		if r.State != "waiting" || r.Reason != "budget reached: $2.04 of $2.00" {
			t.Errorf("the page shows the run %s: %q", r.State, r.Reason)
		}
	})
}

var update = flag.Bool("update", false, "rewrite the golden files under testdata/ from what the tests render")

// The page's requests as the real Claude Code 2.1.328 sends them (coretest.FileToolRequests:
// an Edit of hello.txt and a Write of a new file, each asked because of a permissions.ask
// rule), as the page gets them over the control channel: the file relative to the checkout
// and the change as a diff, as the popup shows them (app's
// TestThePopupsOfARealClaudeCodeRunShowItsFileChanges). Kept in testdata/page_*.json;
// `go test ./remote -run TestThePageShowsARealClaudeCodeRunsFileChanges -update` rewrites them.
func TestThePageShowsARealClaudeCodeRunsFileChanges(t *testing.T) {
	run := coretest.FileToolRequests(t)
	for _, tt := range []struct {
		req    approvals.Request
		golden string
		file   string
	}{
		{run.Edit, "page_edit_claude.json", "hello.txt"},
		{run.Write, "page_write_claude.json", "notes/plan.md"},
	} {
		t.Run(tt.req.ToolName, func(t *testing.T) {
			p := pageApprovalOf(pageFixture(tt.req, run))
			if p.File != tt.file || p.Shape != approvals.ShapeChange || len(p.Diff) == 0 {
				t.Errorf("file %q, shape %q, %d lines of change; want %s shown as a change", p.File, p.Shape, len(p.Diff), tt.file)
			}
			if diff := cmp.Diff(tt.req.View().Change, p.Diff); diff != "" {
				t.Errorf("the page's change is not the one view's (-view +page):\n%s", diff)
			}
			var b bytes.Buffer
			enc := json.NewEncoder(&b)
			enc.SetEscapeHTML(false)
			enc.SetIndent("", "  ")
			if err := enc.Encode(p); err != nil {
				t.Fatal(err)
			}
			path := filepath.Join("testdata", tt.golden)
			if *update {
				if err := os.MkdirAll("testdata", 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(path, b.Bytes(), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			want, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(string(want), b.String()); diff != "" {
				t.Errorf("%s (-want +got):\n%s", path, diff)
			}
		})
	}
}

// pageFixture is req of run as the page gets it, with the checkout's folder put where the
// golden files expect it (in the input too, so that the path is still read relative to it),
// fixed ids and fixed times.
func pageFixture(req approvals.Request, run coretest.FileTools) control.Approval {
	const shown = "/home/ada/src/sample"
	req.Input = json.RawMessage(strings.ReplaceAll(string(req.Input), run.Checkout, shown))
	req.Run.Checkout, req.Run.ID, req.ID = shown, "run-1", "req-"+req.ToolName
	req.Asked, req.Deadline = time.Unix(100, 0).UTC(), time.Unix(700, 0).UTC()
	return control.ApprovalOf(req, "sample", run.Task)
}
