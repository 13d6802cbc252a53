package app

import (
	"context"
	"fmt"
	"os"
	"sync/atomic"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/dialog"
	"fyne.io/fyne/v2/widget"
	"github.com/segwi/segwi/runs/record"
)

// worktreeRemover removes the worktree an ended run worked in: the tray does (trayLink),
// which refuses one a live run works in and, unless forced, one whose removal would lose
// work.
type worktreeRemover interface {
	// InspectWorktree says what removing the run's worktree would lose; it removes nothing.
	InspectWorktree(ctx context.Context, runID string) (record.Loss, error)
	// RemoveWorktree removes the run's worktree, and its branch when deleteBranch and it
	// was never pushed, and says what it did, in words; force loses what InspectWorktree
	// named.
	RemoveWorktree(ctx context.Context, runID string, deleteBranch, force bool) (string, error)
}

// worktreeTimeout bounds reading what a removal would lose, and the removal.
const worktreeTimeout = 2 * time.Minute

// removeWhileLive says why Remove worktree is off while the run is live.
const removeWhileLive = "Remove worktree is off while the run is live: the run works in it. Stop it, or wait for it to end."

// worktreePanel is the run window's "Remove worktree…" button, for a run that worked in a
// worktree of its own, and the line that says why it is off.
type worktreePanel struct {
	button *widget.Button
	why    *widget.Label
	form   *removeForm // the dialog last opened, for tests

	busy    bool         // a look or a removal is under way; on Fyne's goroutine
	checked atomic.Int64 // the folder was looked for once the run ended, for tests
	done    atomic.Int64 // removals answered, for tests
}

// removeForm is the dialog that asks before a worktree is removed: what would be lost,
// and whether its branch goes too.
type removeForm struct {
	dlg          dialog.Dialog
	loss         record.Loss
	text         *widget.Label // what would be removed and lost
	deleteBranch *widget.Check // nil when the branch was pushed or is gone
	ok, cancel   *widget.Button
}

// buildWorktree makes the Remove worktree… button of a run that worked in a worktree, into
// right, off while the run is live; its reason line goes under the buttons. Without a
// worktree or a remover it makes an empty, hidden line. On Fyne's goroutine.
func (w *runWindow) buildWorktree(right *fyne.Container) fyne.CanvasObject {
	w.wt = &worktreePanel{why: widget.NewLabel("")}
	w.wt.why.Wrapping = fyne.TextWrapWord
	w.wt.why.Hide()
	if w.info.Worktree == nil || w.deps.remover == nil {
		return w.wt.why
	}
	w.wt.button = widget.NewButton("Remove worktree…", w.askRemoveWorktree)
	w.wt.button.Disable()
	right.Add(w.wt.button)
	if w.run != nil {
		w.wt.why.SetText(removeWhileLive)
		w.wt.why.Show()
	}
	return w.wt.why
}

// checkWorktree offers Remove worktree… once the run has ended, when its folder is still
// there; it is hidden once the folder is gone. Off Fyne's goroutine: it looks at the disk.
func (w *runWindow) checkWorktree() {
	if w.wt == nil || w.wt.button == nil || w.info.Worktree == nil {
		return
	}
	st, err := os.Lstat(w.info.Worktree.Path)
	exists := err == nil && st.IsDir()
	onUI(func() {
		defer w.wt.checked.Add(1)
		w.wt.why.Hide()
		if !exists {
			w.wt.button.Hide()
			return
		}
		w.wt.button.Show()
		w.wt.button.Enable()
	})
}

// askRemoveWorktree asks the tray what removing the worktree would lose, off Fyne's
// goroutine, then asks the person. On Fyne's goroutine.
func (w *runWindow) askRemoveWorktree() {
	if w.wt.busy || !w.ended || w.info.Worktree == nil {
		return
	}
	w.wt.busy = true
	w.wt.button.Disable()
	w.note.SetText("Looking at the worktree…")
	id := w.info.ID
	go func() {
		ctx, cancel := context.WithTimeout(context.Background(), worktreeTimeout)
		defer cancel()
		loss, err := w.deps.remover.InspectWorktree(ctx, id)
		onUI(func() {
			w.wt.busy = false
			w.wt.button.Enable()
			if w.closed.Load() {
				return
			}
			if err != nil {
				w.wt.done.Add(1)
				w.note.SetText("Not removed: " + err.Error())
				return
			}
			w.note.SetText("")
			w.openRemoveWorktree(loss)
		})
	}()
}

