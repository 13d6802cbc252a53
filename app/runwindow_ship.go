package app

import (
	"context"
	"fmt"
	"net/url"
	"strings"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/dialog"
	"fyne.io/fyne/v2/widget"

	"github.com/segwi/segwi/approvals"
	"github.com/segwi/segwi/control"
	"github.com/segwi/segwi/internal/lib/visible"
	"github.com/segwi/segwi/runs/record"
)

// shipper does what the run window offers once a run has ended, beyond the push: the
// tray does it (trayLink), with the person's git identity and the keyring's token. The
// rules (an ask run ships nothing, the files changed before the run stay out unless
// named, the pull request goes against the default branch) are the tray's, not the
// window's.
type shipper interface {
	// Commit commits the ended run's uncommitted changes as the person and says what it
	// committed.
	Commit(ctx context.Context, runID string, opts record.CommitOptions) (record.Committed, error)
	// OpenPullRequest opens a pull request for the branch last pushed for the run,
	// against the repository's default branch, records it on the run and returns its URL.
	OpenPullRequest(ctx context.Context, runID, title, body string) (string, error)
	// Continue starts a run that resumes the ended run's Claude Code session with prompt.
	Continue(ctx context.Context, runID, prompt string) (liveRun, error)
}

// shipTimeout bounds a commit and a pull request's opening.
const shipTimeout = 2 * time.Minute

// shipForm is a dialog of the run window: its fields and its buttons, for the tests.
type shipForm struct {
	dlg      dialog.Dialog
	entry    *formEntry // the commit message, the pull request's title, the prompt
	body     *formEntry // the pull request's body
	included []*widget.Check
	ok       *widget.Button
	cancel   *widget.Button
	// needsText keeps ok off while entry is blank: the dialog stays open, rather than
	// closing and then saying that nothing was done.
	needsText bool
}

// newShipForm shows a dialog titled title over the window, with content above its two
// buttons, the cursor in its first field; ok is called when the person confirms (the
// button, or Ctrl+Enter in a field), Esc in a field cancels.
func (w *runWindow) newShipForm(title, okText string, content fyne.CanvasObject, f *shipForm, ok func()) {
	f.ok = widget.NewButton(okText, nil)
	f.ok.Importance = widget.HighImportance
	f.cancel = widget.NewButton("Cancel", nil)
	buttons := container.NewBorder(nil, nil, container.NewHBox(f.cancel, f.ok), nil,
		container.NewCenter(keysHint("Ctrl+Enter: "+okText+" · Esc: Cancel")))
	box := container.NewBorder(nil, buttons, nil, nil, content)
	f.dlg = dialog.NewCustomWithoutButtons(title, box, w.win)
	f.cancel.OnTapped = f.dlg.Hide
	f.ok.OnTapped = func() {
		if f.needsText && strings.TrimSpace(f.entry.Text) == "" {
			return
		}
		f.dlg.Hide()
		ok()
	}
	keys := formKeys{start: f.ok.OnTapped, escape: f.dlg.Hide}
	for _, e := range []*formEntry{f.entry, f.body} {
		if e != nil {
			e.keys = keys
		}
	}
	if f.needsText {
		enable := func(text string) {
			if strings.TrimSpace(text) == "" {
				f.ok.Disable()
			} else {
				f.ok.Enable()
			}
		}
		f.entry.OnChanged = enable
		enable(f.entry.Text)
	}
	f.dlg.Resize(fyne.NewSize(640, 460))
	f.dlg.Show()
	w.win.Canvas().Focus(f.entry)
}

// shipStory is the story of the run's conversation (the run, the runs it continues and
// those that continue it: record.Story), whose first task and Claude's final summary the
// commit and pull request dialogs are prefilled with, as the core's defaults are made.
// Without a state folder it is the run's own, without a summary. On Fyne's goroutine: it
// reads the conversation's records, as the window does when it opens.
func (w *runWindow) shipStory() record.Story {
	if w.deps.stateDir == "" {
		return record.Story{Conversation: record.Conversation{Runs: []record.Info{w.info}}}
	}
	return record.ReadStory(w.deps.stateDir, record.ConversationOf(w.deps.stateDir, w.info))
}

// openCommit asks for the commit message and which files changed before the run to
// include, then commits and pushes. On Fyne's goroutine.
func (w *runWindow) openCommit(set control.ChangeSet) {
	f := &shipForm{}
	f.entry = newFormEntry(true, formKeys{})
	story := w.shipStory()
	f.entry.SetText(visible.Escape(story.CommitMessage()))
	f.entry.SetMinRowsVisible(3)
	var ours, before []string
	for _, file := range set.Files {
		if !file.Uncommitted {
			continue
		}
		if file.DirtyAtBase {
			before = append(before, file.Path)
		} else {
			ours = append(ours, fileLine(set, file))
		}
	}
	oursHead, beforeHead := commitHeads(len(story.Conversation.Runs))
	items := []fyne.CanvasObject{widget.NewLabel("Commit message"), f.entry}
	if len(ours) > 0 {
		items = append(items, widget.NewLabelWithStyle(oursHead, fyne.TextAlignLeading, fyne.TextStyle{Bold: true}))
		for _, l := range ours {
			items = append(items, widget.NewLabel(l))
		}
	}
	if len(before) > 0 {
		items = append(items, widget.NewLabelWithStyle(beforeHead, fyne.TextAlignLeading, fyne.TextStyle{Bold: true}))
		for _, p := range before {
			c := widget.NewCheck(p, nil)
			f.included = append(f.included, c)
			items = append(items, c)
		}
	}
	w.commitForm = f
	w.newShipForm("Commit and push", "Commit and push", container.NewVScroll(container.NewVBox(items...)), f, func() {
		opts := record.CommitOptions{Message: strings.TrimSpace(f.entry.Text)}
		for _, c := range f.included {
			if c.Checked {
				opts.Include = append(opts.Include, c.Text)
			}
		}
		w.commitAndPush(opts)
	})
}

