package app

import (
	"strings"
	"testing"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/canvas"
	"fyne.io/fyne/v2/test"

	"github.com/segwi/segwi/internal/testing/await"
	"github.com/segwi/segwi/runs"
)

// question is a question of Claude's longer than a line, in two paragraphs, as a run
// that waits for your reply asks it.
const question = "I fixed the login form: the handler no longer posts twice, and its tests cover a " +
	"double click, a slow network and an expired session. The README's section on running " +
	"the tests still names the old make target.\n\nShould I also update the README, or leave " +
	"the docs for a follow-up run?"

// waitForReply sends Claude's question and the turn's end, and the run waits for the
// person's reply.
func (h *runHarness) waitForReply(text string) {
	h.t.Helper()
	h.run.allowSend = true
	h.run.setInfo(func(i *runs.Info) { i.State, i.Waiting = runs.StateWaiting, runs.WaitReply })
	h.sendAndFlush(
		ev(runs.EventText, func(e *runs.Event) { e.Text = text }),
		ev(runs.EventResult, func(e *runs.Event) { e.Subtype = "success"; e.Result = &runs.ResultInfo{NumTurns: 2, CostUSD: 0.02} }),
	)
}

// A run that waits for your reply shows Claude's whole question above the timeline, the
// reply box under it with the keyboard in it; Enter sends the reply, and once the run goes
// on the banner goes and the box is back under the timeline.
func TestARunWaitingForYourReplyShowsTheWholeQuestion(t *testing.T) {
	h := newRunHarness(t, 64)
	h.waitForReply(question)

	var shown, inBanner, focused bool
	var text string
	onUIWait(func() {
		b := h.w.reply
		shown, text = b.shown, b.view.text
		inBanner = len(b.holder.Objects) == 1 && b.holder.Objects[0] == h.w.replyRow && len(h.w.replyHome.Objects) == 0
		focused = h.w.win.Canvas().Focused() == h.w.followUp
	})
	if !shown || text != question {
		t.Fatalf("the reply banner shows %v with %q; want it shown with the whole question %q", shown, text, question)
	}
	if !inBanner || !focused {
		t.Errorf("the reply box is in the banner: %v, and focused: %v; want both", inBanner, focused)
	}
	var rows []string
	onUIWait(func() {
		v := h.w.reply.view
		for _, o := range test.LaidOutObjects(v.rich) {
			if txt, ok := o.(*canvas.Text); ok && txt.Text != "" {
				rows = append(rows, txt.Text)
				if end := txt.Position().X + fyne.MeasureText(txt.Text, txt.TextSize, txt.TextStyle).Width; end > v.Size().Width {
					t.Errorf("the line %q ends at %.0f, past the banner's width %.0f", txt.Text, end, v.Size().Width)
				}
			}
		}
	})
	if len(rows) < 3 || strings.Join(strings.Fields(strings.Join(rows, " ")), " ") != strings.Join(strings.Fields(question), " ") {
		t.Errorf("the banner draws %q; want the whole question, broken into several lines at its width", rows)
	}
	assertMarkup(t, "runwindow_reply.xml", h.w.win.Canvas())

	// The person answers with the keyboard alone.
	onUIWait(func() {
		test.Type(h.w.followUp, "Yes, mention it in the README.")
		h.w.followUp.TypedKey(&fyne.KeyEvent{Name: fyne.KeyReturn})
	})
	await.For(t, 10*time.Second, "the reply to be sent", func() bool { return h.w.settled.Load() == 1 })
	if got := h.run.sentTexts(); len(got) != 1 || got[0] != "Yes, mention it in the README." {
		t.Errorf("sent %q, want the reply", got)
	}
	h.run.setInfo(func(i *runs.Info) { i.State, i.Waiting = runs.StateRunning, "" })
	h.sendAndFlush(ev(runs.EventPrompt, func(e *runs.Event) { e.Text = "Yes, mention it in the README." }))
	onUIWait(func() {
		if h.w.reply.shown || h.w.replySplit != nil || len(h.w.replyHome.Objects) != 1 {
			t.Errorf("once the run goes on, the banner shows %v and the reply box is under the timeline: %v; want the banner gone and the box back",
				h.w.reply.shown, len(h.w.replyHome.Objects) == 1)
		}
	})

	// The next turn asks again: the banner shows its question, not the last one.
	h.waitForReply("Done. Anything else?")
	onUIWait(func() {
		if got := h.w.reply.view.text; got != "Done. Anything else?" {
			t.Errorf("the second wait shows %q, want the new question", got)
		}
	})
}

// A question of 20,000 characters shows whole in the banner at once: the banner breaks it
// itself (Fyne's wrapping of a label that long took seconds).
func TestALongQuestionShowsQuickly(t *testing.T) {
	h := newRunHarness(t, 64)
	long := strings.Repeat("Each paragraph of this plan names a file and what changes in it. ", 300)
	start := time.Now()
	h.waitForReply(long)
	took := time.Since(start)
	var text string
	onUIWait(func() { text = h.w.reply.view.text })
	if text != long {
		t.Fatalf("the banner shows %d characters, want the whole %d", len(text), len(long))
	}
	t.Logf("a question of %d characters showed in the reply banner in %d ms", len(long), took.Milliseconds())
	if took > 5*time.Second {
		t.Errorf("the question took %v to show; want well under a second on a quiet machine", took)
	}
}

// Finish takes the banner away at once: no more follow-ups.
func TestFinishTakesTheReplyBannerAway(t *testing.T) {
	h := newRunHarness(t, 64)
	h.waitForReply(question)
	onUIWait(func() { test.Tap(h.w.finish) })
	onUIWait(func() {
		if h.w.reply.shown || !h.w.followUp.Disabled() {
			t.Errorf("after Finish the banner shows %v and the box is enabled %v; want neither", h.w.reply.shown, !h.w.followUp.Disabled())
		}
	})
}

// An ACP run that waits for your reply names its agent, not Claude, in the banner's head
// and the reply box.
func TestAnACPRunWaitingForYourReplyNamesItsAgent(t *testing.T) {
	info := harnessInfo()
	info.Runtime = "codex"
	h := newRunHarnessOf(t, info, 64)
	h.waitForReply("")
	var labels []string
	var hint, text string
	onUIWait(func() {
		labels = settingsLabels(h.w.reply.content)
		hint, text = h.w.followUp.PlaceHolder, h.w.reply.view.text
	})
	said := strings.Join(append(labels, hint, text), "\n")
	for _, want := range []string{"⚠ codex waits for your reply", "Your reply to codex: Enter sends it", "(codex said nothing this turn"} {
		if !strings.Contains(said, want) {
			t.Errorf("the banner says %q; want %q", said, want)
		}
	}
	if strings.Contains(said, "Claude") {
		t.Errorf("the banner of an ACP run names Claude: %q", said)
	}
}
