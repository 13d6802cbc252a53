package app

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/test"
	"github.com/google/go-cmp/cmp"

	"github.com/segwi/segwi/control"
	"github.com/segwi/segwi/internal/testing/await"
	"github.com/segwi/segwi/runs"
)

// fakeApprover takes the run window's answers, as the tray does: the first answer to a
// request wins, a later one is refused.
type fakeApprover struct {
	mu       sync.Mutex
	answers  []control.Answer
	answered []string // the requests whose popups the window asked to close
}

func (f *fakeApprover) Answer(_ context.Context, a control.Answer) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	for _, b := range f.answers {
		if b.Request == a.Request {
			return errors.New("answering approval request " + a.Request + ": it no longer waits: it was answered already")
		}
	}
	f.answers = append(f.answers, a)
	return nil
}

func (f *fakeApprover) taken() []control.Answer {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]control.Answer(nil), f.answers...)
}

func (f *fakeApprover) closedPopups() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]string(nil), f.answered...)
}

// approvalHarness is a run window over a fake run, answering through a fakeApprover.
func approvalHarness(t *testing.T) (*runHarness, *fakeApprover) {
	f := &fakeApprover{}
	h := newRunHarness(t, 8, func(d *runWindowDeps) {
		d.approver = f
		d.answered = func(id string) { f.mu.Lock(); f.answered = append(f.answered, id); f.mu.Unlock() }
	})
	h.run.setInfo(func(i *runs.Info) { i.State, i.Waiting = runs.StateWaiting, runs.WaitApproval })
	ui(func() {
		h.w.info = h.run.Info()
		h.w.showHeader()
	})
	return h, f
}

// runApproval is a request of the harness's run that waits for the person.
func runApproval(id, command string, asked time.Time) control.Approval {
	input, _ := json.Marshal(map[string]string{"command": command, "description": "Clean and push"})
	return control.Approval{Request: id, Run: control.RunRef{ID: "20250314-092653-abcd", Kind: runs.KindBuild,
		Checkout: "/home/ada/src/web", Name: "Web shop", Prompt: "Fix the login form"},
		Tool: "Bash", Input: input, Asked: asked, Deadline: asked.Add(10 * time.Minute)}
}

// waits shows a in the harness's window, as the desk does.
func (h *runHarness) waits(a control.Approval) {
	view := viewOf(a.Broker())
	ui(func() { h.w.approvalWaits(a, view) })
}

// shownRequest is the request the window's approval panel shows, or "".
func (h *runHarness) shownRequest() string {
	var id string
	ui(func() {
		if p := h.w.approvals; p != nil && p.shown != nil && h.w.split != nil {
			id = p.shown.msg.Request
		}
	})
	return id
}

// answersSent is how many answers the window's approval panel has sent.
func (h *runHarness) answersSent() int {
	var n int
	ui(func() { n = h.w.approvals.answers })
	return n
}

// The run window shows the request of its run that waits, whole, as its popup does, and
// answers it by a click: Allow, Deny with the reason typed, Deny and stop the run. The
// answer goes to the tray as a popup's, named as this desktop's; the request's popup is
// told to close, and the next request of the run shows.
func TestTheRunWindowAnswersItsApprovalByMouse(t *testing.T) {
	h, f := approvalHarness(t)
	h.waits(runApproval("req-2", "git push --force origin main", runT0.Add(time.Minute)))
	h.waits(runApproval("req-1", "rm -rf build/", runT0)) // asked first: shown first
	h.waits(runApproval("req-3", "make release", runT0.Add(2*time.Minute)))
	if got := h.shownRequest(); got != "req-1" {
		t.Fatalf("the window shows %q, want the oldest request, req-1", got)
	}
	var status, more, command string
	ui(func() {
		status, more, command = h.w.status.Text, h.w.approvals.more.Text, h.w.approvals.panel.main.text()
	})
	if !strings.Contains(status, "answer the approval here or in its popup") || more != "2 more requests of this run wait after this one." || command != "rm -rf build/" {
		t.Errorf("status %q, more %q, command %q", status, more, command)
	}

	for i, step := range []struct {
		press  func(p *approvalPanel) *clickButton
		reason string
		want   control.Answer
	}{
		{func(p *approvalPanel) *clickButton { return p.allow }, "ignored when allowing",
			control.Answer{Request: "req-1", Decision: control.Allow, By: control.ByThisDesktop}},
		{func(p *approvalPanel) *clickButton { return p.deny }, "use the staging remote",
			control.Answer{Request: "req-2", Decision: control.Deny, Reason: "use the staging remote", By: control.ByThisDesktop}},
		{func(p *approvalPanel) *clickButton { return p.denyStop }, "",
			control.Answer{Request: "req-3", Decision: control.DenyAndStop, Reason: msgDeclined, By: control.ByThisDesktop}},
	} {
		var b *clickButton
		ui(func() {
			if step.reason != "" {
				test.Type(h.w.approvals.reason, step.reason)
			}
			b = step.press(h.w.approvals)
		})
		test.Tap(b)
		await.For(t, 10*time.Second, "the answer to be sent", func() error {
			if h.answersSent() == i+1 {
				return nil
			}
			var note string
			var sending bool
			ui(func() { note, sending = h.w.approvals.note.Text, h.w.approvals.sending })
			return fmt.Errorf("the note says %q, sending %v, disabled %v", note, sending, b.Disabled())
		})
		if got := f.taken(); len(got) != i+1 || !cmp.Equal(got[i], step.want) {
			t.Fatalf("the tray took %+v, want %+v last", got, step.want)
		}
		if got := f.closedPopups(); len(got) != i+1 || got[i] != step.want.Request {
			t.Errorf("the popups asked to close: %v, want %s last", got, step.want.Request)
		}
	}
	if got := h.shownRequest(); got != "" {
		t.Errorf("the window still shows %q once every request is answered", got)
	}
}

