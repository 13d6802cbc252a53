package record

import (
	"encoding/json"
	"go/ast"
	goparser "go/parser"
	"go/token"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/segwi/segwi/approvals"
	"github.com/segwi/segwi/internal/lib/visible"
)

func TestNarratorWordsEveryEvent(t *testing.T) {
	at := time.Date(2025, 1, 2, 15, 4, 5, 0, time.Local)
	bash := func(id, command string) Event {
		return Event{Type: EventToolCall, ToolName: "Bash", ToolUseID: id, Input: json.RawMessage(`{"command":` + strconv.Quote(command) + `,"description":"d"}`)}
	}
	asked := Event{Type: EventApprovalRequest, ToolName: "Bash", ToolUseID: "t1", Input: json.RawMessage(`{"command":"make test"}`),
		Approval: &ApprovalInfo{RequestID: "q1", Deadline: at.Add(time.Minute)}}
	answer := func(a ApprovalInfo) Event {
		a.RequestID = "q1"
		return Event{Type: EventApprovalAnswer, ToolName: "Bash", ToolUseID: "t1", Approval: &a}
	}
	pushed := func(a Attempt) Event { return Event{Type: EventPush, Text: a.Message, Push: &a} }
	tests := []struct {
		name   string
		before []Event // what the narrator saw first
		e      Event
		want   string
	}{
		{"a session start says model, mode, tools and MCP servers",
			nil, Event{Type: EventInit, Init: &InitInfo{Model: "m", PermissionMode: "auto", Tools: []string{"a", "b"}, MCPServers: []MCPServer{{"segwi", "connected"}}}},
			"session   started: model m, auto mode, 2 tools, MCP segwi connected"},
		{"a session start without details says started", nil, Event{Type: EventInit}, "session   started"},
		{"assistant text shows on one line", nil, Event{Type: EventText, Text: "one\ntwo"}, "claude    one⏎two"},
		{"a prompt is what you sent", nil, Event{Type: EventPrompt, Text: "Fix it"}, "you       Fix it"},
		{"a Bash call shows its command", nil, bash("t1", "ls -la && git status > s.txt"), "tool      Bash: ls -la && git status > s.txt"},
		{"a Read shows its file", nil, Event{Type: EventToolCall, ToolName: "Read", Input: json.RawMessage(`{"file_path":"/src/a.go","limit":10}`)}, "tool      Read: /src/a.go"},
		{"a search shows its pattern before its folder", nil, Event{Type: EventToolCall, ToolName: "Grep", Input: json.RawMessage(`{"path":"/src","pattern":"TODO"}`)}, "tool      Grep: TODO"},
		{"a subagent shows its description", nil, Event{Type: EventToolCall, ToolName: "Task", Input: json.RawMessage(`{"prompt":"a long brief","description":"Explore the parser"}`)}, "tool      Task: Explore the parser"},
		{"an input with no telling field shows as JSON", nil, Event{Type: EventToolCall, ToolName: "Mystery", Input: json.RawMessage(`{ "a": 1 }`)}, `tool      Mystery: {"a":1}`},
		{"a call without input shows its tool", nil, Event{Type: EventToolCall, ToolName: "Mystery", Input: json.RawMessage(`{}`)}, "tool      Mystery"},
		{"a result names its tool", nil, Event{Type: EventToolResult, ToolName: "Bash", ToolUseID: "t1", Text: "a.txt\nb.txt"}, "output    Bash: a.txt⏎b.txt"},
		{"an empty result says so", nil, Event{Type: EventToolResult, ToolName: "Bash", ToolUseID: "t1"}, "output    Bash: (no output)"},
		{"a failed result is an error", nil, Event{Type: EventToolResult, ToolUseID: "t9", IsError: true, Text: "<tool_use_error>no such tool</tool_use_error>"}, "error     <tool_use_error>no such tool</tool_use_error>"},
		{"a refusal by a hook names the command", []Event{bash("t2", "git push")}, Event{Type: EventRefusal, ToolName: "Bash", ToolUseID: "t2", Source: "hook", Text: "denied"}, "refused   Bash: git push (a hook): denied"},
		{"a refusal by auto mode says so", nil, Event{Type: EventRefusal, ToolName: "Bash", Source: "classifier", Text: "flagged"}, "refused   Bash (auto mode): flagged"},
		{"a refusal by Claude Code's settings or auto mode says so", nil, Event{Type: EventRefusal, ToolName: "Write", Source: "config", Text: "denied"}, "refused   Write (Claude Code's permissions): denied"},
		{"a refusal from an unknown source names it", nil, Event{Type: EventRefusal, Source: "policy", Text: "no"}, "refused   a call (policy): no"},
		{"an approval request shows the call", nil, asked, "approve?  Bash: make test"},
		{"an approval request whose deadline is its run's end says so", nil, Event{Type: EventApprovalRequest, ToolName: "Bash", Input: json.RawMessage(`{"command":"make test"}`),
			Approval: &ApprovalInfo{Deadline: time.Date(2026, 12, 4, 15, 4, 5, 0, time.Local), RunEnds: true}},
			"approve?  Bash: make test (answer by 15:04:05: the run ends then, at runs.maxDuration, and segwi denies it)"},
		{"an approval request shows what segwi noticed", nil, Event{Type: EventApprovalRequest, ToolName: "Bash", Input: json.RawMessage(`{"command":"ls|ls"}`), Approval: &ApprovalInfo{Note: "Not checked: too long."}}, "approve?  Bash: ls|ls (Not checked: too long.)"},
		{"an allow by you names the call and the wait", []Event{asked}, answer(ApprovalInfo{Allow: true, By: string(approvals.ByPerson), WaitedMS: 1540}), "allowed   Bash: make test (by you, after 1.5s)"},
		{"an answer from another device names it", []Event{asked}, answer(ApprovalInfo{Allow: true, By: string(approvals.ByPerson), Who: "phone (alice@example.com)", WaitedMS: 1540}),
			"allowed   Bash: make test (by you from phone (alice@example.com), after 1.5s)"},
		{"a deny by you gives your reason", []Event{asked}, answer(ApprovalInfo{By: string(approvals.ByPerson), WaitedMS: 3000, Message: "Denied by the person at segwi: not now"}),
			"denied    Bash: make test (by you, after 3s): Denied by the person at segwi: not now"},
		{"a deny and stop says the run was stopped", []Event{asked}, answer(ApprovalInfo{By: string(approvals.ByPerson), Interrupt: true, WaitedMS: 800, Message: "no"}),
			"denied    Bash: make test (by you, after 800ms, and the run was stopped): no"},
		{"a trusted rule names itself", []Event{asked}, answer(ApprovalInfo{Allow: true, By: string(approvals.ByTrusted), Rule: "make test"}), "allowed   Bash: make test (trusted: make test)"},
		{"a trusted rule's allow says no wait: it took none a person would notice", []Event{asked}, answer(ApprovalInfo{Allow: true, By: string(approvals.ByTrusted), Rule: "make test", WaitedMS: 2}),
			"allowed   Bash: make test (trusted: make test)"},
		{"a timeout says nobody answered", []Event{asked}, answer(ApprovalInfo{By: string(approvals.ByTimeout), WaitedMS: 600_000, Message: "No answer"}), "denied    Bash: make test (nobody answered in time, after 10m0s): No answer"},
		{"a request outlived by its run says so", nil, answer(ApprovalInfo{By: string(approvals.ByRunEnded)}), "denied    Bash (the run ended first)"},
		{"a headless run says nobody was at a terminal", nil, answer(ApprovalInfo{By: string(approvals.ByNoTerminal), Message: "denied"}), "denied    Bash (no person at a terminal): denied"},
		{"too many requests say so", nil, answer(ApprovalInfo{By: string(approvals.ByLimit)}), "denied    Bash (too many requests waiting)"},
		{"a failed asker says nobody could be asked", nil, answer(ApprovalInfo{By: string(approvals.ByFailure)}), "denied    Bash (nobody could be asked)"},
		{"a request Claude Code stopped waiting for blames its own timeout, not the person", []Event{asked},
			answer(ApprovalInfo{By: string(approvals.ByCancelled), WaitedMS: 60_000, Message: "Claude Code stopped waiting"}),
			"withdrawn Bash: make test (by Claude Code's own timeout, after 1m0s): Claude Code stopped waiting"},
		{"a request for a call Claude Code is not making says so", nil, answer(ApprovalInfo{By: string(approvals.ByUnknownCall), Message: "denied"}), "denied    Bash (not a call Claude Code is making): denied"},
		{"a request that reads two ways says so", nil, answer(ApprovalInfo{By: string(approvals.ByInvalid), Message: "denied"}), "denied    Bash (a request that reads two ways): denied"},
		{"an unknown answerer is named", nil, answer(ApprovalInfo{By: "someone"}), "denied    Bash (by someone)"},
		{"a result shows cost, turns and refusals", nil, Event{Type: EventResult, Subtype: "success", Result: &ResultInfo{NumTurns: 2, CostUSD: 0.0123, TerminalReason: "completed", Denials: []Denial{{ToolName: "Write"}}}},
			"result    done after 2 turns, $0.0123, 1 call refused"},
		{"an aborted turn says why", nil, Event{Type: EventResult, Subtype: "error_during_execution", Result: &ResultInfo{NumTurns: 1, TerminalReason: "aborted_tools"}},
			"result    ended with an error after 1 turn, $0.0000, stopped at a tool call"},
		{"a status shows what Claude Code is doing", nil, Event{Type: EventStatus, Subtype: "status", Text: "compacting"}, "status    compacting"},
		{"an informational status says so", nil, Event{Type: EventStatus, Subtype: "informational", Text: "auto mode cannot check actions"}, "status    auto mode cannot check actions"},
		{"an escape is made visible", nil, Event{Type: EventOutput, Text: "\x1b[?25h"}, "stderr    ␛[?25h"},
		{"other control characters and bidirectional overrides are made visible", nil, Event{Type: EventText, Text: "a\x07b \u202Eevil"}, `claude    a\x07b \u202eevil`},
		{"a state change shows its reason", nil, Event{Type: EventState, State: &StateChange{From: StateRunning, To: StateStopping, Reason: "stopped by a person"}}, "state     stopping: stopped by a person"},
		{"an exit shows its code", nil, Event{Type: EventExit, Exit: &ExitInfo{Code: 1}}, "exit      code 1"},
		{"an exit by signal names it", nil, Event{Type: EventExit, Exit: &ExitInfo{Code: 137, Signal: "killed"}}, "exit      code 137, SIGKILL (killed)"},
		{"an unknown line is named by its type, not shown as JSON", nil, Event{Type: EventRaw, Raw: json.RawMessage(`{"type":"rate_limit_event","payload":42}`)}, "event     rate limit event"},
		{"an unknown line says the text it carries", nil, Event{Type: EventRaw, Raw: json.RawMessage(`{"type":"mystery","subtype":"big_news","message":"hello"}`)}, "event     mystery (big news): hello"},
		{"Claude Code's note after a deny and stop reads as a note", nil, Event{Type: EventRaw, Raw: json.RawMessage(`{"type":"text","text":"[Request interrupted by user for tool use]"}`)},
			"note      [Request interrupted by user for tool use]"},
		{"a line too long to keep as JSON says so", nil, Event{Type: EventRaw, Text: `{"type":"x","a":"` + strings.Repeat("y", 100)}, "event     (an event this segwi does not know, 117 bytes)"},
		{"a task started says what it does, without jargon", nil, Event{Type: EventStatus, Subtype: "task_started",
			Raw: json.RawMessage(`{"type":"system","subtype":"task_started","task_id":"b1","description":"Run the test suite"}`)}, "status    task started: Run the test suite"},
		{"a task notification says how it went", nil, Event{Type: EventStatus, Subtype: "task_notification",
			Raw: json.RawMessage(`{"type":"system","subtype":"task_notification","task_id":"b1","status":"completed","summary":"Tests pass"}`)}, "status    task update: Tests pass"},
		{"a system event segwi has no words for reads as words", nil, Event{Type: EventStatus, Subtype: "session_state_changed"}, "status    session state changed"},
		{"an ask run's question shows without segwi's instruction", nil, Event{Type: EventPrompt, Text: AskPrefix + "Where is the login form?"}, "you       Question: Where is the login form?"},
		{"a ready run's instruction shows in a few words, with the notes", nil, Event{Type: EventPrompt, Text: ReadyPrompt + "\n\nNotes from the person:\nskip the docs"},
			"you       Get the current branch ready for review (segwi's instructions)⏎Notes: skip the docs"},
		{"a process the run left says what became of it", nil, Event{Type: EventLeftover, Text: "killed process 7, which the run left running: sleep 311",
			Process: &ProcessInfo{PID: 7, Command: "sleep 311", Killed: true}}, "leftover  killed process 7, which the run left running: sleep 311"},
		{"missed events point at the record", nil, Event{Type: EventDropped, RunID: "r1", Dropped: 12},
			"missed    12 events not shown: they came faster than they could be shown; segwi runs events r1 shows what the record kept of them"},
		{"the record's cap says what it kept after it", nil, Event{Type: EventCapped, Text: "events.jsonl reached its cap here"},
			"capped    events.jsonl reached its cap here"},
		{"a push says where it went", nil, pushed(Attempt{Outcome: Pushed, Branch: "segwi/fix", Remote: "origin", Message: "pushed segwi/fix (0123456789ab) to origin (https://github.com/o/r.git)"}),
			"push      pushed segwi/fix (0123456789ab) to origin (https://github.com/o/r.git)"},
		{"a refused push says why", nil, pushed(Attempt{Outcome: Refused, Reason: ReasonNoToken, Message: "no GitHub token is set; set one with `segwi token set`"}),
			"push      not pushed: no GitHub token is set; set one with `segwi token set`"},
		{"a failed push says what git said", nil, pushed(Attempt{Outcome: Failed, Message: "git push of segwi/fix to origin failed: ! [rejected]"}),
			"push      not pushed: git push of segwi/fix to origin failed: ! [rejected]"},
		{"a push event without its attempt shows its text", nil, Event{Type: EventPush, Text: "pushed"}, "push      pushed"},
		{"a base on a branch names it, its commit and what was already changed", nil,
			Event{Type: EventBase, Base: &Base{Repo: "/src/web", Branch: "main", Commit: "0123456789abcdef", Dirty: []string{"a", "b", "c", "d", "e", "f"}, DirtyCount: 7}},
			"base      main at 0123456789ab, 7 files already changed: a, b, c, d, e and 2 more"},
		{"a clean base says so", nil, Event{Type: EventBase, Base: &Base{Repo: "/src/web", Branch: "main", Commit: "0123456789abcdef"}}, "base      main at 0123456789ab, clean"},
		{"a detached base says so", nil, Event{Type: EventBase, Base: &Base{Repo: "/r", Detached: true, Commit: "0123456789abcdef"}}, "base      detached HEAD at 0123456789ab, clean"},
		{"a base with no commit yet says so", nil, Event{Type: EventBase, Base: &Base{Repo: "/r", Branch: "main", Unborn: true, Dirty: []string{"a"}, DirtyCount: 1}}, "base      main, no commit yet, 1 file already changed: a"},
		{"a commit of the run's changes names what it left out", nil, Event{Type: EventCommit, Commit: &Committed{Commit: "0123456789abcdef", Branch: "segwi/fix", Subject: "Fix the login",
			Files: []string{"a.go", "b.go"}, LeftOut: []string{"notes.txt"}}}, "commit    0123456789ab on segwi/fix: Fix the login (2 files; left out, changed before the run: notes.txt)"},
		{"a pull request gives its URL", nil, Event{Type: EventPullRequest, PullRequest: &PullRequest{Number: 7, URL: "https://github.com/me/web/pull/7", Head: "segwi/fix", Base: "main"}},
			"pull request #7 https://github.com/me/web/pull/7 (segwi/fix into main)"},
		{"a turn's usage says its cost and tokens, and its model", nil, Event{Type: EventUsage, Usage: &UsageInfo{
			Usage:  Usage{InputTokens: 1200, OutputTokens: 30, CacheReadTokens: 11000, CacheWriteTokens: 300, CostUSD: 0.0123},
			Models: []ModelUsage{{Model: "claude-sonnet-5-5", Usage: Usage{InputTokens: 1200, OutputTokens: 30, CacheReadTokens: 11000, CacheWriteTokens: 300, CostUSD: 0.0123}}}}},
			"usage     $0.0123, 12,530 tokens (1,200 in, 30 out, 11,000 cache read, 300 cache write) by claude-sonnet-5-5"},
		{"a turn's usage by two models says each one's cost", nil, Event{Type: EventUsage, Usage: &UsageInfo{
			Usage:  Usage{InputTokens: 10, OutputTokens: 2, CostUSD: 0.5},
			Models: []ModelUsage{{Model: "haiku", Usage: Usage{InputTokens: 4, CostUSD: 0.1}}, {Model: "opus", Usage: Usage{InputTokens: 6, OutputTokens: 2, CostUSD: 0.4}}}}},
			"usage     $0.5000, 12 tokens (10 in, 2 out, 0 cache read, 0 cache write) by haiku $0.1000, opus $0.4000"},
		{"a budget reached says how far", nil, Event{Type: EventBudget, Subtype: "reached", Text: "budget reached: $2.04 of $2.00"}, "budget    budget reached: $2.04 of $2.00"},
		{"a raise says by whom", nil, Event{Type: EventBudget, Subtype: "raised", Text: "budget raised by $1.00 to $3.00 by you"}, "budget    budget raised by $1.00 to $3.00 by you"},
		{"a continuation names the later run", nil, Event{Type: EventContinued, Text: "20260102-150405-abcdef"}, "continued by run 20260102-150405-abcdef"},
		{"a worktree says where, on which branch, from what", nil, Event{Type: EventWorktree, Text: "made /w/web/1 on segwi/x-1, from 0123456789ab of /src/web"},
			"worktree  made /w/web/1 on segwi/x-1, from 0123456789ab of /src/web"},
		{"a setup step says what it did", nil, Event{Type: EventSetup, Subtype: "output", Text: "added 3 packages"}, "setup     added 3 packages"},
		{"ports name the range and the variables", nil, Event{Type: EventPorts, Text: "20000-20009"}, "ports     20000-20009 (SEGWI_PORT, SEGWI_PORT_COUNT)"},
		{"an unknown base says why", nil, Event{Type: EventBase, Base: &Base{Error: "/tmp/x is not a git checkout"}}, "base      not known: /tmp/x is not a git checkout"},
	}
	covered := map[EventType]bool{}
	answered := map[string]bool{}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var n Narrator
			for _, e := range tt.before {
				n.Words(e)
			}
			tt.e.Time = at
			if got, want := n.Line(tt.e), "15:04:05 "+tt.want; got != want {
				t.Errorf("got  %q\nwant %q", got, want)
			}
		})
		covered[tt.e.Type] = true
		if tt.e.Approval != nil && tt.e.Type == EventApprovalAnswer {
			answered[tt.e.Approval.By] = true
		}
	}
	// The event types are declared here, and by the engine (package runs) for its own.
	for _, typ := range append(constsOf(t, ".", "EventType"), constsIn(t, "..", "EventType")...) {
		if !covered[EventType(typ)] {
			t.Errorf("no case words a %q event", typ)
		}
	}
	for _, by := range constsOf(t, "../../approvals", "Answerer") {
		if !answered[by] {
			t.Errorf("no case words an answer by %q", by)
		}
	}
}

