package app

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"fyne.io/fyne/v2"
	"github.com/google/go-cmp/cmp"

	"github.com/segwi/segwi/internal/testing/await"
	"github.com/segwi/segwi/internal/testing/records"
	"github.com/segwi/segwi/runs"
)

// stateEv is a change of the run's state.
func stateEv(from, to runs.State, reason string) runs.Event {
	return ev(runs.EventState, func(e *runs.Event) { e.State = &runs.StateChange{From: from, To: to, Reason: reason} })
}

// The run's start is one row, the base recorded and segwi's status notes between its
// states folded into it (before, they landed between starting and running and broke it in
// two); the moves between running and waiting show none, nor a session started again as it
// was; the end folds its stopping, and the notes of how it stopped, into its last state.
func TestStateRowsFoldIntoOne(t *testing.T) {
	got := entryTexts(
		stateEv("", runs.StateQueued, ""),
		ev(runs.EventStatus, func(e *runs.Event) { e.Subtype, e.Text = "queued", "waiting: the checkout is busy" }),
		stateEv(runs.StateQueued, runs.StateStarting, ""),
		ev(runs.EventBase, func(e *runs.Event) { e.Base = nil }),
		ev(runs.EventStatus, func(e *runs.Event) { e.Subtype, e.Text = "processes", "kept in cgroup /sys/fs/cgroup/segwi-run-1" }),
		stateEv(runs.StateStarting, runs.StateRunning, ""),
		ev(runs.EventPrompt, func(e *runs.Event) { e.Text = "Fix the login form" }),
		ev(runs.EventInit, func(e *runs.Event) { e.Init = &runs.InitInfo{Model: "claude-sonnet"} }),
		ev(runs.EventText, func(e *runs.Event) { e.Text = "Done. Should I also update the README?" }),
		stateEv(runs.StateRunning, runs.StateWaiting, "waiting for your reply"),
		ev(runs.EventPrompt, func(e *runs.Event) { e.Text = "Yes" }),
		stateEv(runs.StateWaiting, runs.StateRunning, ""),
		ev(runs.EventInit, func(e *runs.Event) { e.Init = &runs.InitInfo{Model: "claude-sonnet"} }), // each turn starts it again
		ev(runs.EventText, func(e *runs.Event) { e.Text = "Updated." }),
		stateEv(runs.StateRunning, runs.StateStopping, "stopped by a person"),
		ev(runs.EventStatus, func(e *runs.Event) { e.Subtype, e.Text = "kill", "SIGTERM to the process group" }),
		ev(runs.EventExit, func(e *runs.Event) { e.Exit = &runs.ExitInfo{Code: 143, Signal: "terminated"} }),
		stateEv(runs.StateStopping, runs.StateStopped, "stopped by a person"),
		ev(runs.EventStatus, func(e *runs.Event) { e.Text = "a note after the end" }),
	)
	want := []string{
		"State|queued → starting → running · queued: waiting: the checkout is busy · base: " + runs.BaseText(nil) +
			" · processes: kept in cgroup /sys/fs/cgroup/segwi-run-1",
		"You|Fix the login form",
		"Session|started: model claude-sonnet",
		"Claude|Done. Should I also update the README?",
		"You|Yes",
		"Claude|Updated.",
		"State|stopping: stopped by a person → stopped · kill: SIGTERM to the process group",
		"Exit|code 143, SIGTERM (terminated)",
		"Status|a note after the end",
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("rows (-want +got):\n%s", diff)
	}
}

// The folded state row is one line at the timeline's width, cut with "…" where its
// housekeeping does not fit; a click on it opens every event it folded, in order, a line
// each.
func TestTheFoldedStateRowIsOneLineAndOpensItsEvents(t *testing.T) {
	m := &eventRows{}
	tl := timeline{room: 400, size: 14}
	for _, e := range []runs.Event{
		stateEv("", runs.StateQueued, ""),
		stateEv(runs.StateQueued, runs.StateStarting, ""),
		ev(runs.EventBase, func(e *runs.Event) { e.Base = nil }),
		ev(runs.EventStatus, func(e *runs.Event) {
			e.Subtype, e.Text = "processes", "kept in cgroup /sys/fs/cgroup/segwi-run-1: every one ends with the run, however it forks or detaches"
		}),
		stateEv(runs.StateStarting, runs.StateRunning, ""),
	} {
		tl.apply(m.changes(e)...)
	}
	if n := tl.len(); n != 1 {
		t.Fatalf("the run's start shows in %d rows, want 1", n)
	}
	row := tl.row(0, "r1")
	if !strings.HasPrefix(row.Text, "queued → starting → running · base: ") || !strings.HasSuffix(row.Text, "…") {
		t.Errorf("the row reads %q, want the states first and the rest cut with …", row.Text)
	}
	if w := fyne.MeasureText(row.Text, 14, fyne.TextStyle{}).Width; w > 400 {
		t.Errorf("the row is %.0f px wide, want it within the timeline's 400", w)
	}
	want := "State: queued\nState: starting\nBase: " + runs.BaseText(nil) +
		"\nStatus: processes: kept in cgroup /sys/fs/cgroup/segwi-run-1: every one ends with the run, however it forks or detaches" +
		"\nState: running"
	if got := tl.entryAt(0).detail(); got != want {
		t.Errorf("a click on the row opens\n%s\nwant\n%s", got, want)
	}
}

