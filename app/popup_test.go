package app

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/test"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"
	"github.com/google/go-cmp/cmp"

	"github.com/segwi/segwi/approvals"
	"github.com/segwi/segwi/control"
	"github.com/segwi/segwi/internal/testing/await"
)

var popupT0 = time.Date(2025, 3, 14, 9, 26, 53, 0, time.UTC)

func bashRequest(id string) approvals.Request {
	return approvals.Request{
		ID:       id,
		Run:      approvals.RunInfo{ID: "run-" + id, Kind: "build", Checkout: "/home/ada/src/web", Name: "web", Prompt: "Publish the login fix\nand tidy up"},
		ToolName: "Bash",
		Input:    json.RawMessage(`{"command":"git push --force origin main && rm -rf build/","description":"Publish the branch and clean up"}`),
		Asked:    popupT0,
		Deadline: popupT0.Add(10 * time.Minute),
	}
}

// editRequest is an Edit call in the shape Claude Code 2.1.328 sends it (see
// TestTheEditPopupOfARealClaudeCodeRunShowsOldAndNewText for one taken from a real run).
func editRequest(id string) approvals.Request {
	return approvals.Request{
		ID:       id,
		Run:      approvals.RunInfo{ID: "run-" + id, Kind: "build", Checkout: "/home/ada/src/web", Name: "Web shop", Prompt: "Say hello in the notes"},
		ToolName: "Edit",
		Input: json.RawMessage(`{"file_path":"/home/ada/src/web/docs/notes.txt","old_string":"# Notes\nfirst line\nsecond line\nlast line",` +
			`"new_string":"# Notes\nfirst line\nhello, world\nlast line","replace_all":false}`),
		Asked:    popupT0,
		Deadline: popupT0.Add(10 * time.Minute),
	}
}

func notebookRequest(id string) approvals.Request {
	return approvals.Request{
		ID:       id,
		Run:      approvals.RunInfo{ID: "run-" + id, Kind: "build", Checkout: "/home/ada/src/lab", Prompt: "Plot the results"},
		ToolName: "NotebookEdit",
		Input:    json.RawMessage(`{"notebook_path":"/home/ada/src/lab/results.ipynb","cell_id":"a1b2","new_source":"import pandas as pd\npd.read_csv('r.csv').plot()","cell_type":"code","edit_mode":"replace"}`),
		Asked:    popupT0,
		Deadline: popupT0.Add(10 * time.Minute),
	}
}

func writeRequest(id string) approvals.Request {
	return approvals.Request{
		ID:       id,
		Run:      approvals.RunInfo{ID: "run-" + id, Kind: "ready", Checkout: "/home/ada/src/api"},
		ToolName: "Write",
		Input:    json.RawMessage(`{"file_path":"/home/ada/src/api/NOTES.md","content":"# Notes\nShip it.\n"}`),
		Asked:    popupT0,
		Deadline: popupT0.Add(90 * time.Second),
	}
}

// fakePopupClock is a popupClock that moves only when a test advances it.
type fakePopupClock struct {
	mu      sync.Mutex
	now     time.Time
	tickers map[chan time.Time]bool
}

func newFakePopupClock(now time.Time) *fakePopupClock {
	return &fakePopupClock{now: now, tickers: map[chan time.Time]bool{}}
}

func (c *fakePopupClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *fakePopupClock) Tick(time.Duration) (<-chan time.Time, func()) {
	ch := make(chan time.Time, 1)
	c.mu.Lock()
	c.tickers[ch] = true
	c.mu.Unlock()
	return ch, func() {
		c.mu.Lock()
		delete(c.tickers, ch)
		c.mu.Unlock()
	}
}

// tickerCount returns how many tickers tick.
func (c *fakePopupClock) tickerCount() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.tickers)
}

// Advance moves the time on by d and ticks every ticker.
func (c *fakePopupClock) Advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = c.now.Add(d)
	for ch := range c.tickers {
		select {
		case ch <- c.now:
		default: // a tick is already waiting; like time.Ticker, drop this one
		}
	}
}

// popupTestApp is the test app, counting the windows it raises and the notifications it sends.
type popupTestApp struct {
	fyne.App
	mu            sync.Mutex
	notifications []fyne.Notification
	raised        map[string]int // window title -> Show/RequestFocus pairs
}