// A person's deny is said once: the answer names the call and the reason, and Claude
// Code's refusal of the call that follows says nothing new. A refusal by another (a
// hook) still shows.
func TestNarratorSaysADenyOnce(t *testing.T) {
	var n Narrator
	n.Words(Event{Type: EventToolCall, ToolName: "Bash", ToolUseID: "t1", Input: json.RawMessage(`{"command":"rm -rf build"}`)})
	deny := n.Words(Event{Type: EventApprovalAnswer, ToolName: "Bash", ToolUseID: "t1", Approval: &ApprovalInfo{By: "person", Interrupt: true, Message: "no"}})
	if deny.Label != "denied" {
		t.Fatalf("the answer: %+v, want denied", deny)
	}
	refusal := Event{Type: EventRefusal, ToolName: "Bash", ToolUseID: "t1", Source: "user_reject", Text: "Denied by the person at segwi: no", Time: time.Now()}
	if w := n.Words(refusal); w.Label != "" {
		t.Errorf("the refusal after the deny: %+v, want nothing new", w)
	}
	if got := n.Line(refusal); got != "" {
		t.Errorf("Line of it = %q, want \"\"", got)
	}
	hook := Event{Type: EventRefusal, ToolName: "Bash", ToolUseID: "t2", Source: "hook", Text: "blocked"}
	if w := n.Words(hook); w.Label != "refused" {
		t.Errorf("a hook's refusal: %+v, want it shown", w)
	}
}

