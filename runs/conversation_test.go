package runs

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/segwi/segwi/approvals"
	"github.com/segwi/segwi/runs/changes"
)

// conversationT0 is when the runs of these tests start.
var conversationT0 = time.Date(2026, 3, 14, 9, 0, 0, 0, time.UTC)

// ended returns the record of an ended build run id in checkout, created n minutes after
// conversationT0, continuing from (when not empty) and continued by next.
func ended(id, checkout string, n int, from string, next ...string) Info {
	return Info{ID: id, Kind: KindBuild, Checkout: checkout, State: StateSucceeded,
		Created: conversationT0.Add(time.Duration(n) * time.Minute), ContinuedFrom: from, ContinuedBy: next}
}

// writeRuns writes infos as run records under state.
func writeRuns(t *testing.T, state string, infos ...Info) {
	t.Helper()
	for _, in := range infos {
		indexRun(t, state, in, conversationT0)
	}
}

func TestAConversationIsARunAndTheRunsThatContinueIt(t *testing.T) {
	const web, api = "/home/ada/src/web", "/home/ada/src/api"
	state := t.TempDir()
	writeRuns(t, state,
		ended("r1", web, 0, "", "r2", "r4"),
		ended("r2", web, 10, "r1", "r3"),
		ended("r3", web, 20, "r2"),
		ended("r4", web, 30, "r1"), // r1 continued a second time
		ended("r5", web, 40, ""),
		ended("x1", api, 50, "r3"), // says it continues r3, in another checkout
		ended("x2", web, 60, "r5"),
		ended("l1", web, 70, "l2", "l2"), // a loop, as a hand edit could make
		ended("l2", web, 80, "l1", "l1"),
	)
	// r5's record names x2 as its continuation, and x2 continues r5: one conversation.
	// r3's names x1, whose checkout is another: x1 stays apart.
	for _, change := range []struct {
		id   string
		next string
	}{{"r3", "x1"}, {"r5", "x2"}} {
		if _, err := Annotate(state, change.id, Event{Type: EventContinued, Text: change.next}, func(in *Info) { in.ContinuedBy = []string{change.next} }); err != nil {
			t.Fatal(err)
		}
	}
	for _, tt := range []struct {
		id   string
		want []string
	}{
		{"r1", []string{"r1", "r2", "r3", "r4"}},
		{"r3", []string{"r1", "r2", "r3", "r4"}},
		{"r4", []string{"r1", "r2", "r3", "r4"}},
		{"r5", []string{"r5", "x2"}},
		{"x1", []string{"x1"}}, // its parent is in another checkout
		{"l2", []string{"l1", "l2"}},
	} {
		c, err := LoadConversation(state, tt.id)
		if err != nil {
			t.Fatalf("LoadConversation(%s): %v", tt.id, err)
		}
		if got := c.IDs(); !slices.Equal(got, tt.want) {
			t.Errorf("the conversation of %s is %v, want %v", tt.id, got, tt.want)
		}
	}
	if _, err := LoadConversation(state, "nope"); err == nil {
		t.Error("the conversation of an unknown run was read")
	}
}

func TestAConversationsWorkIsCountedFromItsFirstRunsBase(t *testing.T) {
	first := &changes.Base{Repo: "/w", Branch: "main", Commit: "1111", Dirty: []string{"notes.txt"}, DirtyCount: 1}
	second := &changes.Base{Repo: "/w", Branch: "main", Commit: "1111", Dirty: []string{"a.go", "notes.txt"}, DirtyCount: 2}
	c := Conversation{Runs: []Info{{ID: "r1", Base: first, CostUSD: 0.25, State: StateSucceeded}, {ID: "r2", Base: second, CostUSD: 0.5, State: StateRunning}}}
	if got := c.Base(); !cmp.Equal(got, *first) {
		t.Errorf("Base = %+v, want the first run's", got)
	}
	if live, ok := c.Live(); !ok || live.ID != "r2" {
		t.Errorf("Live = %v, %v; want r2, which is running", live.ID, ok)
	}
	if c.CostUSD() != 0.75 || c.Name() != "runs r1 and r2" || c.Trailer() != "Segwi-Runs: r1, r2" {
		t.Errorf("cost %v, name %q, trailer %q", c.CostUSD(), c.Name(), c.Trailer())
	}
	// A first run recorded without a base (an older segwi): the next run's base.
	c.Runs[0].Base = nil
	if got := c.Base(); !cmp.Equal(got, *second) {
		t.Errorf("with no base on the first run, Base = %+v, want the second run's", got)
	}
}