func (a *popupTestApp) NewWindow(title string) fyne.Window {
	return &popupTestWindow{Window: a.App.NewWindow(title), app: a}
}

func (a *popupTestApp) SendNotification(n *fyne.Notification) {
	a.mu.Lock()
	a.notifications = append(a.notifications, *n)
	a.mu.Unlock()
	a.App.SendNotification(n)
}

func (a *popupTestApp) sent() []fyne.Notification {
	a.mu.Lock()
	defer a.mu.Unlock()
	return append([]fyne.Notification(nil), a.notifications...)
}

func (a *popupTestApp) raisedCount(title string) int {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.raised[title]
}

type popupTestWindow struct {
	fyne.Window
	app   *popupTestApp
	shown bool
}

func (w *popupTestWindow) Show() {
	w.shown = true
	w.Window.Show()
}

// RequestFocus counts a raise when the window was shown first, as a popup must be.
func (w *popupTestWindow) RequestFocus() {
	if w.shown {
		w.app.mu.Lock()
		w.app.raised[w.Title()]++
		w.app.mu.Unlock()
	}
	w.shown = false
	w.Window.RequestFocus()
}

type decideOutcome struct {
	answer approvals.Answer
	err    error
}

type popupHarness struct {
	t     *testing.T
	app   *popupTestApp
	clock *fakePopupClock
	d     *PopupDecider

	mu     sync.Mutex
	placed map[string]int // the cascade step each popup was moved to, by window title
}

func newPopupHarness(t *testing.T) *popupHarness {
	a := &popupTestApp{App: test.NewTempApp(t), raised: map[string]int{}}
	clk := newFakePopupClock(popupT0)
	h := &popupHarness{t: t, app: a, clock: clk, d: newPopupDecider(a, clk), placed: map[string]int{}}
	h.d.place = func(w fyne.Window, step int) { // the test driver has no screen to place windows on
		h.mu.Lock()
		defer h.mu.Unlock()
		h.placed[w.Title()] = step
	}
	return h
}

func (h *popupHarness) step(title string) (int, bool) {
	h.mu.Lock()
	defer h.mu.Unlock()
	step, ok := h.placed[title]
	return step, ok
}

// decide starts Decide for req and waits until its popup is open. The returned channel
// receives what Decide returns.
func (h *popupHarness) decide(ctx context.Context, req approvals.Request) (*popup, <-chan decideOutcome) {
	h.t.Helper()
	before, tickers := h.d.Pending(), h.clock.tickerCount()
	done := make(chan decideOutcome, 1)
	go func() {
		a, err := h.d.Decide(ctx, req)
		done <- decideOutcome{a, err}
	}()
	// Open, and counting down: a tick before Decide asks for its ticker is lost.
	await.For(h.t, 10*time.Second, "the popup to open and count down", func() bool {
		return h.d.Pending() == before+1 && h.clock.tickerCount() == tickers+1
	})
	ps := h.d.popups()
	return ps[len(ps)-1], done
}

// decideResult waits for Decide to return.
func decideResult(t *testing.T, done <-chan decideOutcome) decideOutcome {
	t.Helper()
	select {
	case d := <-done:
		return d
	case <-time.After(5 * time.Second):
		t.Fatal("Decide did not return")
		return decideOutcome{}
	}
}

// assertStillWaiting checks that Decide has not returned and the popup is still pending.
func assertStillWaiting(t *testing.T, h *popupHarness, done <-chan decideOutcome) {
	t.Helper()
	select {
	case d := <-done:
		t.Fatalf("Decide returned %+v, %v; want it still waiting for a click", d.answer, d.err)
	default:
	}
	if got := h.d.Pending(); got != 1 {
		t.Fatalf("Pending() = %d, want 1", got)
	}
}

func popupWindowOpen(w fyne.Window) bool {
	open := false
	ui(func() { open = slices.Contains(fyne.CurrentApp().Driver().AllWindows(), w.(*popupTestWindow).Window) })
	return open
}

