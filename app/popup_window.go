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
	timeLeft    *widget.Label
	input       *widget.Label
	inputScroll *container.Scroll
	diff        *widget.RichText  // an Edit, Write or NotebookEdit call's change; nil for other calls
	diffScroll  *container.Scroll // nil when diff is
	showJSON    *widget.Check     // shows the input's JSON instead of the change; nil when diff is
	denyMessage *widget.Entry
	allow       *clickButton
	deny        *clickButton
	denyStop    *clickButton

	mu       sync.Mutex
	settled  bool   // answered or withdrawn; the window is closing or closed
	timeText string // what timeLeft shows, readable from any goroutine
}

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

	heading := widget.NewLabelWithStyle(p.view.heading, fyne.TextAlignLeading, fyne.TextStyle{Bold: true})
	heading.Wrapping = fyne.TextWrapWord
	top := container.NewVBox(heading)
	if p.view.task != "" {
		task := widget.NewLabel(p.view.task)
		task.Truncation = fyne.TextTruncateEllipsis
		top.Add(task)
	}
	checkout := widget.NewLabel(p.view.checkout)
	checkout.Wrapping = fyne.TextWrapBreak
	top.Add(checkout)
	p.timeLeft = widget.NewLabel("")
	if p.view.description != "" {
		desc := widget.NewLabel("Why: " + p.view.description)
		desc.Wrapping = fyne.TextWrapWord
		top.Add(desc)
	}
	if p.view.note != "" {
		note := widget.NewLabelWithStyle(p.view.note, fyne.TextAlignLeading, fyne.TextStyle{Italic: true})
		note.Wrapping = fyne.TextWrapWord
		top.Add(note)
	}
	top.Add(p.timeLeft)

	p.input = widget.NewLabelWithStyle(p.view.input, fyne.TextAlignLeading, fyne.TextStyle{Monospace: true})
	p.input.Wrapping = fyne.TextWrapOff // breakLines broke its long lines
	p.inputScroll = container.NewScroll(p.input)
	p.inputScroll.SetMinSize(fyne.NewSize(560, 180))
	center := fyne.CanvasObject(p.inputScroll)
	caption := widget.NewLabel(p.view.caption)
	if p.view.change != nil {
		// The change, coloured, in a view that scrolls both ways (lines are not wrapped, so
		// that a diff reads as the file does); the JSON behind a toggle.
		caption.TextStyle.Bold = true
		p.diff = diffText(p.view.change)
		p.diffScroll = container.NewScroll(p.diff)
		p.diffScroll.SetMinSize(fyne.NewSize(560, 180))
		p.inputScroll.Hide()
		p.showJSON = widget.NewCheck("Show the input as JSON", func(on bool) {
			if on {
				p.diffScroll.Hide()
				p.inputScroll.Show()
			} else {
				p.inputScroll.Hide()
				p.diffScroll.Show()
			}
		})
		top.Add(container.NewBorder(nil, nil, nil, p.showJSON, caption))
		center = container.NewStack(p.diffScroll, p.inputScroll)
	} else {
		top.Add(caption)
	}

	// Enter in this entry submits nothing: OnSubmitted stays nil.
	p.denyMessage = widget.NewEntry()
	p.denyMessage.SetPlaceHolder(denyPlaceholder)

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
	bottom := container.NewVBox(p.denyMessage, answers, widget.NewSeparator(), stopRow)

	p.win = d.app.NewWindow(p.view.title)
	p.win.SetContent(container.NewBorder(top, bottom, nil, nil, center))
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
	text := timeLeftText(p.req.Deadline, p.decider.clock.Now())
	p.timeLeft.SetText(text)
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