func TestWithTrailer(t *testing.T) {
	const tr = "Segwi-Runs: a, b"
	for _, tt := range []struct{ name, msg, want string }{
		{"after a subject, in a paragraph of its own", "Fix the login", "Fix the login\n\n" + tr},
		{"after a body", "Fix the login\n\nIt works now.\n", "Fix the login\n\nIt works now.\n\n" + tr},
		{"in a block of trailers already there", "Fix\n\nCo-authored-by: Bo <bo@example.com>", "Fix\n\nCo-authored-by: Bo <bo@example.com>\n" + tr},
		{"not twice", "Fix\n\n" + tr + "\n", "Fix\n\n" + tr},
		{"a subject that looks like a trailer is no trailer block", "fix: the login", "fix: the login\n\n" + tr},
		{"an empty message is the trailer", "", tr},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if got := WithTrailer(tt.msg, tr); got != tt.want {
				t.Errorf("WithTrailer(%q) = %q, want %q", tt.msg, got, tt.want)
			}
		})
	}
}

// story writes a conversation of two runs with events under a temp state folder and reads
// its story.
func story(t *testing.T) Story {
	t.Helper()
	const web = "/home/ada/src/web"
	state := t.TempDir()
	first := ended("r1", web, 0, "", "r2")
	first.Prompt, first.CostUSD = "Add a build step\nthat cleans first", 0.125
	next := ended("r2", web, 10, "r1")
	next.Prompt, next.CostUSD = "Yes, mention it in the README.", 0.0625
	writeRuns(t, state, first, next)
	bash := func(cmd string) json.RawMessage { b, _ := json.Marshal(map[string]string{"command": cmd}); return b }
	evs := map[string][]Event{
		"r1": {
			{Type: EventPrompt, Text: "Add a build step\nthat cleans first"},
			{Type: EventText, Text: "I'll add it."},
			{Type: EventApprovalRequest, ToolName: "Bash", ToolUseID: "t1", Input: bash("rm -rf build"), Approval: &ApprovalInfo{RequestID: "q1"}},
			{Type: EventApprovalAnswer, ToolName: "Bash", ToolUseID: "t1", Approval: &ApprovalInfo{RequestID: "q1", Allow: true, By: string(approvals.ByPerson), Who: "phone (ada@example.com)"}},
			{Type: EventApprovalRequest, ToolName: "Bash", ToolUseID: "t2", Input: bash("curl https://ada:s3cr3tpassw0rd@example.com/x"), Approval: &ApprovalInfo{RequestID: "q2"}},
			{Type: EventApprovalAnswer, ToolName: "Bash", ToolUseID: "t2", Approval: &ApprovalInfo{RequestID: "q2", By: string(approvals.ByPerson), Message: "no"}},
			{Type: EventApprovalRequest, ToolName: "Bash", ToolUseID: "t3", Input: bash("go test ./..."), Approval: &ApprovalInfo{RequestID: "q3"}},
			{Type: EventApprovalAnswer, ToolName: "Bash", ToolUseID: "t3", Approval: &ApprovalInfo{RequestID: "q3", Allow: true, By: string(approvals.ByTrusted), Rule: "go test"}},
			{Type: EventPrompt, Text: "and keep the old target"},
			{Type: EventText, Text: "Done: make build cleans first."},
			{Type: EventResult, Text: "Done: make build cleans first."},
		},
		"r2": {
			{Type: EventPrompt, Text: "Yes, mention it in the README."},
			{Type: EventApprovalRequest, ToolName: "Edit", ToolUseID: "t4", Input: json.RawMessage(`{"file_path":"/home/ada/src/web/README.md","old_string":"a","new_string":"b"}`), Approval: &ApprovalInfo{RequestID: "q4"}},
			{Type: EventApprovalAnswer, ToolName: "Edit", ToolUseID: "t4", Approval: &ApprovalInfo{RequestID: "q4", Allow: true, By: string(approvals.ByPerson)}},
			{Type: EventText, Text: "The README says that make build cleans first,\nand why."},
			{Type: EventResult, Text: "The README says that make build cleans first,\nand why."},
		},
	}
	for id, list := range evs {
		for _, e := range list {
			if _, err := AppendEvent(state, id, e); err != nil {
				t.Fatal(err)
			}
		}
	}
	c, err := LoadConversation(state, "r2")
	if err != nil {
		t.Fatal(err)
	}
	return ReadStory(state, c)
}

