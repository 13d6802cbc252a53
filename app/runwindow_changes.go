package app

import (
	"context"
	"fmt"
	"strings"
	"sync/atomic"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"github.com/segwi/segwi/control"
	"github.com/segwi/segwi/runs/record"
)

// changesReader reads what a run changed since its base: the tray does (trayLink), with
// git, in the tray process.
type changesReader interface {
	// Changes returns the run's changed files and the diff of path ("" for every file),
	// or says Unchanged when the checkout has not changed since the reading of path whose
	// Stamp is since.
	Changes(ctx context.Context, runID, path, since string) (control.ChangeSet, error)
	// ChangedFiles returns the run's changed files and commits, without a diff.
	ChangedFiles(ctx context.Context, runID string) (control.ChangeSet, error)
}

// changesTimeout bounds one reading of a run's changes: git hashes the work tree.
const changesTimeout = time.Minute

// changesTab is the run window's Changes tab: the files the run changed since its base,
// listed with their status (A, M, D, R) and line counts, beside the diff of them all in a
// diffView, which draws only the rows on screen. A click on a file scrolls the diff to
// it, and the list follows the diff as it scrolls; a file whose diff lies past where the
// diff of them all was cut (control.MaxDiffBytes) is read and shown alone. Its fields are
// touched on Fyne's goroutine only.
type changesTab struct {
	read  changesReader
	runID string

	set     control.ChangeSet // the reading shown; set.Path is the file its diff is of
	path    string            // the file whose diff is to show alone; "" for every file
	diff    diffContent       // the diff shown
	loading bool
	again   bool // a reload was asked while one was under way
	loaded  bool // a reading was asked once: reloads on a turn's end from then on
	// following is set while the list's selection follows the diff, so that selecting
	// does not scroll the diff back.
	following bool
	selected  int // the file list's row selected; -1 for none

	summary *widget.Label
	files   *widget.List
	view    *diffView
	keys    *widget.Label
	reload  *widget.Button
	content fyne.CanvasObject

	loads     atomic.Int64 // readings applied, for tests
	unchanged atomic.Int64 // of which the tray said the checkout had not changed, for tests
}

// changesKeys says, in the tab, what the diff's keys do (diffView), a line each: the tab
// lays out no word-wrapped text, which Fyne measures again on every layout.
const changesKeys = "Keys, in the diff:\nj k ↓ ↑  line\nSpace PgDn PgUp  page\nn p  hunk\n] [  file\nHome End"

// newChangesTab builds the tab of the run id; nothing is read until load.
func newChangesTab(read changesReader, id string) *changesTab {
	c := &changesTab{read: read, runID: id, selected: -1}
	c.summary = widget.NewLabel("The run's changes are read when you open this tab.")
	c.summary.Wrapping = fyne.TextWrapWord
	c.reload = widget.NewButton("Refresh", c.load)
	c.files = widget.NewList(func() int { return len(c.set.Files) + 1 }, func() fyne.CanvasObject {
		l := widget.NewLabel("")
		l.Truncation = fyne.TextTruncateEllipsis
		return l
	}, func(i widget.ListItemID, o fyne.CanvasObject) {
		o.(*widget.Label).SetText(c.fileRow(i))
	})
	c.files.OnSelected = c.selectFile
	c.view = newDiffView()
	c.view.onFile = func(file int) {
		if file+1 < c.files.Length() {
			c.following = true
			c.files.Select(file + 1)
			c.following = false
		}
	}
	c.keys = widget.NewLabel(changesKeys)
	c.keys.SizeName = theme.SizeNameCaptionText
	side := container.NewBorder(container.NewVBox(c.summary, container.NewHBox(c.reload)), c.keys, nil, nil, c.files)
	split := container.NewHSplit(side, c.view)
	split.Offset = 0.25
	c.content = split
	return c
}

// selectFile shows row i of the file list: every file (row 0), or one. A file in the diff
// shown is scrolled to; one that is not (past where the diff was cut) is read alone.
func (c *changesTab) selectFile(i widget.ListItemID) {
	c.selected = i
	if c.following {
		return
	}
	if i <= 0 || i > len(c.set.Files) {
		if c.path != "" {
			c.path = ""
			c.load()
			return
		}
		c.view.mark = -1
		c.view.scrollToRow(0)
		return
	}
	f := c.set.Files[i-1]
	inView := c.path == f.Path || (c.path == "" && i-1 < len(c.diff.shown) && c.diff.shown[i-1])
	if inView && c.view.showFile(i-1, true) {
		c.view.focus()
		return
	}
	c.path = f.Path
	c.load()
}

