package app

import (
	"image/color"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/canvas"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"
)

// radioChoice is one choice among a few, drawn as radio buttons, that the keyboard reaches
// as a form's radio group is reached everywhere else: one Tab stop for the group, the
// arrow keys to move the choice. (Fyne's RadioGroup makes each option a Tab stop of its
// own, and no arrow key moves it: three Tabs to get past the kind of a run.) A click on an
// option chooses it. Esc and the form's shortcuts reach the form (keys).
type radioChoice struct {
	widget.BaseWidget
	Options   []string
	Selected  string
	OnChanged func(string)

	keys    formKeys
	focused bool
	rows    []*choiceRow
}

// newRadioChoice returns a choice among options, calling changed when it changes.
func newRadioChoice(options []string, keys formKeys, changed func(string)) *radioChoice {
	c := &radioChoice{Options: options, OnChanged: changed, keys: keys}
	c.ExtendBaseWidget(c)
	for _, o := range options {
		c.rows = append(c.rows, newChoiceRow(c, o))
	}
	return c
}

// SetSelected chooses option, calling OnChanged when that changes the choice.
func (c *radioChoice) SetSelected(option string) {
	if option == c.Selected {
		return
	}
	c.Selected = option
	c.Refresh()
	if c.OnChanged != nil {
		c.OnChanged(option)
	}
}

// move chooses the option by steps after (or before, for a negative by) the one chosen,
// stopping at the ends.
func (c *radioChoice) move(by int) {
	at := -1
	for i, o := range c.Options {
		if o == c.Selected {
			at = i
		}
	}
	next := min(max(at+by, 0), len(c.Options)-1)
	if at < 0 {
		next = 0
	}
	if len(c.Options) > 0 {
		c.SetSelected(c.Options[next])
	}
}

// FocusGained shows the focus on the choice.
func (c *radioChoice) FocusGained() {
	c.focused = true
	c.Refresh()
}

// FocusLost takes the focus's mark away.
func (c *radioChoice) FocusLost() {
	c.focused = false
	c.Refresh()
}

// TypedRune does nothing: a choice takes no text.
func (c *radioChoice) TypedRune(rune) {}

// TypedKey moves the choice with the arrow keys; Esc goes to the form.
func (c *radioChoice) TypedKey(ev *fyne.KeyEvent) {
	switch ev.Name {
	case fyne.KeyUp, fyne.KeyLeft:
		c.move(-1)
	case fyne.KeyDown, fyne.KeyRight:
		c.move(1)
	case fyne.KeyHome:
		c.move(-len(c.Options))
	case fyne.KeyEnd:
		c.move(len(c.Options))
	case fyne.KeyEscape:
		if c.keys.escape != nil {
			c.keys.escape()
		}
	}
}

// TypedShortcut passes the form's start shortcut (Ctrl+Enter) to the form.
func (c *radioChoice) TypedShortcut(s fyne.Shortcut) {
	if s.ShortcutName() == startShortcut.ShortcutName() && c.keys.start != nil {
		c.keys.start()
	}
}

// focus puts the window's focus on the choice, as a click on it does.
func (c *radioChoice) focus() {
	if cv := fyne.CurrentApp().Driver().CanvasForObject(c); cv != nil {
		cv.Focus(c)
	}
}

func (c *radioChoice) CreateRenderer() fyne.WidgetRenderer {
	objs := make([]fyne.CanvasObject, len(c.rows))
	for i, r := range c.rows {
		objs[i] = r
	}
	box := container.NewVBox(objs...)
	mark := canvas.NewRectangle(color.Transparent)
	return &radioChoiceRenderer{c: c, box: box, mark: mark}
}

type radioChoiceRenderer struct {
	c    *radioChoice
	box  *fyne.Container
	mark *canvas.Rectangle // the focus's mark around the chosen option
}

func (r *radioChoiceRenderer) Layout(size fyne.Size) {
	r.box.Resize(size)
	r.placeMark()
}

func (r *radioChoiceRenderer) MinSize() fyne.Size { return r.box.MinSize() }

func (r *radioChoiceRenderer) Objects() []fyne.CanvasObject {
	return []fyne.CanvasObject{r.mark, r.box}
}

func (r *radioChoiceRenderer) Refresh() {
	for _, row := range r.c.rows {
		row.Refresh()
	}
	r.placeMark()
	r.mark.FillColor = color.Transparent
	if r.c.focused {
		r.mark.FillColor = theme.Color(theme.ColorNameFocus)
	}
	r.mark.Refresh()
}

// placeMark puts the focus's mark behind the chosen option.
func (r *radioChoiceRenderer) placeMark() {
	r.mark.Hide()
	for _, row := range r.c.rows {
		if row.option == r.c.Selected {
			r.mark.Move(row.Position())
			r.mark.Resize(row.Size())
			r.mark.CornerRadius = theme.InputRadiusSize()
			r.mark.Show()
		}
	}
}

func (r *radioChoiceRenderer) Destroy() {}

// choiceRow is one option of a radioChoice: its radio icon and label. A click chooses it;
// it takes no focus of its own.
type choiceRow struct {
	widget.BaseWidget
	choice *radioChoice
	option string
	icon   *widget.Icon
	label  *widget.Label
}

func newChoiceRow(c *radioChoice, option string) *choiceRow {
	r := &choiceRow{choice: c, option: option, icon: widget.NewIcon(theme.RadioButtonIcon()), label: widget.NewLabel(option)}
	r.ExtendBaseWidget(r)
	return r
}

// Tapped chooses the row's option and focuses the choice.
func (r *choiceRow) Tapped(*fyne.PointEvent) {
	r.choice.SetSelected(r.option)
	r.choice.focus()
}

func (r *choiceRow) Refresh() {
	if r.choice.Selected == r.option {
		r.icon.SetResource(theme.NewPrimaryThemedResource(theme.RadioButtonCheckedIcon()))
	} else {
		r.icon.SetResource(theme.RadioButtonIcon())
	}
	r.BaseWidget.Refresh()
}

func (r *choiceRow) CreateRenderer() fyne.WidgetRenderer {
	return widget.NewSimpleRenderer(container.NewBorder(nil, nil, r.icon, nil, r.label))
}