// pressShortcut presses s in win as Fyne's desktop driver does: the focused widget gets it
// when it takes shortcuts (an entry), the window otherwise.
func pressShortcut(win fyne.Window, s fyne.Shortcut) {
	ui(func() {
		c := win.Canvas()
		if f, ok := c.Focused().(fyne.Shortcutable); ok {
			f.TypedShortcut(s)
			return
		}
		c.(fyne.Shortcutable).TypedShortcut(s)
	})
}

// The run window answers by keyboard only on its chords (Ctrl+Shift+A, D or S, named on
// its buttons), wherever the focus is; no lone key answers: Enter in the follow-up box
// sends the follow-up, and Enter, Space or a letter in the reason box, on an answer
// button or on the JSON toggle answers nothing.
func TestTheRunWindowAnswersItsApprovalByKeyboard(t *testing.T) {
	h, f := approvalHarness(t)
	h.run.allowSend = true
	h.waits(runApproval("req-1", "rm -rf build/", runT0))
	h.waits(runApproval("req-2", "git push", runT0.Add(time.Minute)))
	var labels []string
	ui(func() {
		for _, b := range []*clickButton{h.w.approvals.allow, h.w.approvals.deny, h.w.approvals.denyStop} {
			labels = append(labels, b.Text)
		}
	})
	if want := []string{"Allow (Ctrl+Shift+A)", "Deny (Ctrl+Shift+D)", "Deny and stop the run (Ctrl+Shift+S)"}; !cmp.Equal(labels, want) {
		t.Errorf("the buttons say %q, want %q", labels, want)
	}

	t.Run("no lone key answers", func(t *testing.T) {
		c := h.w.win.Canvas()
		ui(func() { c.Focus(h.w.followUp) })
		test.Type(h.w.followUp, "and the docs")
		ui(func() { h.w.followUp.TypedKey(&fyne.KeyEvent{Name: fyne.KeyReturn}) })
		await.For(t, 10*time.Second, "the follow-up to be sent", func() bool { return len(h.run.sentTexts()) == 1 })
		// Every widget of the approval, and the boxes the person types into.
		var targets []fyne.Focusable
		ui(func() {
			p := h.w.approvals
			targets = []fyne.Focusable{h.w.followUp, p.reason, p.allow, p.deny, p.denyStop, p.panel.showJSON}
		})
		ui(func() {
			for _, fo := range targets {
				c.Focus(fo)
				for _, k := range []fyne.KeyName{fyne.KeyReturn, fyne.KeyEnter, fyne.KeySpace} {
					fo.TypedKey(&fyne.KeyEvent{Name: k})
				}
				for _, r := range " ayds" {
					fo.TypedRune(r)
				}
			}
		})
		// The buttons are reachable by Tab, and still answer only on a click or a chord.
		seen := map[fyne.Focusable]bool{}
		ui(func() {
			c.Focus(h.w.approvals.reason)
			for fo := c.Focused(); fo != nil && !seen[fo]; fo = c.Focused() {
				seen[fo] = true
				test.FocusNext(c)
			}
		})
		for _, b := range []*clickButton{h.w.approvals.allow, h.w.approvals.deny, h.w.approvals.denyStop} {
			if !seen[b] {
				t.Errorf("the focus never reached %q", b.Text)
			}
		}
		if got := f.taken(); len(got) != 0 || h.shownRequest() != "req-1" {
			t.Fatalf("keys answered %+v; want no answer", got)
		}
	})
	t.Run("Ctrl+Shift+D in the reason box denies with the reason", func(t *testing.T) {
		ui(func() {
			h.w.approvals.reason.SetText("")
			h.w.win.Canvas().Focus(h.w.approvals.reason)
		})
		test.Type(h.w.approvals.reason, "not on main")
		pressShortcut(h.w.win, denyShortcut)
		await.For(t, 10*time.Second, "the answer to be sent", func() bool { return h.answersSent() == 1 })
		want := control.Answer{Request: "req-1", Decision: control.Deny, Reason: "not on main", By: control.ByThisDesktop}
		if got := f.taken(); len(got) != 1 || !cmp.Equal(got[0], want) {
			t.Fatalf("the tray took %+v, want %+v", got, want)
		}
	})
	t.Run("Ctrl+Shift+A in the follow-up box allows the next one", func(t *testing.T) {
		await.For(t, 10*time.Second, "the next request to show", func() bool { return h.shownRequest() == "req-2" })
		ui(func() { h.w.win.Canvas().Focus(h.w.followUp) })
		pressShortcut(h.w.win, allowShortcut)
		await.For(t, 10*time.Second, "the answer to be sent", func() bool { return h.answersSent() == 2 })
		if got := f.taken(); len(got) != 2 || got[1].Request != "req-2" || got[1].Decision != control.Allow {
			t.Fatalf("the tray took %+v, want req-2 allowed last", got)
		}
	})
	t.Run("with the focus nowhere, Ctrl+Shift+S denies and stops", func(t *testing.T) {
		h.waits(runApproval("req-3", "make release", runT0.Add(2*time.Minute)))
		ui(func() { h.w.win.Canvas().Unfocus() })
		pressShortcut(h.w.win, denyStopShortcut)
		await.For(t, 10*time.Second, "the answer to be sent", func() bool { return h.answersSent() == 3 })
		if got := f.taken(); len(got) != 3 || got[2].Request != "req-3" || got[2].Decision != control.DenyAndStop {
			t.Fatalf("the tray took %+v, want req-3 denied and stopped last", got)
		}
	})
}