// commitHeads are the heads of the commit dialog's two lists, for a conversation of runs
// n runs: what its runs changed, committed; what was changed before its first run, set
// apart. A conversation's changes count from its first run's base, so a file changed
// before a continuation but by an earlier run of it is the conversation's own.
func commitHeads(n int) (ours, before string) {
	if n > 1 {
		return fmt.Sprintf("The conversation's changes (its %d runs), committed:", n),
			"Changed before the first run started (perhaps yours): left out unless ticked"
	}
	return "The run's changes, committed:", "Changed before the run started (perhaps yours): left out unless ticked"
}

// commitAndPush commits the run's changes and pushes, off Fyne's goroutine, and says what
// happened. On Fyne's goroutine.
func (w *runWindow) commitAndPush(opts record.CommitOptions) {
	if w.pushing {
		return
	}
	w.pushing = true
	w.push.Disable()
	w.note.SetText("Committing…")
	id := w.info.ID
	go func() {
		ctx, cancel := context.WithTimeout(context.Background(), shipTimeout)
		defer cancel()
		c, err := w.deps.shipper.Commit(ctx, id, opts)
		if err != nil {
			onUI(func() {
				defer w.settled.Add(1)
				w.pushing = false
				w.push.Enable()
				w.note.SetText("Not committed: " + err.Error())
			})
			return
		}
		onUI(func() {
			if w.changes != nil && w.changes.loaded {
				w.changes.load() // the files are committed now
			}
			w.shipSet = control.ChangeSet{} // committed: Push pushes
			w.push.SetText("Push")
			w.committed = committedText(c)
			w.note.SetText(w.committed + " Pushing…")
			w.pushing = false
			w.pushOK = true
			w.pushBranch()
		})
	}()
}

// committedText says what a commit holds, for a person, in the words of the CLI.
func committedText(c record.Committed) string { return "Committed " + record.CommitText(c) + "." }

// openPullRequest asks for the pull request's title and body, then opens it. On Fyne's
// goroutine.
func (w *runWindow) openPullRequest() {
	f := &shipForm{needsText: true}
	f.entry = newFormEntry(false, formKeys{})
	f.entry.SetText(visible.Escape(w.shipStory().Title()))
	f.body = newFormEntry(true, formKeys{})
	f.body.SetPlaceHolder("Left empty, segwi writes the agent's final summary, what you asked and, unless the settings say not to, what was allowed and by whom.")
	f.body.SetMinRowsVisible(8)
	form := container.NewVBox(widget.NewLabel("Title"), f.entry, widget.NewLabel("Description"), f.body,
		widget.NewLabel("Against the repository's default branch, from the branch just pushed."))
	w.prForm = f
	w.newShipForm("Open pull request", "Open pull request", form, f, func() {
		title, body := strings.TrimSpace(f.entry.Text), f.body.Text
		w.pr.Disable()
		w.note.SetText("Opening the pull request…")
		id := w.info.ID
		go func() {
			ctx, cancel := context.WithTimeout(context.Background(), shipTimeout)
			defer cancel()
			u, err := w.deps.shipper.OpenPullRequest(ctx, id, title, body)
			onUI(func() {
				defer w.settled.Add(1)
				if err != nil {
					w.pr.Enable()
					w.note.SetText("No pull request opened: " + err.Error())
					return
				}
				w.showPullRequest(u)
				w.note.SetText("Pull request opened: " + u)
			})
		}()
	})
}

// showPullRequest shows the link to the run's pull request in place of its button. On
// Fyne's goroutine.
func (w *runWindow) showPullRequest(raw string) {
	u, err := url.Parse(raw)
	if err != nil || (u.Scheme != "https" && u.Scheme != "http") {
		return
	}
	w.prLink.SetText("Pull request: " + raw)
	w.prLink.SetURL(u)
	w.prLink.Show()
	w.pr.Hide()
}

// openContinue asks for the next message, then starts the run that continues this one
// and opens its window. On Fyne's goroutine.
func (w *runWindow) openContinue() {
	f := &shipForm{needsText: true}
	f.entry = newFormEntry(true, formKeys{})
	agent := approvals.AgentWords(visible.Escape(w.info.Runtime)) // an ACP runtime of segwi.runtimes, or Claude Code
	f.entry.SetPlaceHolder("What " + agent + " should do next, in the same session")
	f.entry.SetMinRowsVisible(4)
	w.continueForm = f
	content := container.NewVBox(widget.NewLabel(fmt.Sprintf("A new %s run in %s resumes this run's %s session.", w.info.Kind, w.info.Checkout, agent)), f.entry)
	w.newShipForm("Continue the run", "Continue", content, f, func() {
		prompt := strings.TrimSpace(f.entry.Text)
		w.cont.Disable()
		w.note.SetText("Starting the run that continues this one…")
		id := w.info.ID
		go func() {
			ctx, cancel := context.WithTimeout(context.Background(), commandTimeout)
			defer cancel()
			r, err := w.deps.shipper.Continue(ctx, id, prompt)
			onUI(func() {
				defer w.settled.Add(1)
				if err != nil {
					w.cont.Enable()
					w.note.SetText("Not continued: " + err.Error())
					return
				}
				w.note.SetText("Continued in run " + r.ID() + ".")
				go w.loadConversation() // this window lists the new run too
				if w.deps.showRun != nil {
					w.deps.showRun(r)
				}
			})
		}()
	})
}