// openRemoveWorktree shows the dialog that asks before the worktree is removed: what
// would be lost with its folder and, when its branch was never pushed, whether the branch
// goes too, and what that loses. On Fyne's goroutine.
func (w *runWindow) openRemoveWorktree(loss record.Loss) {
	wt := w.info.Worktree
	f := &removeForm{loss: loss}
	f.text = widget.NewLabel(removeText(wt.Path, wt.Branch, loss))
	f.text.Wrapping = fyne.TextWrapWord
	items := []fyne.CanvasObject{f.text}
	if !loss.Pushed && loss.BranchHead != "" {
		label := "Delete its branch " + wt.Branch + " too: it was never pushed"
		if loss.Unpushed > 0 {
			label += fmt.Sprintf("; %s only it holds, lost with it", record.Plural(loss.Unpushed, "commit"))
		}
		f.deleteBranch = widget.NewCheck(label, nil)
		items = append(items, f.deleteBranch)
	}
	okText := "Remove"
	f.ok = widget.NewButton(okText, nil)
	f.ok.Importance = widget.HighImportance
	if len(loss.Changed) > 0 {
		f.ok.SetText("Remove anyway")
		f.ok.Importance = widget.DangerImportance
	}
	if f.deleteBranch != nil && loss.Unpushed > 0 && len(loss.Changed) == 0 {
		f.deleteBranch.OnChanged = func(on bool) {
			if on {
				f.ok.SetText("Remove anyway")
				f.ok.Importance = widget.DangerImportance
			} else {
				f.ok.SetText("Remove")
				f.ok.Importance = widget.HighImportance
			}
			f.ok.Refresh()
		}
	}
	f.cancel = widget.NewButton("Cancel", nil)
	buttons := container.NewHBox(f.cancel, f.ok)
	f.dlg = dialog.NewCustomWithoutButtons("Remove worktree", container.NewBorder(nil, buttons, nil, nil, container.NewVBox(items...)), w.win)
	f.cancel.OnTapped = f.dlg.Hide
	f.ok.OnTapped = func() {
		f.dlg.Hide()
		del := f.deleteBranch != nil && f.deleteBranch.Checked
		// What the dialog named may go; what it did not (changed since), the tray refuses.
		force := len(loss.Changed) > 0 || del && loss.Unpushed > 0
		w.removeWorktree(del, force)
	}
	w.wt.form = f
	f.dlg.Resize(fyne.NewSize(600, 300))
	f.dlg.Show()
}

// removeText says what removing the worktree at path, on branch, would lose with its
// folder, for the dialog.
func removeText(path, branch string, loss record.Loss) string {
	text := "Remove the worktree " + path + "?\n"
	if n := len(loss.Changed); n > 0 {
		text += "Lost with it: " + loss.Words(false) + ".\n"
	} else {
		text += "Nothing in it is uncommitted; its ignored files (a copied .env, build output) go with it.\n"
	}
	switch {
	case loss.BranchHead == "":
		text += "Its branch " + branch + " is gone already."
	case loss.Pushed && loss.Unpushed > 0:
		text += fmt.Sprintf("Its branch %s is kept: it was pushed, and %s it holds are not pushed yet.", branch, record.Plural(loss.Unpushed, "commit"))
	case loss.Pushed:
		text += "Its branch " + branch + " is kept: it was pushed."
	default:
		text += "Its branch " + branch + " is kept unless you tick below."
	}
	return text
}

// removeWorktree removes the worktree, off Fyne's goroutine, and says what was done. On
// Fyne's goroutine.
func (w *runWindow) removeWorktree(deleteBranch, force bool) {
	if w.wt.busy {
		return
	}
	w.wt.busy = true
	w.wt.button.Disable()
	w.note.SetText("Removing the worktree…")
	id := w.info.ID
	go func() {
		ctx, cancel := context.WithTimeout(context.Background(), worktreeTimeout)
		defer cancel()
		words, err := w.deps.remover.RemoveWorktree(ctx, id, deleteBranch, force)
		cs := w.recordChanges() // the removal, as the tray recorded it
		onUI(func() {
			defer w.wt.done.Add(1)
			w.wt.busy = false
			w.addToTimeline(cs)
			if err != nil {
				w.wt.button.Enable()
				w.note.SetText("Not removed: " + err.Error())
				return
			}
			w.wt.button.Hide()
			w.note.SetText(words)
		})
	}()
}