// A request a trusted rule allowed is one row naming the rule, where the request showed;
// one a person answered keeps its question and its answer.
func TestATrustedAllowIsOneRow(t *testing.T) {
	call := func(id string) runs.Event {
		return ev(runs.EventToolCall, func(e *runs.Event) {
			e.ToolName, e.ToolUseID, e.Input = "Bash", id, json.RawMessage(`{"command":"make test"}`)
		})
	}
	asked := func(id, req string) runs.Event {
		return ev(runs.EventApprovalRequest, func(e *runs.Event) {
			e.ToolName, e.ToolUseID, e.Input = "Bash", id, json.RawMessage(`{"command":"make test"}`)
			e.Approval = &runs.ApprovalInfo{RequestID: req}
		})
	}
	answered := func(id, req, by string) runs.Event {
		return ev(runs.EventApprovalAnswer, func(e *runs.Event) {
			e.ToolName, e.ToolUseID = "Bash", id
			e.Approval = &runs.ApprovalInfo{RequestID: req, Allow: true, By: by, Rule: "make test", WaitedMS: 2100}
		})
	}
	got := entryTexts(
		call("t1"), asked("t1", "req-1"), answered("t1", "req-1", "trusted"),
		ev(runs.EventToolResult, func(e *runs.Event) { e.ToolName, e.ToolUseID, e.Text = "Bash", "t1", "PASS" }),
		call("t2"), asked("t2", "req-2"), answered("t2", "req-2", "person"),
	)
	want := []string{
		"Tool|Bash: make test",
		"✔ Allowed|Bash: make test (trusted: make test)",
		"  ↳ output|Bash: PASS",
		"Tool|Bash: make test",
		"⚠ Approve?|Bash: make test",
		"✔ Allowed|Bash: make test (by you, after 2.1s)",
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("rows (-want +got):\n%s", diff)
	}
}

// A Read's output is one row saying how much it read, an Edit's its first line; a failed
// Read shows its error, and other tools their first lines as before.
func TestAFileToolsOutputIsOneRow(t *testing.T) {
	var file []string
	for i := range 120 {
		file = append(file, fmt.Sprintf("%6d→line %d of the file", i+1, i+1))
	}
	got := entryTexts(
		ev(runs.EventToolResult, func(e *runs.Event) { e.ToolName, e.Text = "Read", strings.Join(file, "\n") }),
		ev(runs.EventToolResult, func(e *runs.Event) {
			e.ToolName, e.Text = "Edit", "The file /src/a.go has been updated. Here's the result:\n     1→package a\n     2→"
		}),
		ev(runs.EventToolResult, func(e *runs.Event) { e.ToolName, e.IsError, e.Text = "Read", true, "File does not exist." }),
		ev(runs.EventToolResult, func(e *runs.Event) { e.ToolName, e.Text = "Bash", "ok\nPASS" }),
	)
	want := []string{
		"  ↳ output|Read: 120 lines",
		"  ↳ output|Edit: The file /src/a.go has been updated. Here's the result: (2 more lines)",
		"  ↳ error|Read: File does not exist.",
		"  ↳ output|Bash: ok",
		"|PASS",
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("rows (-want +got):\n%s", diff)
	}
}

// Claude's message of 1,500 characters shows whole in the run window, broken into rows
// at the timeline's width, none cut, each within it; narrower, it breaks again into more
// rows, and the message is still whole.
func TestClaudesMessageShowsWholeAndWrapped(t *testing.T) {
	h := newRunHarness(t, 64)
	msg := strings.Repeat("I changed the login form and its tests, and the README says how to run them. ", 19) +
		"Should I also update the changelog?"
	h.sendAndFlush(ev(runs.EventText, func(e *runs.Event) { e.Text = msg }))
	check := func(what string) int {
		t.Helper()
		var rows []string
		var room float32
		onUIWait(func() {
			for i := range h.w.tl.len() {
				rows = append(rows, h.w.tl.row(i, h.w.id).Text)
			}
			room = timelineRoom(h.w.list.Theme(), h.w.list.Size().Width)
		})
		if len(rows) < 3 {
			t.Fatalf("%s: the message shows in %d rows, want it broken into several: %q", what, len(rows), rows)
		}
		if got := strings.Join(rows, " "); got != msg {
			t.Errorf("%s: the rows joined read\n%q\nwant the message whole\n%q", what, got, msg)
		}
		for _, r := range rows {
			if w := fyne.MeasureText(r, 14, fyne.TextStyle{}).Width; w > room {
				t.Errorf("%s: the row %q is %.0f wide, wider than the column's %.0f", what, r, w, room)
			}
		}
		return len(rows)
	}
	wide := check("at 820 wide")
	ui(func() { h.w.win.Resize(fyne.NewSize(560, 600)) })
	if narrow := check("at 560 wide"); narrow <= wide {
		t.Errorf("narrower, the message shows in %d rows, wider in %d: want more rows once narrower", narrow, wide)
	}
}

