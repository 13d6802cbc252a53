package app

import (
	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"github.com/segwi/segwi/internal/lib/visible"
	"github.com/segwi/segwi/runs/record"
)

// Words of the reply banner and box, for a run whose agent a person calls agent ("Claude",
// or an ACP runtime's name: replyAgent).
func replyHead(agent string) string { return agent + " waits for your reply" }

func replyNoMessage(agent string) string {
	return "(" + agent + " said nothing this turn: its tools' output is in the timeline.)"
}

func replyPlaceholder(agent string) string { return "Your reply to " + agent + ": Enter sends it" }

// replyAgent is how the reply banner calls the agent of a run on runtime (record.Info.Runtime):
// Claude, or the ACP runtime's name.
func replyAgent(runtime string) string {
	if runtime == "" {
		return "Claude"
	}
	return visible.Escape(runtime)
}

// replyBanner shows, while the run waits for the person's reply, Claude's whole last
// message above the timeline and the reply box under it, focused: the question a run
// waits on, not its first line. Touched on Fyne's goroutine only.
type replyBanner struct {
	content  *fyne.Container // the banner: its head, the message, the reply box
	view     *proseView      // Claude's message, broken for the banner's width
	holder   *fyne.Container // where the reply box goes while the banner shows
	shown    bool
	wanted   bool   // the run waits for the reply: the banner shows unless the person reviews
	question string // the message shown
	agent    string // the run's agent, as the banner calls it (replyAgent)
}

// replyViewMin is the smallest size of the message's view: three lines, scrolling past them.
var replyViewMin = fyne.NewSize(360, 72)

// newReplyBanner is the reply banner of a run on runtime (record.Info.Runtime).
func newReplyBanner(runtime string) *replyBanner {
	b := &replyBanner{view: newProseView("", replyViewMin), holder: container.NewStack(), agent: replyAgent(runtime)}
	head := widget.NewLabelWithStyle("⚠ "+replyHead(b.agent), fyne.TextAlignLeading, fyne.TextStyle{Bold: true})
	b.content = container.NewBorder(head, b.holder, nil, nil, b.view)
	return b
}

// waitsForReply says whether info is a run that waits for the person's reply.
func waitsForReply(info record.Info) bool {
	return info.State == record.StateWaiting && info.Waiting == record.WaitReply
}

// showReply shows the reply banner with Claude's last message while the run waits for the
// person's reply, the reply box in it and focused, or takes it away and puts the reply
// box back under the timeline. While the person reviews the Changes tab the banner steps
// aside (the diff keeps the window's height and the keyboard) and comes back after.
// On Fyne's goroutine.
func (w *runWindow) showReply(on bool) {
	b := w.reply
	if b == nil {
		return
	}
	b.wanted = on
	on = on && !w.inReview
	if on {
		q := w.events.lastQuestion()
		if q == "" {
			q = replyNoMessage(b.agent)
		}
		if q != b.question {
			b.question = q
			b.view.setText(q)
		}
	}
	if on == b.shown {
		return
	}
	b.shown = on
	from, to := w.replyHome, b.holder
	if !on {
		from, to = b.holder, w.replyHome
	}
	from.Objects = nil
	from.Refresh()
	to.Objects = []fyne.CanvasObject{w.replyRow}
	to.Refresh()
	w.followUp.SetPlaceHolder(followUpPlaceholder)
	if on {
		w.followUp.SetPlaceHolder(replyPlaceholder(b.agent))
	}
	w.layoutCenter()
	if on && !w.followUp.Disabled() {
		w.win.Canvas().Focus(w.followUp)
	}
}

// The placeholder of the reply box while no reply is asked for.
const (
	followUpPlaceholder = "A follow-up message for the run"
)

// replyShare is the share of the window's middle the reply banner takes at most, and
// replyMinShare at least: the timeline keeps the rest.
const (
	replyShare    = 0.7
	replyMinShare = 0.3
)

// replyOffset is where the split between the reply banner and the timeline goes in a
// middle of size: low enough that the whole question shows when it fits in replyShare of
// it, the timeline keeping the rest. On Fyne's goroutine.
func (w *runWindow) replyOffset(size fyne.Size) float64 {
	b := w.reply
	if size.Height <= 0 || size.Width <= 0 {
		return 0.5
	}
	th := b.view.Theme()
	lines := breakProse(b.question, b.view.roomFor(size.Width), th.Size(theme.SizeNameText))
	lineH := fyne.MeasureText("Mg", th.Size(theme.SizeNameText), fyne.TextStyle{}).Height + th.Size(theme.SizeNameLineSpacing)
	text := (float32(len(lines))+0.5)*lineH + 2*th.Size(theme.SizeNameInnerPadding)
	rest := b.content.MinSize().Height - b.view.MinSize().Height // the head and the reply box
	need := float64((text + rest) / size.Height)
	return min(max(need, replyMinShare), replyShare)
}