func TestPopupShowsTheRequest(t *testing.T) {
	tests := []struct {
		name       string
		req        approvals.Request
		golden     string
		title      string
		task       string
		caption    string
		input      string
		diff       []string // the change's lines; none for a call that is not a file change
		timeLeft   string
		hasWhyLine bool
	}{
		{
			name:       "a Bash call shows its command on its own, its description and the run's task",
			req:        bashRequest("b1"),
			golden:     "popup_bash.xml",
			title:      "Approve Bash? · build run in web · Publish the login fix…",
			task:       "Task: Publish the login fix…",
			caption:    "Command:",
			input:      "git push --force origin main && rm -rf build/",
			timeLeft:   "Time left: 10m 00s, then it is denied",
			hasWhyLine: true,
		},
		{
			name: "a command segwi could not check says why, with hidden characters shown",
			req: func() approvals.Request {
				r := bashRequest("n1")
				r.Input = json.RawMessage(`{"command":"ls \u202e# ~ fr-\r mr"}`)
				r.Note = "Not checked against your trusted commands: the command holds the control character U+000D at byte 13, which bash and segwi's shell parser read differently."
				return r
			}(),
			golden:   "popup_note.xml",
			title:    "Approve Bash? · build run in web · Publish the login fix…",
			task:     "Task: Publish the login fix…",
			caption:  "Command:",
			input:    `ls \u202e# ~ fr-\x0d mr`,
			timeLeft: "Time left: 10m 00s, then it is denied",
		},
		{
			name:     "an Edit call shows old and new text as a diff, its file relative to the checkout",
			req:      editRequest("e1"),
			golden:   "popup_edit.xml",
			title:    "Approve Edit? · build run in Web shop · Say hello in the notes",
			task:     "Task: Say hello in the notes",
			caption:  "Edit docs/notes.txt:",
			input:    "{\n  \"file_path\": \"/home/ada/src/web/docs/notes.txt\",\n  \"old_string\": \"# Notes\\nfirst line\\nsecond line\\nlast line\",\n  \"new_string\": \"# Notes\\nfirst line\\nhello, world\\nlast line\",\n  \"replace_all\": false\n}",
			diff:     []string{"  # Notes", "  first line", "- second line", "+ hello, world", "  last line"},
			timeLeft: "Time left: 10m 00s, then it is denied",
		},
		{
			name:     "a Write call shows the new file, its JSON behind a toggle",
			req:      writeRequest("w1"),
			golden:   "popup_write.xml",
			title:    "Approve Write? · ready run in api",
			caption:  "Write NOTES.md: a new file:",
			input:    "{\n  \"file_path\": \"/home/ada/src/api/NOTES.md\",\n  \"content\": \"# Notes\\nShip it.\\n\"\n}",
			diff:     []string{"+ # Notes", "+ Ship it."},
			timeLeft: "Time left: 1m 30s, then it is denied",
		},
		{
			name:     "a NotebookEdit call shows the cell's new source",
			req:      notebookRequest("nb1"),
			golden:   "popup_notebook.xml",
			title:    "Approve NotebookEdit? · build run in lab · Plot the results",
			task:     "Task: Plot the results",
			caption:  "NotebookEdit results.ipynb: replace cell a1b2 (code):",
			input:    "{\n  \"notebook_path\": \"/home/ada/src/lab/results.ipynb\",\n  \"cell_id\": \"a1b2\",\n  \"new_source\": \"import pandas as pd\\npd.read_csv('r.csv').plot()\",\n  \"cell_type\": \"code\",\n  \"edit_mode\": \"replace\"\n}",
			diff:     []string{"+ import pandas as pd", "+ pd.read_csv('r.csv').plot()"},
			timeLeft: "Time left: 10m 00s, then it is denied",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := newPopupHarness(t)
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			p, done := h.decide(ctx, tt.req)

			input := p.panel.main
			if tt.diff != nil {
				input = p.panel.json
			}
			for _, f := range []struct{ what, got, want string }{
				{"title", p.win.Title(), tt.title},
				{"task", p.view.task, tt.task},
				{"caption", p.panel.caption.Text, tt.caption},
				{"input", input.text(), tt.input},
				{"time left", p.panel.timeLeft.Text, tt.timeLeft},
			} {
				if f.got != f.want {
					t.Errorf("%s = %q, want %q", f.what, f.got, f.want)
				}
			}
			for _, seg := range input.rich.Segments {
				if !seg.(*widget.TextSegment).Style.TextStyle.Monospace {
					t.Error("input is not shown in monospace")
				}
			}
			if got := h.app.raisedCount(tt.title); got != 1 {
				t.Errorf("window raised %d times, want 1 (Show then RequestFocus)", got)
			}
			if n := h.app.sent(); len(n) != 0 {
				t.Errorf("the popup sent the notifications %v; the tray process sends them", n)
			}
			if got := p.view.Description != ""; got != tt.hasWhyLine {
				t.Errorf("shows a description: %v, want %v", got, tt.hasWhyLine)
			}
			checkDiff(t, p, tt.diff)

			p.win.Resize(fyne.NewSize(640, 480))
			assertMarkup(t, tt.golden, p.win.Canvas())

			cancel()
			decideResult(t, done)
		})
	}
}