func TestLineShortensLongTexts(t *testing.T) {
	long := FormatEvent(Event{Type: EventText, Text: strings.Repeat("x", 1000), Time: time.Now()})
	if !strings.HasSuffix(long, "…") || len([]rune(long)) > 430 {
		t.Errorf("a long text: got %d runes ending %q, want it shortened with …", len([]rune(long)), long[len(long)-5:])
	}
}

// oneLineOfAll is oneLine as it was: every rune of s escaped, then cut. oneLine reads only
// the start of s, and must show what this shows.
func oneLineOfAll(s string, max int) string {
	s = strings.TrimRight(s, "\r\n")
	s = strings.NewReplacer("\r\n", "⏎", "\n", "⏎", "\r", "", "\x1b", "␛").Replace(s)
	s = visible.Escape(s)
	if utf8.RuneCountInString(s) <= max {
		return s
	}
	return string([]rune(s)[:max]) + "…"
}

func TestOneLineReadsOnlyTheStartItShows(t *testing.T) {
	texts := []string{
		"", "short", "one\ntwo\r\nthree\rfour\r\n", strings.Repeat("x", 399), strings.Repeat("x", 400), strings.Repeat("x", 401),
		strings.Repeat("\r", 500) + "after the returns", strings.Repeat("\r\n", 450), strings.Repeat("é", 450),
		strings.Repeat("\x1b[1m", 100), strings.Repeat("\x07", 300), strings.Repeat("\u202e", 150) + "tail",
		strings.Repeat("ab\xff", 200), strings.Repeat("x", 399) + "\r\n" + "y", strings.Repeat("x", 400) + "\r", "a\r" + strings.Repeat("b", 400),
	}
	for _, text := range texts {
		for _, max := range []int{0, 1, 3, 400} {
			if got, want := OneLine(text, max), oneLineOfAll(text, max); got != want {
				t.Errorf("OneLine(%.40q, %d) = %.60q, want %.60q", text, max, got, want)
			}
		}
	}
}

