package app

import (
	"fmt"
	"strings"
	"sync/atomic"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/dialog"
	"fyne.io/fyne/v2/layout"
	"fyne.io/fyne/v2/storage"
	"fyne.io/fyne/v2/widget"

	"github.com/segwi/segwi/runs/record"
	"github.com/segwi/segwi/settings"
)

// runStarter starts runs; the core is one.
type runStarter interface {
	Start(spec record.Spec) (liveRun, error)
}

// Choices of the new run dialog.
const (
	kindBuildLabel = "Build: do a task"
	kindReadyLabel = "Ready: get the branch ready for review"
	kindAskLabel   = "Ask: answer a question, changing nothing"
	otherFolder    = "Another folder…"
	whereCheckout  = "In the checkout"
	whereWorktree  = "In a new worktree, on a branch of its own (runs side by side)"
)

var kindLabels = map[record.Kind]string{
	record.KindBuild: kindBuildLabel,
	record.KindReady: kindReadyLabel,
	record.KindAsk:   kindAskLabel,
}

// claudeRuntimeLabel is the built-in runtime in the dialog's runtime choice.
const claudeRuntimeLabel = "claude (Claude Code)"

// newRunDialog is the window that starts a run: kind, checkout, prompt, model and, when
// segwi.runtimes lists any, the runtime.
type newRunDialog struct {
	app     fyne.App
	starter runStarter
	repos   []settings.Repository
	opened  func(liveRun) // called on Fyne's goroutine with the run started

	win      fyne.Window
	kind     *radioChoice
	repo     *widget.Select
	where    *radioChoice // in the checkout or in a new worktree
	whereFor string       // the checkout whose default where shows
	folder   *formEntry
	browse   *widget.Button
	promptL  *widget.Label
	prompt   *formEntry
	model    *formEntry
	runtime  *widget.Select // the runtime, shown only when segwi.runtimes lists any; nil otherwise
	// cost, tokens and turns are the run's budget, the settings' to start with
	// (segwi.runs.budget); empty is no bound.
	cost, tokens, turns *formEntry
	settingsBudget      record.Budget // the settings' budget, which the fields start with
	problem             *widget.Label
	start               *widget.Button
	starting            bool
	closed              bool
	discard             dialog.Dialog // the question Esc asks with a task typed; nil when not shown
	answered            atomic.Int64  // Start calls answered, for tests
}

