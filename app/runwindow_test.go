package app

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/test"
	"fyne.io/fyne/v2/widget"

	"github.com/google/go-cmp/cmp"

	"github.com/segwi/segwi/internal/testing/await"
	"github.com/segwi/segwi/internal/testing/records"
	"github.com/segwi/segwi/runs"
	"github.com/segwi/segwi/runs/changes"
	"github.com/segwi/segwi/runs/push"
)

var runT0 = time.Date(2025, 3, 14, 9, 26, 53, 0, time.UTC)

// fakeRun is a liveRun whose events the test sends. Send and Stop fail the test unless
// the test allowed them.
type fakeRun struct {
	t      *testing.T
	events chan runs.Event

	mu        sync.Mutex
	info      runs.Info
	allowSend bool
	sent      []string
	allowStop bool
	stops     int
	closes    int           // CloseInput calls
	raises    []runs.Budget // RaiseBudget calls
	subs      int
}

func newFakeRun(t *testing.T, info runs.Info, buffer int) *fakeRun {
	return &fakeRun{t: t, info: info, events: make(chan runs.Event, buffer)}
}

func (r *fakeRun) ID() string { return r.info.ID }

func (r *fakeRun) Info() runs.Info {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.info
}

func (r *fakeRun) setInfo(f func(*runs.Info)) {
	r.mu.Lock()
	defer r.mu.Unlock()
	f(&r.info)
}

func (r *fakeRun) Subscribe() (<-chan runs.Event, func()) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.subs++
	if r.subs > 1 {
		r.t.Errorf("run %s subscribed %d times", r.info.ID, r.subs)
	}
	return r.events, func() {}
}

func (r *fakeRun) Send(text string) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if !r.allowSend {
		r.t.Errorf("unexpected Send(%q)", text)
	}
	r.sent = append(r.sent, text)
	return nil
}

func (r *fakeRun) Stop() {
	r.mu.Lock()
	defer r.mu.Unlock()
	if !r.allowStop {
		r.t.Error("unexpected Stop")
	}
	r.stops++
}

func (r *fakeRun) RaiseBudget(by runs.Budget, who string) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.raises = append(r.raises, by)
	return nil
}

func (r *fakeRun) CloseInput() {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.closes++
}

func (r *fakeRun) closeCount() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.closes
}

func (r *fakeRun) sentTexts() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]string(nil), r.sent...)
}

func (r *fakeRun) stopCount() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.stops
}

// manualTimer is the batching timer of a test: it fires only when the test says so.
type manualTimer struct {
	mu    sync.Mutex
	armed []chan time.Time
}

func (m *manualTimer) after(time.Duration) <-chan time.Time {
	ch := make(chan time.Time, 1)
	m.mu.Lock()
	m.armed = append(m.armed, ch)
	m.mu.Unlock()
	return ch
}

func (m *manualTimer) pending() int {
	m.mu.Lock()
	defer m.mu.Unlock()
	return len(m.armed)
}

// fire fires every armed timer.
func (m *manualTimer) fire() {
	m.mu.Lock()
	defer m.mu.Unlock()
	for _, ch := range m.armed {
		ch <- runT0
	}
	m.armed = nil
}

// runHarness is a run window over a fakeRun, with a manual batching timer.
type runHarness struct {
	t        *testing.T
	run      *fakeRun
	timer    *manualTimer
	w        *runWindow
	mu       sync.Mutex
	received int
	opened   []string
}

// newRunHarness opens a run window on a fake run whose channel holds buffer events;
// change, when given, changes the window's dependencies first.
func newRunHarness(t *testing.T, buffer int, change ...func(*runWindowDeps)) *runHarness {
	t.Helper()
	return newRunHarnessOf(t, harnessInfo(), buffer, change...)
}

// harnessInfo is the run of newRunHarness.
func harnessInfo() runs.Info {
	return runs.Info{
		ID: "20250314-092653-abcd", Kind: runs.KindBuild, Checkout: "/home/ada/src/web", Prompt: "Fix the login form\nand its tests",
		Base:  &changes.Base{Repo: "/home/ada/src/web", Branch: "segwi/fix-login", Commit: "0123456789abcdef0123456789abcdef01234567"},
		State: runs.StateRunning, Created: runT0, Start: runT0.Add(2 * time.Second),
	}
}