func FuzzOneLine(f *testing.F) {
	for _, s := range []string{"a\r\nb", "\r\r\r\n", "\x1b[0m\u202e", "\xff\xfe", "é\u2028"} {
		f.Add(s, 3)
	}
	f.Fuzz(func(t *testing.T, s string, max int) {
		max = max & 63
		if got, want := OneLine(s, max), oneLineOfAll(s, max); got != want {
			t.Errorf("OneLine(%q, %d) = %q, want %q", s, max, got, want)
		}
	})
}

// BenchmarkLineOfALongText measures a readable line of a 4 KB text, as segwi run and segwi
// runs events print one for each of Claude Code's messages.
func BenchmarkLineOfALongText(b *testing.B) {
	e := Event{Type: EventText, Time: time.Now(), Text: strings.Repeat("lorem ipsum dolor sit amet, consectetur adipiscing elit.\n", 70)}
	var n Narrator
	b.SetBytes(int64(len(e.Text)))
	for b.Loop() {
		n.Line(e)
	}
}

func TestNarratorForgetsOldCallsPastItsBound(t *testing.T) {
	var n Narrator
	for i := range maxRemembered + 10 {
		n.Words(Event{Type: EventToolCall, ToolName: "Bash", ToolUseID: strconv.Itoa(i), Input: json.RawMessage(`{"command":"` + strconv.Itoa(i) + `"}`)})
	}
	if len(n.calls) > maxRemembered {
		t.Errorf("remembers %d calls, want at most %d", len(n.calls), maxRemembered)
	}
	if got := n.Words(Event{Type: EventRefusal, ToolName: "Bash", ToolUseID: strconv.Itoa(maxRemembered + 9)}); got.Text != "Bash: "+strconv.Itoa(maxRemembered+9) {
		t.Errorf("the newest call's refusal: %q, want it named with its command", got.Text)
	}
}