// reviewing gives the Changes tab the window's height while it shows, and the diff the
// keyboard: the header's title, task and checkout lines fold away (the window's title
// names the run; the state line stays), so that more than 30 lines of the diff show at
// the window's default size; on the other tabs they show again.
func (w *runWindow) reviewing(on bool) {
	for _, l := range []*widget.Label{w.title, w.task, w.where} {
		if on {
			l.Hide()
		} else {
			l.Show()
		}
	}
	w.inReview = on
	if w.reply != nil {
		w.showReply(w.reply.wanted) // the reply banner steps aside while the person reviews
	}
	if on {
		w.win.Canvas().Focus(w.changes.view)
	}
}

// fileRow is row i of the file list: every file first, then each changed file.
func (c *changesTab) fileRow(i int) string {
	if i == 0 {
		return fmt.Sprintf("All files (%d)", len(c.set.Files)+c.set.MoreFiles)
	}
	if i > len(c.set.Files) {
		return ""
	}
	return diffText(fileLine(c.set, c.set.Files[i-1]))
}

// load reads the changes again, off Fyne's goroutine, and shows them. A load asked while
// one is under way runs once that one is done. When the tab shows the diff asked for, the
// tray reads the changes again only if the checkout changed since (a turn that changed
// nothing costs a look at the files' stat data). On Fyne's goroutine.
func (c *changesTab) load() {
	c.loaded = true
	if c.loading {
		c.again = true
		return
	}
	c.loading = true
	c.reload.Disable()
	if len(c.set.Files) == 0 {
		c.summary.SetText("Reading the run's changes…")
	}
	path, since := c.path, ""
	if path == c.set.Path {
		since = c.set.Stamp
	}
	go func() {
		ctx, cancel := context.WithTimeout(context.Background(), changesTimeout)
		defer cancel()
		set, err := c.read.Changes(ctx, c.runID, path, since)
		var diff diffContent
		if err == nil && !set.Unchanged {
			diff = diffContentOf(set)
		}
		onUI(func() { c.show(path, set, diff, err) })
	}()
}

// show applies a reading of path (a file alone, or "" for every file): the diff keeps its
// place in the file shown at its top, when that file is still there. On Fyne's goroutine.
func (c *changesTab) show(path string, set control.ChangeSet, diff diffContent, err error) {
	defer c.loads.Add(1)
	c.loading = false
	c.reload.Enable()
	switch {
	case err != nil && path != "" && c.path == path:
		// The file shown alone is no longer among the changes (a later turn undid it):
		// back to every file.
		c.path, c.again = "", true
		c.set.Stamp = ""
	case err != nil:
		c.summary.SetText("The run's changes cannot be read: " + err.Error())
		c.set.Stamp = "" // what shows may be stale: read it all next time
	case set.Unchanged:
		c.unchanged.Add(1)
	default:
		path, line := c.view.anchor(c.set.Files)
		c.set, c.diff = set, diff
		summary := changesSummary(set)
		if set.Path != "" {
			summary += fmt.Sprintf("\nShowing %s alone: the diff of all the files is longer than %d KiB.", diffText(set.Path), set.Diff.Limit>>10)
		}
		c.summary.SetText(summary)
		c.files.Refresh()
		c.view.setLines(diff.lines)
		c.view.restore(set.Files, path, line)
	}
	if c.again {
		c.again = false
		c.load()
	}
}

// changesSummary says in a few short lines what the run changed, and since when; the tab
// wraps them to its width.
func changesSummary(set control.ChangeSet) string {
	files, added, deleted := len(set.Files)+set.MoreFiles, 0, 0
	uncommitted := 0
	for _, f := range set.Files {
		added += f.Added
		deleted += f.Deleted
		if f.Uncommitted {
			uncommitted++
		}
	}
	since := record.BaseText(&set.Base)
	if files == 0 {
		return "No changes\nsince " + since + "."
	}
	lines := []string{fmt.Sprintf("%s changed, +%d −%d", countOf(files, "file"), added, deleted), "since " + since}
	if n := len(set.Commits); n > 0 {
		lines = append(lines, countOf(n, "commit")+" made")
	}
	if uncommitted > 0 {
		lines = append(lines, countOf(uncommitted, "file")+" not committed")
	}
	return strings.Join(lines, "\n")
}

// countOf is "1 file", "3 files".
func countOf(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}