// newRunHarnessOf is newRunHarness on the run info.
func newRunHarnessOf(t *testing.T, info runs.Info, buffer int, change ...func(*runWindowDeps)) *runHarness {
	t.Helper()
	a := test.NewTempApp(t)
	h := &runHarness{t: t, run: newFakeRun(t, info, buffer), timer: &manualTimer{}}
	deps := runWindowDeps{
		app:      a,
		now:      func() time.Time { return runT0.Add(4*time.Minute + 14*time.Second) },
		after:    h.timer.after,
		name:     func(string) string { return "Web shop" }, // the repository's name in the settings
		received: func() { h.mu.Lock(); h.received++; h.mu.Unlock() },
		openURL: func(u *url.URL) error {
			h.mu.Lock()
			h.opened = append(h.opened, u.String())
			h.mu.Unlock()
			return nil
		},
		queuedAhead: func(string) int { t.Error("unexpected queue position asked"); return 0 },
	}
	for _, c := range change {
		c(&deps)
	}
	ui(func() {
		h.w = newRunWindow(deps, h.run, runs.Info{})
		h.w.win.Resize(fyne.NewSize(820, 600))
		h.w.win.Show()
	})
	t.Cleanup(func() {
		ui(func() {
			if !h.w.closed.Load() { // Fyne's test driver panics on a second Close
				h.w.win.Close()
			}
		})
	})
	await.For(t, 10*time.Second, "the window to subscribe", func() bool {
		h.run.mu.Lock()
		defer h.run.mu.Unlock()
		return h.run.subs == 1
	})
	return h
}

func (h *runHarness) receivedCount() int {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.received
}

// sendAndFlush sends events and fires the batching timer once they are all taken.
func (h *runHarness) sendAndFlush(events ...runs.Event) {
	h.t.Helper()
	before, refreshes := h.receivedCount(), h.w.refreshes.Load()
	for _, e := range events {
		h.run.events <- e
	}
	await.For(h.t, 10*time.Second, "the window to take the events", func() bool { return h.receivedCount() == before+len(events) })
	h.timer.fire()
	await.For(h.t, 10*time.Second, "the batch to be applied", func() bool { return h.w.refreshes.Load() == refreshes+1 })
}

var seq int64

func ev(typ runs.EventType, f func(*runs.Event)) runs.Event {
	seq++
	e := runs.Event{RunID: "20250314-092653-abcd", Seq: seq, Time: runT0.Add(time.Duration(seq) * time.Second), Type: typ}
	if f != nil {
		f(&e)
	}
	return e
}

// scriptedEvents is a short build run: a prompt, text, a tool call asked for and allowed,
// a refused call, and the result.
func scriptedEvents() []runs.Event {
	return []runs.Event{
		ev(runs.EventPrompt, func(e *runs.Event) { e.Text = "Fix the login form\nand its tests" }),
		ev(runs.EventInit, func(e *runs.Event) { e.Init = &runs.InitInfo{Model: "claude-sonnet", PermissionMode: "auto"} }),
		ev(runs.EventText, func(e *runs.Event) { e.Text = "I will run the tests first." }),
		ev(runs.EventToolCall, func(e *runs.Event) {
			e.ToolName, e.ToolUseID, e.Input = "Bash", "t1", json.RawMessage(`{"command":"make test"}`)
		}),
		ev(runs.EventApprovalRequest, func(e *runs.Event) {
			e.ToolName, e.ToolUseID, e.Input = "Bash", "t1", json.RawMessage(`{"command":"make test"}`)
			e.Approval = &runs.ApprovalInfo{RequestID: "q1", Deadline: runT0.Add(10 * time.Minute)}
		}),
		ev(runs.EventApprovalAnswer, func(e *runs.Event) {
			e.ToolName, e.ToolUseID = "Bash", "t1"
			e.Approval = &runs.ApprovalInfo{RequestID: "q1", Allow: true, By: "person", WaitedMS: 4200}
		}),
		ev(runs.EventToolResult, func(e *runs.Event) { e.ToolName, e.ToolUseID, e.Text = "Bash", "t1", "ok  web/login 0.3s\nPASS" }),
		ev(runs.EventToolCall, func(e *runs.Event) {
			e.ToolName, e.ToolUseID, e.Input = "Bash", "t2", json.RawMessage(`{"command":"curl https://example.invalid"}`)
		}),
		ev(runs.EventRefusal, func(e *runs.Event) {
			e.ToolName, e.ToolUseID, e.Source, e.Text = "Bash", "t2", "hook", "blocked by the guard"
		}),
		ev(runs.EventResult, func(e *runs.Event) {
			e.Subtype = "success"
			e.Result = &runs.ResultInfo{NumTurns: 3, CostUSD: 0.0123}
		}),
	}
}