// constsOf returns the values of the string constants of type typ declared in the Go
// package in dir, so that a table can be checked to cover them all.
func constsOf(t *testing.T, dir, typ string) []string {
	t.Helper()
	out := constsIn(t, dir, typ)
	if len(out) == 0 {
		t.Fatalf("no constant of type %s in %s", typ, dir)
	}
	return out
}

// constsIn is constsOf for a package that may declare none.
func constsIn(t *testing.T, dir, typ string) []string {
	t.Helper()
	files, _ := filepath.Glob(filepath.Join(dir, "*.go"))
	var out []string
	for _, name := range files {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := goparser.ParseFile(token.NewFileSet(), name, nil, 0)
		if err != nil {
			t.Fatalf("parsing %s: %v", name, err)
		}
		ast.Inspect(f, func(n ast.Node) bool {
			spec, ok := n.(*ast.ValueSpec)
			if !ok {
				return true
			}
			if id, ok := spec.Type.(*ast.Ident); !ok || id.Name != typ {
				return true
			}
			for _, v := range spec.Values {
				if lit, ok := v.(*ast.BasicLit); ok && lit.Kind == token.STRING {
					s, _ := strconv.Unquote(lit.Value)
					out = append(out, s)
				}
			}
			return true
		})
	}
	return out
}