// newNewRunDialog builds the dialog for kind with the settings in force. On Fyne's goroutine.
func newNewRunDialog(a fyne.App, starter runStarter, s settings.Settings, kind record.Kind, opened func(liveRun)) *newRunDialog {
	d := &newRunDialog{app: a, starter: starter, repos: s.Repositories, opened: opened}

	d.kind = newRadioChoice([]string{kindBuildLabel, kindReadyLabel, kindAskLabel}, d.keys(), func(string) { d.changed() })

	names := make([]string, 0, len(d.repos)+1)
	for _, r := range d.repos {
		names = append(names, r.Name)
	}
	names = append(names, otherFolder)
	d.folder = newFormEntry(false, d.keys())
	d.folder.SetPlaceHolder("/path/to/a/git/checkout")
	d.folder.OnChanged = func(string) { d.changed() }
	d.browse = widget.NewButton("Choose…", d.chooseFolder)
	d.repo = widget.NewSelect(names, func(string) { d.changed() })
	d.where = newRadioChoice([]string{whereCheckout, whereWorktree}, d.keys(), func(string) {})

	d.promptL = widget.NewLabel("")
	d.prompt = newFormEntry(true, d.keys())
	d.prompt.SetMinRowsVisible(6)
	d.prompt.Wrapping = fyne.TextWrapWord
	d.prompt.OnChanged = func(string) { d.changed() }

	d.model = newFormEntry(false, d.keys())
	d.model.SetText(s.Claude.Model)
	d.model.SetPlaceHolder("Claude Code's default model")

	d.cost, d.tokens, d.turns = newFormEntry(false, d.keys()), newFormEntry(false, d.keys()), newFormEntry(false, d.keys())
	d.cost.SetPlaceHolder("$ cost")
	d.tokens.SetPlaceHolder("tokens")
	d.turns.SetPlaceHolder("turns")
	d.settingsBudget = record.Budget{CostUSD: s.Runs.Budget.Cost, Tokens: s.Runs.Budget.Tokens, Turns: s.Runs.Budget.Turns}
	if b := s.Runs.Budget; b.Cost > 0 {
		d.cost.SetText(strings.TrimPrefix(record.CostText(b.Cost), "$"))
	}
	if b := s.Runs.Budget; b.Tokens > 0 {
		d.tokens.SetText(fmt.Sprint(b.Tokens))
	}
	if b := s.Runs.Budget; b.Turns > 0 {
		d.turns.SetText(fmt.Sprint(b.Turns))
	}

	d.problem = widget.NewLabel("")
	d.problem.Wrapping = fyne.TextWrapWord
	d.problem.Importance = widget.DangerImportance
	d.start = widget.NewButton("Start", d.startRun)
	d.start.Importance = widget.HighImportance
	cancel := widget.NewButton("Cancel", func() { d.win.Close() })

	form := container.NewVBox(
		widget.NewLabel("Kind"), d.kind,
		widget.NewLabel("Checkout"), d.repo,
		container.NewBorder(nil, nil, nil, d.browse, d.folder),
		d.where,
		d.promptL,
	)
	// The budget beside the model, on the same lines: the task box keeps its height.
	bottomObjs := []fyne.CanvasObject{
		container.NewGridWithColumns(2, widget.NewLabel("Model"), widget.NewLabel(budgetLabel)),
		container.NewGridWithColumns(2, d.model, container.NewGridWithColumns(3, d.cost, d.tokens, d.turns)),
	}
	if len(s.Runtimes) > 0 {
		names := []string{claudeRuntimeLabel}
		for _, r := range s.Runtimes {
			names = append(names, r.Name)
		}
		d.runtime = widget.NewSelect(names, nil)
		d.runtime.SetSelected(claudeRuntimeLabel)
		bottomObjs = append(bottomObjs, widget.NewLabel("Runtime"), d.runtime)
	}
	bottom := container.NewVBox(append(bottomObjs,
		d.problem,
		container.NewBorder(nil, nil, container.NewHBox(cancel, d.start), nil, container.NewCenter(keysHint(newRunKeys))),
	)...)
	d.win = a.NewWindow("segwi: new run")
	// The objects in reading order, which is the order Tab moves through them.
	d.win.SetContent(container.New(layout.NewBorderLayout(form, bottom, nil, nil), form, d.prompt, bottom))
	d.win.Resize(fyne.NewSize(640, 560))
	d.win.SetOnClosed(func() { d.closed = true })
	keys := d.keys()
	d.win.Canvas().AddShortcut(startShortcut, func(fyne.Shortcut) { keys.start() })
	d.win.Canvas().SetOnTypedKey(func(ev *fyne.KeyEvent) {
		if ev.Name == fyne.KeyEscape {
			keys.escape()
		}
	})

	// Set the kind and the checkout last: their callbacks validate the whole form.
	if len(d.repos) > 0 {
		d.repo.SetSelected(d.repos[0].Name)
	} else {
		d.repo.SetSelected(otherFolder)
	}
	d.kind.SetSelected(kindLabels[kind])
	return d
}

// Show shows and focuses the dialog, with the cursor in the task box.
func (d *newRunDialog) Show() {
	d.win.Show()
	d.win.RequestFocus()
	d.win.Canvas().Focus(d.prompt)
}

// newRunKeys says which keys do what in the dialog.
const newRunKeys = "Ctrl+Enter starts · Esc closes · Tab moves on · ↑↓ change the kind"

// keys are what the dialog's keys do: Ctrl+Enter starts the run, Esc closes the dialog
// (asking first when a task is typed).
func (d *newRunDialog) keys() formKeys {
	return formKeys{start: func() {
		if !d.start.Disabled() {
			d.startRun()
		}
	}, escape: d.escape}
}