// checkDiff checks the change p shows: its lines, coloured by what they do, and the JSON
// behind the toggle; or, with no lines wanted, that p shows the input itself.
func checkDiff(t *testing.T, p *popup, want []string) {
	t.Helper()
	if want == nil {
		if p.view.Shape == approvals.ShapeChange || !p.panel.main.Visible() {
			t.Error("a call that is not a file change shows a diff, or hides its input")
		}
		return
	}
	if p.view.Shape != approvals.ShapeChange {
		t.Fatal("no diff shown")
	}
	var got []string
	for _, l := range p.panel.main.lines {
		got = append(got, l.mark+l.text)
		wantColour := map[byte]fyne.ThemeColorName{'-': theme.ColorNameError, '+': theme.ColorNameSuccess, ' ': ""}[l.mark[0]]
		if l.color != wantColour {
			t.Errorf("line %q in colour %q, want %q", l.mark+l.text, l.color, wantColour)
		}
	}
	for _, seg := range p.panel.main.rich.Segments {
		if !seg.(*widget.TextSegment).Style.TextStyle.Monospace {
			t.Errorf("segment %q is not in monospace", seg.Textual())
		}
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("diff lines (-want +got):\n%s", diff)
	}
	if !p.panel.main.Visible() || p.panel.json.Visible() {
		t.Error("the diff is not what shows first")
	}
	test.Tap(p.panel.showJSON)
	if p.panel.main.Visible() || !p.panel.json.Visible() {
		t.Error("the toggle does not show the JSON instead of the diff")
	}
	test.Tap(p.panel.showJSON)
	if !p.panel.main.Visible() {
		t.Error("the toggle does not bring the diff back")
	}
}

func TestPopupScrollsALongCommand(t *testing.T) {
	h := newPopupHarness(t)
	req := bashRequest("b1")
	var lines []string
	for i := range 200 {
		lines = append(lines, fmt.Sprintf("echo step %d", i))
	}
	command := strings.Join(lines, " &&\n")
	req.Input = popupJSON(t, map[string]string{"command": command})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	p, done := h.decide(ctx, req)
	p.win.Resize(fyne.NewSize(640, 480))

	if p.panel.main.text() != command {
		t.Error("the popup does not show the whole command")
	}
	if content, view := p.panel.main.scroll.Content.MinSize().Height, p.panel.main.scroll.Size().Height; content <= view {
		t.Errorf("command is %v high in a view of %v; want it longer, so the view scrolls", content, view)
	}
	cancel()
	decideResult(t, done)
}

// A command of one line of 60,000 characters (a base64 blob) once kept its popup from
// opening for minutes while Fyne wrapped it: the popup breaks long lines itself.
func TestPopupOpensAtOnceWithAHugeOneLineCommand(t *testing.T) {
	h := newPopupHarness(t)
	req := bashRequest("b1")
	blob := strings.Repeat("QUJDREVGR0hJSktMTU5PUFFSU1RVVldYWVo", 1700) // under the 64 KiB shown
	req.Input = popupJSON(t, map[string]string{"command": "echo " + blob})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	p, done := h.decide(ctx, req) // fails after 10 s when the popup does not open
	if got := shownText(t, p.panel.main); got != "echo "+blob {
		t.Error("the command's pieces do not make the command")
	}
	assertEveryCharacterInView(t, p.win, p.panel.main)
	cancel()
	decideResult(t, done)
}

