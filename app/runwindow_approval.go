package app

import (
	"context"
	"fmt"
	"slices"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/driver/desktop"
	"fyne.io/fyne/v2/layout"
	"fyne.io/fyne/v2/widget"

	"github.com/segwi/segwi/control"
)

// The run window's keys for the approval it shows: each a chord of Ctrl, Shift and a
// letter, never a lone key (Enter sends the follow-up message), so that nothing typed into
// the follow-up box or the reason answers by accident. Each button says its chord.
var (
	allowShortcut    = &desktop.CustomShortcut{KeyName: fyne.KeyA, Modifier: fyne.KeyModifierControl | fyne.KeyModifierShift}
	denyShortcut     = &desktop.CustomShortcut{KeyName: fyne.KeyD, Modifier: fyne.KeyModifierControl | fyne.KeyModifierShift}
	denyStopShortcut = &desktop.CustomShortcut{KeyName: fyne.KeyS, Modifier: fyne.KeyModifierControl | fyne.KeyModifierShift}
)

// shortcutLabel is a shortcut as a button names it: "Ctrl+Shift+A".
func shortcutLabel(s *desktop.CustomShortcut) string {
	return "Ctrl+Shift+" + string(s.KeyName)
}

// approver sends the tray a person's answer to a request, as a popup's is sent; the first
// answer wins, and a later one is refused with the tray's words.
type approver interface {
	Answer(ctx context.Context, a control.Answer) error
}

// waitingApproval is a request of the window's run that waits for the person, and its view.
type waitingApproval struct {
	msg  control.Approval
	view requestView
}

// approvalPanel shows, in a run window, the oldest request of its run that waits for the
// person, whole (the one view a popup shows), and answers it: Allow, Deny with the reason
// typed, or Deny and stop the run, by a click or by their chords. The answer goes to the
// tray as a popup's does, and the request's popup closes. Touched on Fyne's goroutine only.
type approvalPanel struct {
	w       *runWindow
	waiting []waitingApproval // oldest first
	shown   *waitingApproval  // the request on screen; nil when none waits
	sending bool

	content  *fyne.Container // the panel's widgets, for the one request shown
	panel    *requestPanel
	reason   *keyEntry
	allow    *clickButton
	deny     *clickButton
	denyStop *clickButton
	more     *widget.Label // how many more requests of the run wait
	note     *widget.Label // what became of the answer
	answers  int           // answers sent, for tests
}

// runApprovalViewMin is the smallest size of the request's text view in a run window.
var runApprovalViewMin = fyne.NewSize(360, 80)

func newApprovalPanel(w *runWindow) *approvalPanel {
	return &approvalPanel{w: w, content: container.NewStack()}
}

// approvalWaits shows a, a request of the window's run that waits for the person, with its
// view v worked out off Fyne's goroutine; the oldest request shows first. On Fyne's
// goroutine.
func (w *runWindow) approvalWaits(a control.Approval, v requestView) {
	p := w.approvals
	if p == nil || slices.ContainsFunc(p.waiting, func(x waitingApproval) bool { return x.msg.Request == a.Request }) {
		return
	}
	// The run window names the run in its header: the request's own lines about it go.
	v.task, v.checkout = "", ""
	p.waiting = append(p.waiting, waitingApproval{a, v})
	slices.SortStableFunc(p.waiting, func(x, y waitingApproval) int { return x.msg.Asked.Compare(y.msg.Asked) })
	p.showFirst()
}

// approvalGone takes away request id, which no longer waits (answered here or elsewhere,
// timed out, its run ended), and shows the next one. On Fyne's goroutine.
func (w *runWindow) approvalGone(id string) {
	p := w.approvals
	if p == nil {
		return
	}
	p.waiting = slices.DeleteFunc(p.waiting, func(x waitingApproval) bool { return x.msg.Request == id })
	p.showFirst()
}

// showFirst shows the oldest waiting request, or takes the panel away when none waits.
func (p *approvalPanel) showFirst() {
	if len(p.waiting) == 0 {
		p.shown = nil
		p.w.showApprovalPanel(false)
		return
	}
	first := p.waiting[0] // a copy: the list changes under it
	if p.shown == nil || p.shown.msg.Request != first.msg.Request {
		p.build(&first)
	}
	p.shown = &first
	p.more.SetText(moreWaiting(len(p.waiting) - 1))
	p.showTimeLeft()
	p.w.showApprovalPanel(true)
}

func moreWaiting(n int) string {
	switch n {
	case 0:
		return ""
	case 1:
		return "1 more request of this run waits after this one."
	}
	return fmt.Sprintf("%d more requests of this run wait after this one.", n)
}