// A request answered elsewhere first (its popup, the phone) is refused by the tray: the
// window says so, and takes it away once the tray says it no longer waits.
func TestTheRunWindowSaysWhenAnotherAnswerCameFirst(t *testing.T) {
	h, f := approvalHarness(t)
	f.answers = []control.Answer{{Request: "req-1", Decision: control.Allow, By: "phone (ada@example.com)"}}
	h.waits(runApproval("req-1", "rm -rf build/", runT0))
	var allow *clickButton
	ui(func() { allow = h.w.approvals.allow })
	test.Tap(allow)
	await.For(t, 10*time.Second, "the refusal to be shown", func() bool { return h.answersSent() == 1 })
	var note string
	ui(func() { note = h.w.approvals.note.Text })
	if !strings.Contains(note, "Not sent:") || !strings.Contains(note, "answered already") {
		t.Errorf("the note says %q, want the tray's refusal", note)
	}
	ui(func() { h.w.approvalGone("req-1") })
	if got := h.shownRequest(); got != "" {
		t.Errorf("the window still shows %q once the tray says it no longer waits", got)
	}
}

// The layout of a run window with an approval waiting: the request above the timeline,
// its text view showing every character, the buttons naming their chords.
func TestTheRunWindowShowsAWaitingApproval(t *testing.T) {
	h, _ := approvalHarness(t)
	h.sendAndFlush(scriptedEvents()[:3]...)
	command := "rm -rf build-cache-that-does-not-exist-but-" + strings.Repeat("and-a-long-name-", 8) + "end"
	h.waits(runApproval("req-1", command, runT0.Add(4*time.Minute)))
	ui(func() {
		h.w.win.Resize(fyne.NewSize(820, 720)) // a run window's size when it opens
		h.w.showHeader()
	})
	if got := shownText(t, h.w.approvals.panel.main); got != command {
		t.Errorf("the window shows the command %q, want %q", got, command)
	}
	assertEveryCharacterInView(t, h.w.win, h.w.approvals.panel.main)
	assertMarkup(t, "runwindow_approval.xml", h.w.win.Canvas())
}

// The run window's approval panel, for an ACP run's request, says its agent may not see a
// deny's reason, as the popup does.
func TestTheRunWindowSaysWhoReadsAnACPRunsReason(t *testing.T) {
	h, _ := approvalHarness(t)
	a := runApproval("req-1", "make clean", runT0)
	a.Run.Agent = "codex"
	h.waits(a)
	var hint string
	ui(func() { hint = h.w.approvals.reason.PlaceHolder })
	if want := "Reason for denying (optional): kept on the run's record; codex may not see it"; hint != want {
		t.Errorf("the reason's box says %q, want %q", hint, want)
	}
}