func TestPopupButtonsAnswer(t *testing.T) {
	tests := []struct {
		name   string
		typed  string
		button func(*popup) *clickButton
		want   approvals.Answer
	}{
		{
			name:   "Allow allows, with no message",
			typed:  "ignored when allowing",
			button: func(p *popup) *clickButton { return p.allow },
			want:   approvals.Answer{Allow: true, By: approvals.ByPerson},
		},
		{
			name:   "Deny without a message says the person declined",
			button: func(p *popup) *clickButton { return p.deny },
			want:   approvals.Answer{Message: msgDeclined, By: approvals.ByPerson},
		},
		{
			name:   "Deny carries the person's message",
			typed:  "use the staging remote",
			button: func(p *popup) *clickButton { return p.deny },
			want:   approvals.Answer{Message: "use the staging remote", By: approvals.ByPerson},
		},
		{
			name:   "Deny and stop interrupts the run",
			typed:  "wrong checkout",
			button: func(p *popup) *clickButton { return p.denyStop },
			want:   approvals.Answer{Interrupt: true, Message: "wrong checkout", By: approvals.ByPerson},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := newPopupHarness(t)
			p, done := h.decide(context.Background(), bashRequest("b1"))
			if tt.typed != "" {
				test.Type(p.denyMessage, tt.typed)
			}

			test.Tap(tt.button(p))

			got := decideResult(t, done)
			if got.err != nil {
				t.Fatalf("Decide: %v", got.err)
			}
			if diff := cmp.Diff(tt.want, got.answer); diff != "" {
				t.Errorf("answer (-want +got):\n%s", diff)
			}
			if popupWindowOpen(p.win) {
				t.Error("the popup's window is still open after its answer")
			}
			if n := h.d.Pending(); n != 0 {
				t.Errorf("Pending() = %d once answered, want 0", n)
			}
		})
	}
}

func TestPopupClosedWithItsCloseButtonDenies(t *testing.T) {
	h := newPopupHarness(t)
	p, done := h.decide(context.Background(), bashRequest("b1"))

	p.win.Close() // what the window manager's close button does

	got := decideResult(t, done)
	want := approvals.Answer{Message: msgWindowClosed, By: approvals.ByPerson}
	if got.err != nil || got.answer != want {
		t.Errorf("Decide = %+v, %v; want %+v, nil", got.answer, got.err, want)
	}
	if n := h.d.Pending(); n != 0 {
		t.Errorf("Pending() = %d, want 0", n)
	}
}

func TestPopupAnswersNoKey(t *testing.T) {
	h := newPopupHarness(t)
	p, done := h.decide(context.Background(), bashRequest("b1"))
	c := p.win.Canvas()

	// Allow reads as the primary choice; it looks it, and still no key presses it (below).
	for _, b := range []*clickButton{p.allow, p.deny, p.denyStop} {
		if primary := b.Importance == widget.HighImportance; primary != (b == p.allow) {
			t.Errorf("button %q is primary: %v; want Allow alone primary", b.Text, primary)
		}
	}
	if f := c.Focused(); f != nil {
		t.Errorf("%T is focused when the popup opens; want nothing focused", f)
	}
	if c.OnTypedKey() != nil || c.OnTypedRune() != nil {
		t.Error("the popup's canvas handles typed keys; no key may answer a request")
	}

	keys := []fyne.KeyName{fyne.KeyReturn, fyne.KeyEnter, fyne.KeySpace}
	pressKeys := func(f fyne.Focusable) {
		for _, k := range keys {
			f.TypedKey(&fyne.KeyEvent{Name: k})
		}
		f.TypedRune(' ')
	}

	t.Run("keys typed into the deny message answer nothing", func(t *testing.T) {
		test.Type(p.denyMessage, "not this one")
		pressKeys(p.denyMessage)
		assertStillWaiting(t, h, done)
	})
	t.Run("keys on each button the focus can reach answer nothing", func(t *testing.T) {
		c.Focus(p.denyMessage)
		seen := map[fyne.Focusable]bool{}
		for f := c.Focused(); f != nil && !seen[f]; f = c.Focused() {
			seen[f] = true
			pressKeys(f)
			assertStillWaiting(t, h, done)
			test.FocusNext(c)
		}
		for _, b := range []*clickButton{p.allow, p.deny, p.denyStop} {
			if !seen[b] {
				t.Errorf("the focus never reached %q", b.Text)
			}
		}
	})
	t.Run("a click still answers, with the message typed before", func(t *testing.T) {
		test.Tap(p.deny)
		got := decideResult(t, done)
		if got.answer.Allow || got.answer.Message != "not this one" {
			t.Errorf("answer = %+v, want a deny saying %q", got.answer, "not this one")
		}
	})
}