// build makes the panel's widgets for wa.
func (p *approvalPanel) build(wa *waitingApproval) {
	p.sending = false
	p.panel = newRequestPanel(wa.view, runApprovalViewMin, true)
	p.reason = newKeyEntry(p.w.typedShortcut)
	p.reason.SetPlaceHolder(denyPlaceholder(wa.msg.Run.Agent))
	p.allow = newClickButton("Allow ("+shortcutLabel(allowShortcut)+")", widget.HighImportance, func() { p.answer(control.Allow) })
	p.deny = newClickButton("Deny ("+shortcutLabel(denyShortcut)+")", widget.MediumImportance, func() { p.answer(control.Deny) })
	p.denyStop = newClickButton("Deny and stop the run ("+shortcutLabel(denyStopShortcut)+")", widget.DangerImportance,
		func() { p.answer(control.DenyAndStop) })
	p.more = widget.NewLabel("")
	p.note = widget.NewLabel("")
	p.note.Wrapping = fyne.TextWrapWord
	p.note.Hide() // until an answer has something to say
	// As in a popup: Allow, the primary choice, at the right; Deny and stop apart, under a
	// rule at the other side.
	answers := container.NewBorder(nil, nil, nil, container.NewHBox(p.deny, p.allow), p.reason)
	stopRow := container.NewHBox(p.denyStop, widget.NewLabel(stopRunText), layout.NewSpacer(), p.more)
	bottom := container.NewVBox(p.panel.foot, answers, p.note, widget.NewSeparator(), stopRow)
	p.content.Objects = []fyne.CanvasObject{container.NewBorder(p.panel.top, bottom, nil, nil, p.panel.center)}
	p.content.Refresh()
}

// showTimeLeft refreshes the countdown of the request shown. On Fyne's goroutine.
func (p *approvalPanel) showTimeLeft() {
	if p.shown != nil {
		p.panel.timeLeft.SetText(timeLeftText(p.shown.msg.Deadline, p.w.deps.now(), p.shown.msg.RunEnds))
	}
}

// answer sends the person's answer to the request shown, off Fyne's goroutine, and takes
// the request away once the tray has it; a refusal (answered elsewhere first) is shown.
func (p *approvalPanel) answer(d control.Decision) {
	if p.shown == nil || p.sending || p.w.deps.approver == nil {
		return
	}
	a := control.Answer{Request: p.shown.msg.Request, Decision: d, By: control.ByThisDesktop}
	if d != control.Allow {
		a.Reason = denyMessage(p.reason.Text)
	}
	p.sending = true
	for _, b := range []*clickButton{p.allow, p.deny, p.denyStop} {
		b.Disable()
	}
	p.note.SetText("Sending your answer…")
	p.note.Show()
	approver, answered := p.w.deps.approver, p.w.deps.answered
	go func() {
		ctx, cancel := context.WithTimeout(context.Background(), commandTimeout)
		defer cancel()
		err := approver.Answer(ctx, a)
		onUI(func() {
			defer func() { p.answers++ }()
			if p.shown == nil || p.shown.msg.Request != a.Request {
				return // it went away meanwhile
			}
			p.sending = false
			if err != nil {
				p.note.SetText("Not sent: " + err.Error())
				for _, b := range []*clickButton{p.allow, p.deny, p.denyStop} {
					b.Enable()
				}
				return
			}
			if answered != nil {
				answered(a.Request) // its popup closes
			}
			p.w.approvalGone(a.Request)
		})
	}()
}

// typedShortcut answers the request shown on its chords, wherever the focus is in the run
// window, and reports whether s was one of them. On Fyne's goroutine.
func (w *runWindow) typedShortcut(s fyne.Shortcut) bool {
	decisions := map[string]control.Decision{
		allowShortcut.ShortcutName():    control.Allow,
		denyShortcut.ShortcutName():     control.Deny,
		denyStopShortcut.ShortcutName(): control.DenyAndStop,
	}
	d, ok := decisions[s.ShortcutName()]
	if ok && w.approvals != nil {
		w.approvals.answer(d)
	}
	return ok
}

// showApprovalPanel shows the approval panel above the timeline, or takes it away.
func (w *runWindow) showApprovalPanel(on bool) {
	if on == w.approvalShown {
		return
	}
	w.approvalShown = on
	w.layoutCenter()
}

// layoutCenter puts above the timeline what waits for the person: the approval its run
// waits for, else the reply banner while it waits for your reply, else nothing. On
// Fyne's goroutine.
func (w *runWindow) layoutCenter() {
	w.split, w.replySplit = nil, nil
	switch {
	case w.approvalShown:
		w.split = container.NewVSplit(w.approvals.content, w.tabs)
		w.split.Offset = 0.65
		w.center.Objects = []fyne.CanvasObject{w.split}
	case w.reply != nil && w.reply.shown:
		w.replySplit = container.NewVSplit(w.reply.content, w.tabs)
		w.replySplit.Offset = w.replyOffset(w.center.Size())
		w.center.Objects = []fyne.CanvasObject{w.replySplit}
	default:
		w.center.Objects = []fyne.CanvasObject{w.tabs}
	}
	w.center.Refresh()
}
