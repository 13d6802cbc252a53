package app

import (
	"context"
	"fmt"
	"strings"
	"sync/atomic"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/widget"

	"github.com/segwi/segwi/control"
	"github.com/segwi/segwi/runs"
	"github.com/segwi/segwi/runs/changes"
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
// and the diff of the file selected (or of every file), coloured. Both lists are
// virtualised, so that a diff of thousands of lines costs the rows on screen only. Its
// fields are touched on Fyne's goroutine only.
type changesTab struct {
	read  changesReader
	runID string

	set     control.ChangeSet // the reading shown; set.Path is the file its diff is of
	path    string            // the file whose diff is to show; "" for every file
	lines   []diffLine        // the diff shown
	loading bool
	again   bool // a reload was asked while one was under way
	loaded  bool // a reading was asked once: reloads on a turn's end from then on

	summary *widget.Label
	files   *widget.List
	diff    *widget.List
	reload  *widget.Button
	content fyne.CanvasObject

	loads     atomic.Int64 // readings applied, for tests
	unchanged atomic.Int64 // of which the tray said the checkout had not changed, for tests
	diffRows  atomic.Int64 // diff row widgets made, for tests: the list makes only those on screen
}

// newChangesTab builds the tab of the run id; nothing is read until load.
func newChangesTab(read changesReader, id string) *changesTab {
	c := &changesTab{read: read, runID: id}
	c.summary = widget.NewLabel("The run's changes are read when you open this tab.")
	c.summary.Truncation = fyne.TextTruncateEllipsis
	c.reload = widget.NewButton("Refresh", c.load)
	c.files = widget.NewList(func() int { return len(c.set.Files) + 1 }, func() fyne.CanvasObject {
		l := widget.NewLabel("")
		l.Truncation = fyne.TextTruncateEllipsis
		return l
	}, func(i widget.ListItemID, o fyne.CanvasObject) {
		o.(*widget.Label).SetText(c.fileRow(i))
	})
	c.files.OnSelected = func(i widget.ListItemID) {
		path := ""
		if i > 0 && i <= len(c.set.Files) {
			path = c.set.Files[i-1].Path
		}
		if path != c.path {
			c.path = path
			c.load()
		}
	}
	c.diff = widget.NewList(func() int { return len(c.lines) }, func() fyne.CanvasObject {
		c.diffRows.Add(1)
		l := widget.NewLabelWithStyle("", fyne.TextAlignLeading, fyne.TextStyle{Monospace: true})
		l.Truncation = fyne.TextTruncateClip
		return l
	}, func(i widget.ListItemID, o fyne.CanvasObject) {
		if i < len(c.lines) {
			l := o.(*widget.Label)
			l.Importance = c.lines[i].importance()
			l.SetText(c.lines[i].text)
		}
	})
	split := container.NewHSplit(c.files, c.diff)
	split.Offset = 0.3
	c.content = container.NewBorder(container.NewBorder(nil, nil, nil, c.reload, c.summary), nil, nil, nil, split)
	return c
}

// fileRow is row i of the file list: every file first, then each changed file.
func (c *changesTab) fileRow(i int) string {
	if i == 0 {
		return fmt.Sprintf("All files (%d)", len(c.set.Files)+c.set.MoreFiles)
	}
	if i > len(c.set.Files) {
		return ""
	}
	return fileLine(c.set.Files[i-1])
}

// fileLine is a changed file as the list shows it: "M  web/login.go  +12 −3".
func fileLine(f changes.File) string {
	mark := map[changes.Status]string{changes.Added: "A", changes.Modified: "M", changes.Deleted: "D",
		changes.Renamed: "R", changes.TypeChanged: "T"}[f.Status]
	line := fmt.Sprintf("%s  %s  %s", mark, f.Name(), f.Lines())
	if f.DirtyAtBase {
		line += "  (changed before the run)"
	}
	return line
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
		var lines []diffLine
		if err == nil && !set.Unchanged {
			lines = diffLines(set.Diff)
		}
		onUI(func() { c.show(set, lines, err) })
	}()
}

// show applies a reading. On Fyne's goroutine.
func (c *changesTab) show(set control.ChangeSet, lines []diffLine, err error) {
	defer c.loads.Add(1)
	c.loading = false
	c.reload.Enable()
	switch {
	case err != nil:
		c.summary.SetText("The run's changes cannot be read: " + err.Error())
		c.set.Stamp = "" // what shows may be stale: read it all next time
	case set.Unchanged:
		c.unchanged.Add(1)
	default:
		c.set, c.lines = set, lines
		c.summary.SetText(changesSummary(set))
		c.files.Refresh()
		c.diff.Refresh()
		c.diff.ScrollToTop()
	}
	if c.again {
		c.again = false
		c.load()
	}
}

// changesSummary says in a line what the run changed, and since when.
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
	since := runs.BaseText(&set.Base)
	if files == 0 {
		return "No changes since the run started: " + since + "."
	}
	parts := []string{fmt.Sprintf("%s changed, +%d −%d since %s", countOf(files, "file"), added, deleted, since)}
	if n := len(set.Commits); n > 0 {
		parts = append(parts, countOf(n, "commit")+" made")
	}
	if uncommitted > 0 {
		parts = append(parts, countOf(uncommitted, "file")+" not committed")
	}
	return strings.Join(parts, " · ")
}

// countOf is "1 file", "3 files".
func countOf(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}

// diffKind is what a line of a unified diff is.
type diffKind int

const (
	diffContext diffKind = iota
	diffHeader           // diff --git, index, ---/+++ lines, modes, "Binary files … differ"
	diffHunk             // @@ -1,3 +1,4 @@
	diffAdded
	diffDeleted
	diffNote // segwi's own words: the diff was cut
)

// diffLine is one line of a run's changes shown: a line of git's unified diff.
type diffLine struct {
	kind diffKind
	text string
}

// importance is the colour of the line: additions green, deletions red, hunks and file
// headers set apart.
func (l diffLine) importance() widget.Importance {
	switch l.kind {
	case diffAdded:
		return widget.SuccessImportance
	case diffDeleted:
		return widget.DangerImportance
	case diffHunk:
		return widget.HighImportance
	case diffHeader:
		return widget.LowImportance
	case diffNote:
		return widget.WarningImportance
	}
	return widget.MediumImportance
}

// diffLines splits a patch into the lines the diff list shows. Tabs are shown as four
// spaces, as a label would not.
func diffLines(p changes.Patch) []diffLine {
	text := strings.TrimSuffix(p.Text, "\n")
	if text == "" && !p.Cut {
		return []diffLine{{kind: diffNote, text: "No changes."}}
	}
	var out []diffLine
	inHunk := false
	for _, s := range strings.Split(text, "\n") {
		kind := diffContext
		switch {
		case strings.HasPrefix(s, "diff --git "):
			kind, inHunk = diffHeader, false
		case strings.HasPrefix(s, "@@"):
			kind, inHunk = diffHunk, true
		case !inHunk:
			kind = diffHeader
		case strings.HasPrefix(s, "+"):
			kind = diffAdded
		case strings.HasPrefix(s, "-"):
			kind = diffDeleted
		}
		out = append(out, diffLine{kind: kind, text: strings.ReplaceAll(s, "\t", "    ")})
	}
	if note := p.CutNote(); note != "" {
		out = append(out, diffLine{kind: diffNote, text: note})
	}
	return out
}