func TestRunWindowShowsScriptedEvents(t *testing.T) {
	stateDir := t.TempDir()
	pusher := &recordingPusher{t: t, stateDir: stateDir, attempt: push.Attempt{
		Time: runT0.Add(5 * time.Minute), Remote: "origin", URL: "https://github.com/ada/web.git", Branch: "segwi/fix-login",
		Commit: "0123456789abcdef0123", Outcome: push.Pushed, Message: "pushed segwi/fix-login (0123456789ab) to origin (https://github.com/ada/web.git)",
	}}
	id := "20250314-092653-abcd"
	records.WriteRun(t, stateDir, runs.Info{ID: id, Kind: runs.KindBuild, Checkout: "/home/ada/src/web", State: runs.StateRunning, Created: runT0})
	h := newRunHarness(t, 64, func(d *runWindowDeps) { d.stateDir, d.pusher = stateDir, pusher })
	h.run.setInfo(func(i *runs.Info) { i.CostUSD = 0.0123 })
	events := scriptedEvents()
	appendRecord(t, stateDir, id, events...) // as the run's recorder does
	h.sendAndFlush(events...)

	want := []string{
		"You|Fix the login form", "|and its tests",
		"Session|started: model claude-sonnet, auto mode",
		"Claude|I will run the tests first.",
		"Tool|Bash: make test",
		"⚠ Approve?|Bash: make test",
		"✔ Allowed|Bash: make test (by you, after 4.2s)",
		"  ↳ output|Bash: ok  web/login 0.3s", "|PASS",
		"Tool|Bash: curl https://example.invalid",
		"⛔ Refused|Bash: curl https://example.invalid (a hook): blocked by the guard",
		"■ Result|done after 3 turns, $0.0123",
	}
	if got := timelineTexts(h.w); strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("timeline:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if title, header := h.w.win.Title(), h.w.title.Text; title != "Fix the login form… · build run in Web shop" || header != "build run in Web shop" {
		t.Errorf("window title %q, header %q; want the task and the run named by the repository's name", title, header)
	}
	if s := h.w.status.Text; s != "State: running · 4m 12s · $0.0123" {
		t.Errorf("status = %q", s)
	}

	// The run ends, and the person pushes its branch: the attempt shows as the last row.
	h.run.setInfo(func(i *runs.Info) { i.State, i.End = runs.StateSucceeded, runT0.Add(4*time.Minute) })
	close(h.run.events)
	await.For(t, 10*time.Second, "Push to be checked", func() bool {
		return h.w.pushChecked.Load()
	})
	test.Tap(h.w.push)
	await.For(t, 10*time.Second, "the push to be answered", func() bool { return h.w.settled.Load() == 1 })
	want = append(want, "Push|pushed segwi/fix-login (0123456789ab) to origin (https://github.com/ada/web.git)")
	if got := timelineTexts(h.w); strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("timeline after the push:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	assertMarkup(t, "runwindow_events.xml", h.w.win.Canvas())
}

// recordingPusher is the run window's pusher for a push that works: it records the
// attempt on the run's record as the real one does (runs.AppendEvent) and says so. Check
// always lets the push go.
type recordingPusher struct {
	t        *testing.T
	stateDir string
	attempt  push.Attempt
}

func (p *recordingPusher) Check(context.Context, string) error { return nil }

func (p *recordingPusher) Push(_ context.Context, runID string) (string, error) {
	a := p.attempt
	if _, err := runs.AppendEvent(p.stateDir, runID, runs.Event{Type: runs.EventPush, Time: a.Time, Text: a.Message, Push: &a}); err != nil {
		p.t.Errorf("recording the push: %v", err)
	}
	return fmt.Sprintf("Pushed %s to %s (%s).", a.Branch, a.Remote, a.URL), nil
}

// appendRecord appends events to the events.jsonl of run id under stateDir.
func appendRecord(t *testing.T, stateDir, id string, events ...runs.Event) {
	t.Helper()
	f, err := os.OpenFile(filepath.Join(runs.RunsDir(stateDir), id, "events.jsonl"), os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o600)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	for _, e := range events {
		b, err := e.AppendJSON(nil)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := f.Write(append(b, '\n')); err != nil {
			t.Fatal(err)
		}
	}
}

func timelineTexts(w *runWindow) []string {
	var out []string
	for i := 0; i < w.tl.len(); i++ {
		r := w.tl.row(i, w.id)
		out = append(out, r.Mark+"|"+r.Text)
	}
	return out
}

func TestRunWindowStopTurnsIntoForceStop(t *testing.T) {
	h := newRunHarness(t, 4)
	h.run.allowStop = true

	test.Tap(h.w.stop)
	if n, label := h.run.stopCount(), h.w.stop.Text; n != 1 || label != "Force stop" {
		t.Fatalf("after one press: %d stops, button %q; want 1 and \"Force stop\"", n, label)
	}
	test.Tap(h.w.stop)
	if n := h.run.stopCount(); n != 2 {
		t.Errorf("after Force stop: %d stops, want 2 (the second one kills)", n)
	}

	// Once the run has ended, nothing stops or sends any more.
	h.run.setInfo(func(i *runs.Info) { i.State, i.End = runs.StateStopped, runT0.Add(5*time.Minute) })
	before := h.w.refreshes.Load()
	close(h.run.events)
	await.For(t, 10*time.Second, "the end to show", func() bool { return h.w.refreshes.Load() > before })
	if !h.w.stop.Disabled() || !h.w.send.Disabled() {
		t.Errorf("after the end: stop disabled %v, send disabled %v; want both disabled", h.w.stop.Disabled(), h.w.send.Disabled())
	}
	// What the stop was doing is done: the window no longer says it.
	if strings.Contains(h.w.note.Text, "SIGTERM") || strings.Contains(h.w.note.Text, "SIGKILL") || h.w.stop.Text != "Stop" {
		t.Errorf("after the end: note %q, button %q; want the stop's note gone and the button back to Stop", h.w.note.Text, h.w.stop.Text)
	}
}

// Finish ends the run after its turn; closing the window leaves it going, as the window
// says while the run is live.
func TestRunWindowFinishEndsTheRunAndClosingLeavesItGoing(t *testing.T) {
	h := newRunHarness(t, 4)
	test.Tap(h.w.finish)
	if n := h.run.closeCount(); n != 1 {
		t.Fatalf("Finish closed the run's input %d times, want 1", n)
	}
	if !h.w.finish.Disabled() || !h.w.send.Disabled() || h.w.stop.Disabled() {
		t.Errorf("after Finish: finish disabled %v, send disabled %v, stop disabled %v; want Stop alone left",
			h.w.finish.Disabled(), h.w.send.Disabled(), h.w.stop.Disabled())
	}
	if !strings.HasPrefix(h.w.note.Text, "No more follow-ups") {
		t.Errorf("after Finish the note says %q", h.w.note.Text)
	}
	h.run.setInfo(func(i *runs.Info) { i.State, i.End = runs.StateSucceeded, runT0.Add(5*time.Minute) })
	before := h.w.refreshes.Load()
	close(h.run.events)
	await.For(t, 10*time.Second, "the end to show", func() bool { return h.w.refreshes.Load() > before })
	if h.w.note.Text != "" {
		t.Errorf("after the run ended the note still says %q", h.w.note.Text)
	}

	other := newRunHarness(t, 4)
	var hint string
	var shown bool
	onUIWait(func() { hint, shown = other.w.keeps.Text, other.w.keeps.Visible() })
	if !shown || !strings.Contains(hint, "leaves the run going") || !strings.Contains(hint, "tray menu opens it again") {
		t.Errorf("the window of a live run says %q (shown: %v); want it to say that closing leaves the run going and where it opens again", hint, shown)
	}
	ui(other.w.win.Close) // the person closes it, the conversation still going
	if n := other.run.closeCount(); n != 0 {
		t.Errorf("closing the window of a live run closed its input %d times; want the run left going", n)
	}

	// Once the run has ended, the window says nothing of the kind.
	ended := newRunHarness(t, 4)
	ended.run.setInfo(func(i *runs.Info) { i.State, i.End = runs.StateSucceeded, runT0.Add(time.Minute) })
	before = ended.w.refreshes.Load()
	close(ended.run.events)
	await.For(t, 10*time.Second, "the end to show", func() bool { return ended.w.refreshes.Load() > before })
	onUIWait(func() { shown = ended.w.keeps.Visible() })
	if shown {
		t.Error("the window of an ended run still says closing leaves it going")
	}
}

// A Push that is off says why, under the buttons: until the run has ended, while its
// branch is checked, and what the check refused; it goes once Push is on.
func TestRunWindowSaysWhyPushIsOff(t *testing.T) {
	for _, c := range []struct {
		name  string
		check error
		want  string // "" for Push on, nothing said
	}{
		{"a branch that can be pushed", nil, ""},
		{"a refused branch", errors.New("push of run x: main is the remote's default branch; segwi pushes other branches only"),
			"Push is off: push of run x: main is the remote's default branch; segwi pushes other branches only"},
	} {
		t.Run(c.name, func(t *testing.T) {
			h := newRunHarness(t, 4, func(d *runWindowDeps) { d.pusher = &checkingPusher{err: c.check} })
			if !h.w.push.Disabled() || !h.w.pushWhy.Visible() || h.w.pushWhy.Text != pushAfterEnd {
				t.Errorf("while the run goes: Push disabled %v, says %q (shown %v); want off, saying %q",
					h.w.push.Disabled(), h.w.pushWhy.Text, h.w.pushWhy.Visible(), pushAfterEnd)
			}
			h.run.setInfo(func(i *runs.Info) { i.State, i.End = runs.StateSucceeded, runT0.Add(5*time.Minute) })
			close(h.run.events)
			await.For(t, 10*time.Second, "Push to be checked", func() bool { return h.w.pushChecked.Load() })
			if c.want == "" {
				if h.w.push.Disabled() || h.w.pushWhy.Visible() {
					t.Errorf("Push disabled %v, still saying %q", h.w.push.Disabled(), h.w.pushWhy.Text)
				}
				return
			}
			if !h.w.push.Disabled() || !h.w.pushWhy.Visible() || h.w.pushWhy.Text != c.want {
				t.Errorf("Push disabled %v, says %q (shown %v); want off, saying %q", h.w.push.Disabled(), h.w.pushWhy.Text, h.w.pushWhy.Visible(), c.want)
			}
		})
	}
}

// checkingPusher is a pusher whose Check says err; it pushes nothing.
type checkingPusher struct{ err error }

func (p *checkingPusher) Check(context.Context, string) error { return p.err }

func (p *checkingPusher) Push(context.Context, string) (string, error) {
	return "", errors.New("checkingPusher pushes nothing")
}

func TestRunWindowSendsFollowUp(t *testing.T) {
	h := newRunHarness(t, 4)
	h.run.allowSend = true

	test.Tap(h.w.send) // empty: nothing is sent
	test.Type(h.w.followUp, "  now the docs  ")
	test.Tap(h.w.send)
	await.For(t, 10*time.Second, "the send to be answered", func() bool { return h.w.settled.Load() == 1 })
	if got := h.run.sentTexts(); len(got) != 1 || got[0] != "now the docs" {
		t.Errorf("sent %q, want the trimmed text once", got)
	}
	if h.w.followUp.Text != "" || h.w.note.Text != "Sent." {
		t.Errorf("after sending: entry %q, note %q; want it cleared and \"Sent.\"", h.w.followUp.Text, h.w.note.Text)
	}
}

func TestRunWindowOpensTheCheckout(t *testing.T) {
	h := newRunHarness(t, 4)
	test.Tap(h.w.openDir)
	await.For(t, 10*time.Second, "the checkout to be opened", func() error {
		h.mu.Lock()
		defer h.mu.Unlock()
		if len(h.opened) != 1 || h.opened[0] != "file:///home/ada/src/web" {
			return fmt.Errorf("opened %v, want the checkout as a file URL", h.opened)
		}
		return nil
	})

	// The desktop's opener finds nothing to open a folder with: the window says so, and the
	// folder's path is on the clipboard to paste.
	failing := newRunHarness(t, 4, func(d *runWindowDeps) {
		d.openURL = func(*url.URL) error { return errors.New("xdg-open found no program to open it with") }
	})
	test.Tap(failing.w.openDir)
	want := "Could not open the folder /home/ada/src/web: xdg-open found no program to open it with. Its path is on the clipboard."
	await.For(t, 10*time.Second, "the window to say why", func() error {
		var note string
		ui(func() { note = failing.w.note.Text })
		if note != want {
			return fmt.Errorf("the note says %q, want %q", note, want)
		}
		return nil
	})
	if got := failing.w.deps.app.Clipboard().Content(); got != "/home/ada/src/web" {
		t.Errorf("the clipboard holds %q, want the checkout's path", got)
	}
}

func TestRunWindowBatchesEvents(t *testing.T) {
	const n = 3000
	h := newRunHarness(t, n)
	for i := range n {
		h.run.events <- ev(runs.EventText, func(e *runs.Event) { e.Text = fmt.Sprintf("line %d", i) })
	}
	await.For(t, 10*time.Second, "the window to take every event", func() bool { return h.receivedCount() == n })
	if got := h.w.refreshes.Load(); got != 1 { // the first apply shows the record
		t.Fatalf("%d refreshes before the batch timer fired, want 1 (the record's)", got)
	}
	if got := h.timer.pending(); got != 1 {
		t.Fatalf("%d batch timers armed for %d events, want 1", got, n)
	}
	h.timer.fire()
	await.For(t, 10*time.Second, "the batch", func() bool { return h.w.refreshes.Load() == 2 })
	if got := h.w.tl.len(); got != n {
		t.Errorf("timeline has %d rows after one batch, want %d", got, n)
	}
}

func TestTimelineIsBounded(t *testing.T) {
	tl := timeline{maxEnt: 100}
	for i := range 250 {
		tl.apply(change{entry: entry{text: fmt.Sprint(i), prose: true}})
	}
	if len(tl.entries) > 100 {
		t.Fatalf("%d entries kept, want at most 100", len(tl.entries))
	}
	if got := tl.row(0, "r1"); !strings.Contains(got.Text, fmt.Sprintf("%d earlier events", tl.dropped)) || !strings.Contains(got.Text, "segwi runs events r1") {
		t.Errorf("first row = %q, want the note of dropped entries", got.Text)
	}
	if last := tl.row(tl.len()-1, "r1"); last.Text != "249" {
		t.Errorf("last row = %q, want the newest", last.Text)
	}
	if tl.dropped+len(tl.entries) != 250 {
		t.Errorf("dropped %d + kept %d, want 250", tl.dropped, len(tl.entries))
	}

	// A few huge messages go too, once their text passes the bound.
	big := timeline{maxRunes: 10_000}
	for i := range 30 {
		big.apply(change{entry: entry{text: fmt.Sprint(i) + strings.Repeat("x", 999), prose: true}})
	}
	if big.runes > 10_000 || big.dropped == 0 || !strings.HasPrefix(big.row(big.len()-1, "r1").Text, "29") {
		t.Errorf("kept %d runes (%d entries dropped), last row %q; want at most 10,000 runes and the newest kept",
			big.runes, big.dropped, big.row(big.len()-1, "r1").Text)
	}
}

// entryTexts applies events to a timeline whose width is not known (rows break only at
// newlines) and returns its rows as "mark|text".
func entryTexts(events ...runs.Event) []string {
	m := &eventRows{}
	var tl timeline
	for _, e := range events {
		tl.apply(m.changes(e)...)
	}
	var out []string
	for i := range tl.len() {
		r := tl.row(i, "r1")
		out = append(out, r.Mark+"|"+r.Text)
	}
	return out
}

func TestRowsCutLongOutput(t *testing.T) {
	rows := entryTexts(runs.Event{Type: runs.EventToolResult, Text: strings.Repeat("x\n", 50)})
	if len(rows) != maxResultLines+1 || rows[maxResultLines] != "|… 44 more lines" {
		t.Errorf("rows = %q, want %d lines and a note", rows, maxResultLines)
	}
}

func TestRawTailKeepsTheEnd(t *testing.T) {
	path := filepath.Join(t.TempDir(), "output.log")
	r := &rawTail{path: path}
	if err := r.read(); err != nil || len(r.lines()) != 0 {
		t.Fatalf("missing file: %v, %v; want no lines", err, r.lines())
	}
	if err := os.WriteFile(path, []byte("one\ntwo\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := r.read(); err != nil {
		t.Fatal(err)
	}
	f, err := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	big := strings.Repeat(strings.Repeat("y", 99)+"\n", maxRawBytes/100+10)
	if _, err := f.WriteString(big + "last\n"); err != nil {
		t.Fatal(err)
	}
	f.Close()
	if err := r.read(); err != nil {
		t.Fatal(err)
	}
	lines := r.lines()
	if len(r.buf) > maxRawBytes || !strings.HasPrefix(lines[0], "… (earlier output") || lines[len(lines)-1] != "last" {
		t.Errorf("kept %d bytes, first %q, last %q", len(r.buf), lines[0], lines[len(lines)-1])
	}
}

func TestStatusLine(t *testing.T) {
	queued := runs.Info{State: runs.StateQueued}
	if got := statusLine(queued, 2, runT0); got != "State: queued: 2 runs ahead of it" {
		t.Errorf("queued status = %q", got)
	}
	ended := runs.Info{State: runs.StateFailed, Reason: "exit code 1", Start: runT0, End: runT0.Add(63 * time.Second)}
	if got := statusLine(ended, 0, runT0.Add(time.Hour)); got != "State: failed: exit code 1 · 1m 03s" {
		t.Errorf("ended status = %q", got)
	}
}

// A line of the raw output that the tab cuts opens whole with a click, and Copy copies
// it; Copy all copies every line the tab keeps.
func TestARawOutputLineOpensWholeAndCopies(t *testing.T) {
	info := harnessInfo()
	info.Dir = t.TempDir()
	long := "FAIL web/login " + strings.Repeat("expected 200, got 500; ", 400)
	if err := os.WriteFile(filepath.Join(info.Dir, "output.log"), []byte("ok web/api\n"+long+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	h := newRunHarnessOf(t, info, 4)
	await.For(t, 10*time.Second, "the raw output to show", func() bool {
		n := 0
		onUIWait(func() { n = len(h.w.raw) })
		return n == 2
	})
	var shown string
	onUIWait(func() {
		shown = cutRunes(h.w.raw[1], maxRawLineShown)
		h.w.rawList.Select(1)
	})
	if len([]rune(shown)) >= len([]rune(long)) {
		t.Fatalf("the list shows the line whole (%d runes); the test needs one it cuts", len([]rune(shown)))
	}
	await.For(t, 10*time.Second, "the line to open", func() bool { return h.w.opened.Load() == 1 })
	d := h.w.details
	var title, full string
	onUIWait(func() {
		title, full = d.title.Text, d.full
		test.Tap(d.copy)
	})
	if full != long || !strings.HasPrefix(title, "Raw output · line 2") {
		t.Errorf("the line opened as %q with %d of its %d characters; want it whole", title, len(full), len(long))
	}
	if got := h.w.deps.app.Clipboard().Content(); got != long {
		t.Errorf("Copy copied %d characters, want the whole line's %d", len(got), len(long))
	}
	onUIWait(func() { test.Tap(h.w.copyRaw) })
	if got := h.w.deps.app.Clipboard().Content(); got != "ok web/api\n"+long {
		t.Errorf("Copy all copied %d characters, want both lines", len(got))
	}
}

func TestRawOutputShowsNoTerminalEscapes(t *testing.T) {
	path := filepath.Join(t.TempDir(), "output.log")
	if err := os.WriteFile(path, []byte("\x1b[1;31mFAIL\x1b[0m web\n{\"type\":\"result\"}\n\x1b[?25h"), 0o600); err != nil {
		t.Fatal(err)
	}
	r := &rawTail{path: path}
	if err := r.read(); err != nil {
		t.Fatal(err)
	}
	if got, want := strings.Join(r.lines(), "|"), `FAIL web|{"type":"result"}`; got != want {
		t.Errorf("raw lines %q, want %q", got, want)
	}
}

// A wrapped message under the follow-up box makes the timeline shorter: the newest row
// stays in view rather than under the box.
func TestTheLastTimelineRowStaysInViewWhenTheMessageWraps(t *testing.T) {
	h := newRunHarness(t, 64)
	var events []runs.Event
	for i := range 40 {
		events = append(events, ev(runs.EventText, func(e *runs.Event) { e.Text = fmt.Sprintf("step %d", i) }))
	}
	h.sendAndFlush(events...)
	onUIWait(func() {
		if !h.w.list.atEnd() {
			t.Fatal("the timeline does not show its last row after new rows")
		}
		h.w.note.SetText(strings.Repeat("Not pushed: the remote refused the branch, and git said why at length. ", 6))
		h.w.win.Content().Refresh() // as the desktop driver does once the message's height changed
		if !h.w.list.atEnd() {
			t.Errorf("once the message wrapped, the last row is out of view (scrolled to %v of a list %v high)",
				h.w.list.GetScrollOffset(), h.w.list.Size().Height)
		}
		drv := h.w.deps.app.Driver()
		listBottom := drv.AbsolutePositionForObject(h.w.list).Y + h.w.list.Size().Height
		boxTop := drv.AbsolutePositionForObject(h.w.followUp).Y
		if oneLine := widget.NewLabel("x").MinSize().Height; h.w.note.Size().Height <= oneLine || listBottom > boxTop {
			t.Errorf("the message is %v high (one line: %v); the list ends at %v, the follow-up box begins at %v; want a wrapped message and the list above the box",
				h.w.note.Size().Height, oneLine, listBottom, boxTop)
		}
	})
}

// A click on a cut row opens its event in full, from the record, and Copy copies it.
func TestATimelineRowOpensInFullAndCopies(t *testing.T) {
	stateDir := t.TempDir()
	id := "20250314-092653-abcd"
	records.WriteRun(t, stateDir, runs.Info{ID: id, Kind: runs.KindBuild, Checkout: "/home/ada/src/web", State: runs.StateRunning, Created: runT0})
	h := newRunHarness(t, 64, func(d *runWindowDeps) { d.stateDir = stateDir })
	var out []string
	for i := range 50 {
		out = append(out, fmt.Sprintf("=== RUN TestLogin/case_%02d %s", i, strings.Repeat("·", 40)))
	}
	call := ev(runs.EventToolCall, func(e *runs.Event) {
		e.ToolName, e.ToolUseID, e.Input = "Bash", "t7", json.RawMessage(`{"command":"go test -v ./...","description":"Run the tests"}`)
	})
	result := ev(runs.EventToolResult, func(e *runs.Event) { e.ToolName, e.ToolUseID, e.Text = "Bash", "t7", strings.Join(out, "\n") })
	appendRecord(t, stateDir, id, call, result)
	h.sendAndFlush(call, result)

	rows := timelineTexts(h.w)
	if n := len(rows); n != 1+maxResultLines+1 {
		t.Fatalf("%d rows, want the call, %d lines of output and a note of the rest: %q", n, maxResultLines, rows)
	}
	onUIWait(func() { h.w.list.Select(3) }) // a line of the output
	await.For(t, 10*time.Second, "the row's event to open", func() bool { return h.w.opened.Load() == 1 })
	d := h.w.details
	var text, title string
	onUIWait(func() { text, title = d.text.Text, d.title.Text })
	if want := "Bash: " + strings.Join(out, "\n"); text != want {
		t.Errorf("the event in full:\n%s\nwant:\n%s", text, want)
	}
	if !strings.HasPrefix(title, "  ↳ output · event ") {
		t.Errorf("title %q, want the mark and the event's number", title)
	}
	onUIWait(func() { test.Tap(d.copy) })
	if got := h.w.deps.app.Clipboard().Content(); got != text {
		t.Errorf("copied %q, want the event's text", got)
	}

	onUIWait(func() { h.w.list.Select(0) }) // the call: its input in full too
	await.For(t, 10*time.Second, "the call to open", func() bool { return h.w.opened.Load() == 2 })
	text = d.text.Text
	if !strings.HasPrefix(text, "Bash: go test -v ./...") {
		t.Errorf("the call in full:\n%s\nwant it to start with the command", text)
	}
	if !strings.Contains(text, `"description": "Run the tests"`) {
		t.Errorf("the call in full lacks its input:\n%s", text)
	}
}

// An event too long for a label shows its start and says so; Copy copies all of it.
func TestAHugeRowShowsItsStartAndCopiesWhole(t *testing.T) {
	stateDir := t.TempDir()
	id := "20250314-092653-abcd"
	records.WriteRun(t, stateDir, runs.Info{ID: id, Kind: runs.KindBuild, Checkout: "/home/ada/src/web", State: runs.StateRunning, Created: runT0})
	h := newRunHarness(t, 64, func(d *runWindowDeps) { d.stateDir = stateDir })
	huge := ev(runs.EventText, func(e *runs.Event) { e.Text = strings.Repeat("All of this matters. ", 6000) })
	appendRecord(t, stateDir, id, huge)
	h.sendAndFlush(huge)
	onUIWait(func() { h.w.list.Select(0) })
	await.For(t, 10*time.Second, "the row's event to open", func() bool { return h.w.opened.Load() == 1 })
	d := h.w.details
	var shown string
	onUIWait(func() { shown = strings.ReplaceAll(d.text.Text, wrapMark+"\n", ""); test.Tap(d.copy) })
	if len(shown) > maxShownInput+100 || !strings.Contains(shown, "more bytes not shown") {
		t.Errorf("shown %d bytes ending %q; want at most about %d and a note of the rest", len(shown), shown[max(0, len(shown)-40):], maxShownInput)
	}
	if got := h.w.deps.app.Clipboard().Content(); got != huge.Text {
		t.Errorf("copied %d bytes, want the whole %d", len(got), len(huge.Text))
	}
}

// The timeline says a deny once, and Claude Code's note after Deny and stop the run in
// words, not as JSON.
func TestRowsSayADenyOnceAndNoJSON(t *testing.T) {
	got := entryTexts(
		runs.Event{Seq: 1, Type: runs.EventToolCall, ToolName: "Bash", ToolUseID: "t1", Input: json.RawMessage(`{"command":"rm -rf build"}`)},
		runs.Event{Seq: 2, Type: runs.EventApprovalAnswer, ToolName: "Bash", ToolUseID: "t1", Approval: &runs.ApprovalInfo{By: "person", Interrupt: true, Message: "Denied by the person at segwi: no"}},
		runs.Event{Seq: 3, Type: runs.EventRefusal, ToolName: "Bash", ToolUseID: "t1", Source: "user_reject", Text: "Denied by the person at segwi: no"},
		runs.Event{Seq: 4, Type: runs.EventRaw, Raw: json.RawMessage(`{"type":"text","text":"[Request interrupted by user for tool use]"}`)},
	)
	want := []string{
		"Tool|Bash: rm -rf build",
		"✖ Denied|Bash: rm -rf build (by you, and the run was stopped): Denied by the person at segwi: no",
		"Note|[Request interrupted by user for tool use]",
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("rows (-want +got):\n%s", diff)
	}
}