// Allow is the primary button; Deny and stop the run lies apart from it: on another row,
// at the other side, with no overlap a slip of the mouse could cross.
func TestDenyAndStopLiesApartFromAllow(t *testing.T) {
	h := newPopupHarness(t)
	p, done := h.decide(context.Background(), editRequest("e1"))
	p.win.Resize(fyne.NewSize(640, 480))
	drv := h.app.Driver()
	allow, stop := drv.AbsolutePositionForObject(p.allow), drv.AbsolutePositionForObject(p.denyStop)
	if stop.Y < allow.Y+p.allow.Size().Height {
		t.Errorf("Deny and stop the run is at y %v, Allow ends at y %v: want it on a row below", stop.Y, allow.Y+p.allow.Size().Height)
	}
	if gap := allow.X - (stop.X + p.denyStop.Size().Width); gap < p.allow.Size().Width {
		t.Errorf("Deny and stop the run ends %v left of Allow; want at least a button's width between them", gap)
	}
	test.Tap(p.deny)
	decideResult(t, done)
}

// endableCtx is a context that a test ends by hand with the error it chooses, as the
// broker's context ends with Canceled (the run ended) or DeadlineExceeded (a timeout).
type endableCtx struct {
	context.Context
	done chan struct{}
	mu   sync.Mutex
	err  error
}

func newEndableCtx() *endableCtx {
	return &endableCtx{Context: context.Background(), done: make(chan struct{})}
}

func (c *endableCtx) Done() <-chan struct{} { return c.done }

func (c *endableCtx) Err() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.err
}

func (c *endableCtx) end(err error) {
	c.mu.Lock()
	c.err = err
	c.mu.Unlock()
	close(c.done)
}

func TestPopupClosesWhenItsRequestGoesAway(t *testing.T) {
	tests := []struct {
		name string
		err  error
	}{
		{"the run ended", context.Canceled},
		{"the request timed out", context.DeadlineExceeded},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := newPopupHarness(t)
			ctx := newEndableCtx()
			p, done := h.decide(ctx, bashRequest("b1"))

			ctx.end(tt.err)

			got := decideResult(t, done)
			if !errors.Is(got.err, tt.err) {
				t.Errorf("Decide error = %v, want %v", got.err, tt.err)
			}
			if got.answer != (approvals.Answer{}) {
				t.Errorf("Decide answered %+v; want no answer", got.answer)
			}
			await.For(t, 10*time.Second, "the popup to close", func() bool { return !popupWindowOpen(p.win) })
			if n := h.d.Pending(); n != 0 {
				t.Errorf("Pending() = %d, want 0", n)
			}
		})
	}
}

func TestDecideWithAnEndedContextOpensNothing(t *testing.T) {
	h := newPopupHarness(t)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := h.d.Decide(ctx, bashRequest("b1")); !errors.Is(err, context.Canceled) {
		t.Errorf("Decide error = %v, want %v", err, context.Canceled)
	}
	if n := len(h.app.sent()); n != 0 || h.d.Pending() != 0 {
		t.Errorf("sent %d notifications and left %d popups; want none", n, h.d.Pending())
	}
}

func TestPopupCountsDown(t *testing.T) {
	h := newPopupHarness(t)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	p, done := h.decide(ctx, writeRequest("w1")) // deadline popupT0+90s

	steps := []struct {
		advance time.Duration
		want    string
	}{
		{0, "Time left: 1m 30s, then it is denied"},
		{time.Second, "Time left: 1m 29s, then it is denied"},
		{28*time.Second + 500*time.Millisecond, "Time left: 1m 01s, then it is denied"},
		{time.Minute, "Time left: 1s, then it is denied"},
		{time.Second, timeLeftExpired},
	}
	for _, s := range steps {
		h.clock.Advance(s.advance)
		await.For(t, 10*time.Second, "the countdown to show "+s.want, func() bool { return p.shownTimeLeft() == s.want })
		var got string
		ui(func() { got = p.panel.timeLeft.Text })
		if got != s.want {
			t.Errorf("label = %q, want %q", got, s.want)
		}
	}
	cancel()
	decideResult(t, done)
}