// escape closes the dialog on Esc; with a task typed it asks first, as a slip of the key
// would lose it. Esc again while it asks is "Keep editing".
func (d *newRunDialog) escape() {
	if d.discard != nil {
		d.discard.Hide()
		return
	}
	if strings.TrimSpace(d.prompt.Text) == "" {
		d.win.Close()
		return
	}
	c := dialog.NewConfirm("Discard what you typed?", "Esc closes this window, and what you typed for the run is lost.",
		func(ok bool) {
			if ok {
				d.win.Close()
			}
		}, d.win)
	c.SetConfirmText("Discard and close")
	c.SetDismissText("Keep editing")
	c.SetConfirmImportance(widget.DangerImportance)
	c.SetOnClosed(func() {
		d.discard = nil
		if !d.closed {
			d.win.Canvas().Focus(d.prompt)
		}
	})
	d.discard = c
	c.Show()
}

// selectedKind returns the chosen kind.
func (d *newRunDialog) selectedKind() record.Kind {
	for k, l := range kindLabels {
		if l == d.kind.Selected {
			return k
		}
	}
	return record.KindBuild
}

// selectedWhere returns where the run is to work: the choice, or, for an ask run (which
// changes nothing) and for the checkout when it is the repository's default, as the
// repository says (the checkout).
func (d *newRunDialog) selectedWhere() record.Where {
	switch {
	case d.selectedKind() == record.KindAsk:
		return record.WhereDefault
	case d.where.Selected == whereWorktree:
		return record.WhereWorktree
	case d.worktreeDefault():
		return record.WhereCheckout
	}
	return record.WhereDefault
}

// worktreeDefault says whether the chosen repository makes a new worktree its runs' default.
func (d *newRunDialog) worktreeDefault() bool {
	for _, r := range d.repos {
		if r.Name == d.repo.Selected {
			return r.Worktree
		}
	}
	return false
}

// showWhere shows the chosen repository's default place (segwi.repositories[].worktree)
// when the checkout changes, and the choice only for the kinds that change files.
func (d *newRunDialog) showWhere() {
	if co := d.checkout(); co != d.whereFor {
		d.whereFor = co
		choice := whereCheckout
		if d.worktreeDefault() {
			choice = whereWorktree
		}
		d.where.SetSelected(choice)
	}
	if d.selectedKind() == record.KindAsk {
		d.where.Hide()
	} else {
		d.where.Show()
	}
}

// checkout returns the chosen folder: a configured repository's, or the typed one.
func (d *newRunDialog) checkout() string {
	for _, r := range d.repos {
		if r.Name == d.repo.Selected {
			return r.Path
		}
	}
	return strings.TrimSpace(d.folder.Text)
}

// changed brings the form in line with the choices and shows what is wrong.
func (d *newRunDialog) changed() {
	if d.start == nil {
		return // still building
	}
	if d.repo.Selected == otherFolder {
		d.folder.Enable()
		d.browse.Enable()
	} else {
		d.folder.Disable()
		d.browse.Disable()
	}
	d.showWhere()
	switch d.selectedKind() {
	case record.KindAsk:
		d.promptL.SetText("Question")
	case record.KindReady:
		d.promptL.SetText("Notes for the run (optional)")
	default:
		d.promptL.SetText("Task")
	}
	if d.starting {
		return
	}
	if msg := validateNewRun(d.selectedKind(), d.checkout(), d.prompt.Text); msg != "" {
		d.say(msg)
		d.start.Disable()
		return
	}
	d.say("")
	d.start.Enable()
}

// say shows msg under the form: what is still to fill in (msgNoCheckout and the like) as a
// plain hint, since nothing is wrong with a form not yet filled, and anything else as an
// error.
func (d *newRunDialog) say(msg string) {
	switch msg {
	case msgNoCheckout, msgNoTask, msgNoQuestion, msgStarting:
		d.problem.Importance = widget.MediumImportance
	default:
		d.problem.Importance = widget.DangerImportance
	}
	d.problem.SetText(msg)
}