// A conversation's story: the person's messages in order, Claude's last words, and what
// was allowed and by whom, told as a commit message and a pull request's body.
func TestAConversationsStoryTellsTheWholeConversation(t *testing.T) {
	s := story(t)
	wantSaid := []Said{
		{Run: "r1", Text: "Add a build step\nthat cleans first"},
		{Run: "r1", Text: "and keep the old target", FollowUp: true},
		{Run: "r2", Text: "Yes, mention it in the README."},
	}
	if diff := cmp.Diff(wantSaid, s.Said); diff != "" {
		t.Errorf("what the person said (-want +got):\n%s", diff)
	}
	wantApproved := []Approved{
		{Run: "r1", Tool: "Bash", Call: "rm -rf build", By: "you from phone"},
		{Run: "r1", Tool: "Bash", Call: "go test ./...", By: "your trusted rule", Rule: "go test"},
		{Run: "r2", Tool: "Edit", Call: "README.md", By: "you"},
	}
	if diff := cmp.Diff(wantApproved, s.Approved); diff != "" {
		t.Errorf("what was allowed (-want +got):\n%s", diff)
	}
	if want := "Add a build step\n\nThe README says that make build cleans first,\nand why."; s.CommitMessage() != want {
		t.Errorf("CommitMessage = %q, want %q", s.CommitMessage(), want)
	}
	if s.Title() != "Add a build step" {
		t.Errorf("Title = %q", s.Title())
	}
	body := s.PullRequestBody(true)
	for _, want := range []string{
		"The README says that make build cleans first,\nand why.\n\n## Conversation\n",
		"Made by a segwi build run of Claude Code and 1 continuation (`r1` and `r2`), cost $0.1875 in all.",
		"**Asked** (`r1`):\n\n> Add a build step\n> that cleans first\n",
		"**Followed up** (`r1`):\n\n> and keep the old target\n",
		"**Continued** (`r2`):\n\n> Yes, mention it in the README.\n",
		"## Approvals\n\n- allowed by you from phone: `rm -rf build`\n- allowed by your trusted rule `go test`: `go test ./...`\n- allowed by you: Edit `README.md`\n",
	} {
		if !strings.Contains(body, want) {
			t.Errorf("the body lacks %q:\n%s", want, body)
		}
	}
	for _, never := range []string{"ada@example.com", "curl", "I'll add it"} {
		if strings.Contains(body, never) {
			t.Errorf("the body holds %q (a login, a denied call, or Claude's words before its last):\n%s", never, body)
		}
	}
	if without := s.PullRequestBody(false); strings.Contains(without, "Approvals") || strings.Contains(without, "rm -rf") {
		t.Errorf("with approvals off, the body still lists them:\n%s", without)
	}
}

func TestAStoryHidesNothingInItsMarkdown(t *testing.T) {
	s := Story{
		Conversation: Conversation{Runs: []Info{{ID: "r1", Kind: KindBuild, Prompt: "Fix it\u202e)(evil"}}},
		Said:         []Said{{Run: "r1", Text: "Fix it\u202e)(evil"}},
		Summary:      "Done. token ghp_0123456789abcdefghijklmnopqrstuvwxyzAB",
		Approved: []Approved{
			{Run: "r1", Tool: "Bash", Call: "echo `date` && rm -rf ``x``", By: "you"},
			{Run: "r1", Tool: "Bash", Call: "printf 'a'\nrm -rf /tmp/x", By: "you"},
		},
	}
	body := s.PullRequestBody(true)
	for _, want := range []string{
		"Fix it\\u202e)(evil",                 // the bidirectional override shown, not obeyed
		"Done. token [REDACTED]",              // a token in Claude's words is masked
		"``` echo `date` && rm -rf ``x`` ```", // a fence longer than the backticks inside
		"`printf 'a'⏎rm -rf /tmp/x`",          // a line break shown, not hiding the next command
	} {
		if !strings.Contains(body, want) {
			t.Errorf("the body lacks %q:\n%s", want, body)
		}
	}
	if strings.Contains(body, "\u202e") {
		t.Error("the body holds a bidirectional override")
	}
}

// A list of runs groups them by conversation: a continued run under its first run, the
// continuations in order, the conversations newest first by their latest run; a run
// continued from another checkout's run, or from a run not listed, stands alone, and a
// loop of records ends.
func TestGroupConversationsPutsContinuedRunsUnderTheirFirstRun(t *testing.T) {
	sum := func(id, checkout string, n int, from string) Summary {
		return SummaryOf(ended(id, checkout, n, from))
	}
	sums := []Summary{
		sum("a", "/web", 0, ""),
		sum("b", "/api", 1, ""),
		sum("a2", "/web", 2, "a"),
		sum("c", "/web", 3, ""),
		sum("a3", "/web", 4, "a2"),
		sum("a2b", "/web", 5, "a"), // a continued a second time
		sum("x", "/api", 6, "a"),   // names a run of another checkout
		sum("y", "/web", 7, "gone"),
		sum("l1", "/web", -2, "l2"), // a loop of edited records
		sum("l2", "/web", -1, "l1"),
	}
	var got [][]string
	for _, g := range GroupConversations(sums) {
		var ids []string
		for _, s := range g {
			ids = append(ids, s.ID)
		}
		got = append(got, ids)
	}
	want := [][]string{{"y"}, {"x"}, {"a", "a2", "a3", "a2b"}, {"c"}, {"b"}, {"l1", "l2"}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("groups (-want +got):\n%s", diff)
	}
	if got := GroupConversations(nil); len(got) != 0 {
		t.Errorf("no runs make %d groups", len(got))
	}
}