// A window opened on a long run shows its latest event, not its first; it follows new
// events while it shows the end, and stays where the person scrolled up to.
func TestTheTimelineOpensAtTheLatestEventAndFollows(t *testing.T) {
	stateDir := t.TempDir()
	id := "20250314-092653-abcd"
	records.WriteRun(t, stateDir, runs.Info{ID: id, Kind: runs.KindBuild, Checkout: "/home/ada/src/web", State: runs.StateRunning, Created: runT0})
	var past []runs.Event
	past = append(past, stateEv("", runs.StateQueued, ""))
	for i := range 300 {
		past = append(past, ev(runs.EventText, func(e *runs.Event) { e.Text = fmt.Sprintf("step %d", i) }))
	}
	appendRecord(t, stateDir, id, past...)
	h := newRunHarness(t, 64, func(d *runWindowDeps) { d.stateDir = stateDir })
	lastShown := func() string {
		var text string
		onUIWait(func() {
			l := h.w.list
			bottom := int((l.GetScrollOffset() + l.Size().Height) / l.pitch()) // the row at the bottom edge
			text = h.w.tl.row(min(bottom, h.w.tl.len()-1), id).Text
		})
		return text
	}
	await.For(t, 10*time.Second, "the record to show", func() bool { return h.w.refreshes.Load() >= 1 })
	if got := lastShown(); got != "step 299" {
		t.Fatalf("the reopened window shows %q at its bottom, want the latest event, step 299", got)
	}

	h.sendAndFlush(ev(runs.EventText, func(e *runs.Event) { e.Text = "step 300" }))
	if got := lastShown(); got != "step 300" {
		t.Errorf("at the end, a new event shows %q at the bottom, want step 300", got)
	}

	onUIWait(func() { h.w.list.ScrollToOffset(10 * h.w.list.pitch()) }) // the person reads back
	var before float32
	onUIWait(func() { before = h.w.list.GetScrollOffset() })
	h.sendAndFlush(ev(runs.EventText, func(e *runs.Event) { e.Text = "step 301" }))
	var after float32
	onUIWait(func() { after = h.w.list.GetScrollOffset() })
	if after != before {
		t.Errorf("scrolled up, a new event moved the view from %v to %v; want it where the person put it", before, after)
	}
}

// A long run's timeline (5,000 events, a third of them Claude's messages of 600
// characters) breaks its rows again for a new width in well under a second, and a window
// opened on it shows it as fast: the rows are broken by breakProse, which measures each
// character once, and the list draws only the rows in view. The figures are printed for
// the README.
func TestALongTimelineLaysOutQuickly(t *testing.T) {
	stateDir := t.TempDir()
	id := "20250314-092653-abcd"
	records.WriteRun(t, stateDir, runs.Info{ID: id, Kind: runs.KindBuild, Checkout: "/home/ada/src/web", State: runs.StateRunning, Created: runT0})
	var past []runs.Event
	for i := range maxTimelineEntries {
		switch i % 3 {
		case 0:
			past = append(past, ev(runs.EventText, func(e *runs.Event) {
				e.Text = fmt.Sprintf("Step %d. ", i) + strings.Repeat("I read the handler and the tests; the form posts twice. ", 11)
			}))
		case 1:
			past = append(past, ev(runs.EventToolCall, func(e *runs.Event) {
				e.ToolName, e.ToolUseID, e.Input = "Read", fmt.Sprint("t", i), json.RawMessage(`{"file_path":"/src/web/login.go"}`)
			}))
		default:
			past = append(past, ev(runs.EventToolResult, func(e *runs.Event) {
				e.ToolName, e.ToolUseID, e.Text = "Read", fmt.Sprint("t", i-1), strings.Repeat("     1→package web\n", 80)
			}))
		}
	}
	appendRecord(t, stateDir, id, past...)
	start := time.Now()
	h := newRunHarness(t, 64, func(d *runWindowDeps) { d.stateDir = stateDir })
	await.For(t, 30*time.Second, "the record to show", func() bool { return h.w.refreshes.Load() >= 1 })
	opened := time.Since(start)
	var rows int
	var relayout time.Duration
	onUIWait(func() {
		rows = h.w.tl.len()
		t0 := time.Now()
		h.w.win.Resize(fyne.NewSize(640, 600))
		relayout = time.Since(t0)
	})
	t.Logf("a timeline of %d events (%d rows): the window showed it %d ms after it opened; a resize broke its rows again in %d ms",
		maxTimelineEntries, rows, opened.Milliseconds(), relayout.Milliseconds())
	if relayout > 2*time.Second || opened > 10*time.Second {
		t.Errorf("the long timeline took %v to show and %v to lay out again; want well under a second each on a quiet machine", opened, relayout)
	}
}