// Messages of the new run dialog's validation. A folder a run cannot start in is said in
// record.CheckoutDir's words, the ones segwi run and the core refuse it with.
const (
	msgNoCheckout = "Choose a checkout: one of your repositories, or a folder."
	msgNoTask     = "Write the task for the run."
	msgNoQuestion = "Write your question."
	msgStarting   = "Starting…"
)

// validateNewRun says what keeps a run from starting, in words for the dialog; "" when
// nothing does.
func validateNewRun(kind record.Kind, checkout, prompt string) string {
	if checkout == "" {
		return msgNoCheckout
	}
	if _, err := record.CheckoutDir(checkout); err != nil {
		return err.Error()
	}
	if strings.TrimSpace(prompt) == "" {
		switch kind {
		case record.KindBuild:
			return msgNoTask
		case record.KindAsk:
			return msgNoQuestion
		}
	}
	return ""
}

// chooseFolder opens a folder picker for the checkout.
func (d *newRunDialog) chooseFolder() {
	fd := dialog.NewFolderOpen(func(u fyne.ListableURI, err error) {
		if err != nil {
			d.say("Could not choose the folder: " + err.Error())
			return
		}
		if u != nil {
			d.folder.SetText(u.Path())
		}
	}, d.win)
	if dir := strings.TrimSpace(d.folder.Text); dir != "" {
		if l, err := storage.ListerForURI(storage.NewFileURI(dir)); err == nil {
			fd.SetLocation(l)
		}
	}
	fd.Resize(fyne.NewSize(600, 480))
	fd.Show()
}

// startRun starts the run off Fyne's goroutine (the core may ask the keyring); on success
// the dialog closes and the run's window opens, saying when it has to queue.
func (d *newRunDialog) startRun() {
	spec := record.Spec{
		Kind:     d.selectedKind(),
		Checkout: d.checkout(),
		Prompt:   strings.TrimSpace(d.prompt.Text),
		Model:    strings.TrimSpace(d.model.Text),
		KeepOpen: true, // a desktop run stays open for follow-ups until the person ends it
		Where:    d.selectedWhere(),
	}
	if d.runtime != nil && d.runtime.Selected != claudeRuntimeLabel {
		spec.Runtime = d.runtime.Selected
	}
	if msg := validateNewRun(spec.Kind, spec.Checkout, spec.Prompt); msg != "" {
		d.say(msg)
		return
	}
	budget, err := d.budget()
	if err != nil {
		d.say("The budget: " + err.Error())
		return
	}
	if budget != d.settingsBudget {
		spec.Budget = &budget // else the settings' budget, as the run's start finds them
	}
	if d.starting {
		return
	}
	d.starting = true
	d.start.Disable()
	d.say(msgStarting)
	go func() {
		run, err := d.starter.Start(spec)
		onUI(func() {
			defer d.answered.Add(1)
			d.starting = false
			if err != nil {
				d.say("The run did not start: " + err.Error())
				d.start.Enable()
				return
			}
			if !d.closed {
				d.win.Close()
			}
			if d.opened != nil {
				d.opened(run)
			}
		})
	}()
}

// budgetLabel heads the budget's fields in the new-run dialog.
const budgetLabel = "Budget (empty: no bound)"

// budget is the run's budget the dialog's fields say: each field the whole bound, empty
// or 0 for none.
func (d *newRunDialog) budget() (record.Budget, error) {
	var b record.Budget
	var err error
	if t := strings.TrimSpace(d.cost.Text); t != "" {
		if b.CostUSD, err = record.ParseBudgetCost(t); err != nil {
			return b, err
		}
	}
	if t := strings.TrimSpace(d.tokens.Text); t != "" {
		if b.Tokens, err = record.ParseBudgetCount(t); err != nil {
			return b, err
		}
	}
	if t := strings.TrimSpace(d.turns.Text); t != "" {
		n, err := record.ParseBudgetCount(t)
		if err != nil {
			return b, err
		}
		if n > settings.MaxBudgetTurns {
			return b, fmt.Errorf("%d turns is more than %d", n, settings.MaxBudgetTurns)
		}
		b.Turns = int(n)
	}
	return b, nil
}