func TestTwoRequestsOpenTwoPopups(t *testing.T) {
	h := newPopupHarness(t)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()

	first, firstDone := h.decide(ctx, bashRequest("b1"))
	second, secondDone := h.decide(context.Background(), writeRequest("w1"))
	if n := h.d.Pending(); n != 2 {
		t.Fatalf("Pending() = %d, want 2", n)
	}
	if !popupWindowOpen(first.win) || !popupWindowOpen(second.win) {
		t.Fatal("want both popups open")
	}

	// Each popup is titled by its run, and the second is a step down the cascade from the
	// first, not on top of it.
	if first.win.Title() == second.win.Title() {
		t.Errorf("both popups are titled %q", first.win.Title())
	}
	for want, p := range []*popup{first, second} {
		if step, ok := h.step(p.win.Title()); !ok || step != want {
			t.Errorf("popup %q placed at step %d (%v), want %d", p.win.Title(), step, ok, want)
		}
	}

	h.d.RaiseAll()
	for _, p := range []*popup{first, second} {
		if got := h.app.raisedCount(p.win.Title()); got != 2 {
			t.Errorf("%q raised %d times, want 2 (on opening and by RaiseAll)", p.win.Title(), got)
		}
	}

	test.Tap(second.allow)
	if got := decideResult(t, secondDone); !got.answer.Allow {
		t.Errorf("second answer = %+v, want allow", got.answer)
	}
	if n := h.d.Pending(); n != 1 {
		t.Errorf("after one answer Pending() = %d, want 1", n)
	}
	if !popupWindowOpen(first.win) {
		t.Error("answering one popup closed the other")
	}

	h.d.RaiseAll()
	if got := h.app.raisedCount(second.win.Title()); got != 2 {
		t.Errorf("RaiseAll raised the answered popup: %d raises, want 2", got)
	}

	// A third popup takes the place the answered one left.
	third, thirdDone := h.decide(ctx, editRequest("e3"))
	if step, _ := h.step(third.win.Title()); step != 1 {
		t.Errorf("the next popup is placed at step %d, want 1, the free place", step)
	}

	cancel()
	decideResult(t, thirdDone)
	if got := decideResult(t, firstDone); !errors.Is(got.err, context.Canceled) {
		t.Errorf("first Decide error = %v, want %v", got.err, context.Canceled)
	}
	// A withdrawn popup closes on Fyne's goroutine, after Decide has returned.
	await.For(t, 5*time.Second, "both popups to be withdrawn", func() error {
		if n := h.d.Pending(); n != 0 {
			return fmt.Errorf("Pending() = %d once both are settled, want 0", n)
		}
		return nil
	})
}

// The popup of an ACP run's request, as the window process gets it over the channel, says
// its agent may not see a deny's reason (it reaches the run's record; no ACP agent tried
// reads it); Claude Code's says Claude sees it.
func TestAnACPRunsPopupSaysWhoReadsTheReason(t *testing.T) {
	for _, c := range []struct{ agent, want string }{
		{"", "Reason for denying (optional): Claude sees it"},
		{"codex", "Reason for denying (optional): kept on the run's record; codex may not see it"},
	} {
		h := newPopupHarness(t)
		req := bashRequest("1")
		req.Run.Agent = c.agent
		p, done := h.decide(context.Background(), control.ApprovalOf(req, req.Run.Name, req.Run.Prompt).Broker())
		if got := p.denyMessage.PlaceHolder; got != c.want {
			t.Errorf("agent %q: the reason's box says %q, want %q", c.agent, got, c.want)
		}
		test.Tap(p.deny)
		if d := decideResult(t, done); d.answer.Allow {
			t.Errorf("agent %q: Deny allowed", c.agent)
		}
	}
}
