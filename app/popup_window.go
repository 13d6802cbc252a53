package app

import (
	"sync"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/layout"
	"fyne.io/fyne/v2/widget"

	"github.com/segwi/segwi/approvals"
)

// popup is the window of one pending request. Its widgets are touched on Fyne's goroutine
// only; answers leaves it through a channel that Decide reads.
type popup struct {
	decider *PopupDecider
	req     approvals.Request
	view    requestView
	answers chan approvals.Answer // buffered: holds the one answer

	step        int // its place in the cascade of open popups: 0 where a window opens, 1 a step down and right, ...
	win         fyne.Window
	panel       *requestPanel
	denyMessage *widget.Entry
	allow       *clickButton
	deny        *clickButton
	denyStop    *clickButton

	mu       sync.Mutex
	settled  bool   // answered or withdrawn; the window is closing or closed
	timeText string // what the countdown shows, readable from any goroutine
}

// popupViewMin is the smallest size of a popup's text view.
var popupViewMin = fyne.NewSize(560, 180)

// newPopup builds the window for req, showing view (viewOf(req), worked out off Fyne's
// goroutine), not yet shown, at place step of the cascade. On Fyne's goroutine.
func newPopup(d *PopupDecider, req approvals.Request, view requestView, step int) *popup {
	p := &popup{
		decider: d,
		req:     req,
		view:    view,
		answers: make(chan approvals.Answer, 1),
		step:    step,
	}
	p.panel = newRequestPanel(view, popupViewMin, false)

	// Enter in this entry submits nothing: OnSubmitted stays nil.
	p.denyMessage = widget.NewEntry()
	p.denyMessage.SetPlaceHolder(denyPlaceholder(req.Run.Agent))

	p.allow = newClickButton("Allow", widget.HighImportance, func() {
		p.answer(approvals.Answer{Allow: true})
	})
	p.deny = newClickButton("Deny", widget.MediumImportance, func() {
		p.answer(approvals.Answer{Message: denyMessage(p.denyMessage.Text)})
	})
	p.denyStop = newClickButton("Deny and stop the run", widget.DangerImportance, func() {
		p.answer(approvals.Answer{Interrupt: true, Message: denyMessage(p.denyMessage.Text)})
	})
	// Allow, the primary choice, at the right of the answers' row; Deny and stop the run
	// apart, under a rule at the other side, so that no slip of the mouse from Allow
	// lands on it.
	answers := container.NewHBox(layout.NewSpacer(), p.deny, p.allow)
	stopRow := container.NewHBox(p.denyStop, widget.NewLabel(stopRunText))
	hint := keysHint(popupKeys)
	hint.Wrapping = fyne.TextWrapWord
	// The keys line goes above the answers, so that Allow keeps its place at the popup's
	// foot whatever the line's wrapping: a hand reaching for it finds it where it was.
	bottom := container.NewVBox(p.panel.foot, p.denyMessage, hint, answers, widget.NewSeparator(), stopRow)

	p.win = d.app.NewWindow(p.view.title)
	p.win.SetContent(container.NewBorder(p.panel.top, bottom, nil, nil, p.panel.center))
	// The close button denies: see PopupDecider. When the popup closes itself it has
	// settled first, and this answer is dropped.
	p.win.SetOnClosed(func() {
		if p.settle() {
			p.send(approvals.Answer{Message: msgWindowClosed})
			p.decider.forget(p) // the window is closing already
		}
	})
	p.showTimeLeft()
	return p
}

// popupKeys says which keys do what in a popup: none answers it, so that a person typing
// elsewhere when it grabs the focus answers nothing by accident; its run's window has the
// chords that do.
var popupKeys = "No key answers here: click. Tab reaches the reason box. In the run's window " +
	shortcutLabel(allowShortcut) + " allows, " + shortcutLabel(denyShortcut) + " denies, " +
	shortcutLabel(denyStopShortcut) + " denies and stops the run."

// stopRunText says what the destructive button does, beside it.
const stopRunText = "denies this and stops the whole run"

// answer settles the request with a, as the person's, and closes the popup. On Fyne's
// goroutine; it does nothing once the popup has settled.
func (p *popup) answer(a approvals.Answer) {
	if p.settle() {
		p.send(a)
		p.close()
	}
}

// send hands a, as the person's answer, to Decide. It never blocks: answers holds one
// answer, and a settled popup sends only once.
func (p *popup) send(a approvals.Answer) {
	a.By = approvals.ByPerson
	p.answers <- a
}

// withdraw closes the popup without an answer: its request went away. On Fyne's goroutine.
func (p *popup) withdraw() {
	if p.settle() {
		p.close()
	}
}

// settle marks the popup settled and reports whether it was not settled before.
func (p *popup) settle() bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.settled {
		return false
	}
	p.settled = true
	return true
}

func (p *popup) close() {
	p.decider.forget(p)
	p.win.Close()
}

// raise shows the popup's window and asks for the focus. On Fyne's goroutine.
func (p *popup) raise() {
	p.win.Show()
	p.win.RequestFocus()
}

// showTimeLeft refreshes the countdown to the request's deadline. On Fyne's goroutine.
func (p *popup) showTimeLeft() {
	text := timeLeftText(p.req.Deadline, p.decider.clock.Now(), p.req.RunEnds)
	p.panel.timeLeft.SetText(text)
	p.mu.Lock()
	p.timeText = text
	p.mu.Unlock()
}

// shownTimeLeft returns what the countdown shows. Safe from any goroutine.
func (p *popup) shownTimeLeft() string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.timeText
}

// clickButton is a button that only a pointer can press. A focused widget.Button presses
// on Space, so a person typing elsewhere when a popup grabs the focus, or tabbing through
// it, could approve a call by accident; a clickButton ignores every key.
type clickButton struct {
	widget.Button
}

func newClickButton(label string, importance widget.Importance, tapped func()) *clickButton {
	b := &clickButton{}
	b.Text = label
	b.Importance = importance
	b.OnTapped = tapped
	b.ExtendBaseWidget(b)
	return b
}

// TypedKey ignores the key: a clickButton is pressed by a click only.
func (b *clickButton) TypedKey(*fyne.KeyEvent) {}

// TypedRune ignores the rune: a clickButton is pressed by a click only.
func (b *clickButton) TypedRune(rune) {}
