package app

import (
	"context"
	"fmt"
	"os"
	"slices"
	"strings"
	"sync/atomic"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/widget"

	"github.com/segwi/segwi/internal/lib/visible"
	"github.com/segwi/segwi/runs/record"
	"github.com/segwi/segwi/settings"
)

// historyWindow lists every recorded run grouped by conversation (a continued run under
// the run it continues), the newest conversations first; the list draws only the lines in
// view. A search box keeps the conversations whose tasks or repository match; a click
// opens a run's window. It reads the runs through the runs index (record.Summaries), off
// Fyne's goroutine.
type historyWindow struct {
	win      fyne.Window
	stateDir string
	repos    func() []settings.Repository
	open     func(id string)

	// On Fyne's goroutine:
	groups [][]record.Summary // the conversations read, newest first
	rows   []historyRow       // the lines shown: the conversations the search keeps
	total  int                // runs read
	reads  int                // reloads asked for: only the last one's runs are shown
	shown  int                // the reload whose runs show
	list   *widget.List
	note   *widget.Label
	search *widget.Entry
	disk   map[string]*worktreeDisk // the worktrees of the rows shown, by folder, once looked at

	measured atomic.Int64 // worktrees measured, for tests
}

// worktreeDisk is what the history knows of a worktree's folder: whether it is still
// there and how much disk it holds, once measured.
type worktreeDisk struct {
	done   bool // measured; until then the line says it is being measured
	exists bool
	bytes  int64
}

// diskTurn lets one worktree be measured at a time, in every history window: each reads
// every file of its folder.
var diskTurn = make(chan struct{}, 1)

// historyRow is a line of the history: a run, and whether it continues the run above.
type historyRow struct {
	sum       record.Summary
	continues bool
}

// newHistoryWindow builds the history window and starts reading the runs. On Fyne's
// goroutine.
func newHistoryWindow(a fyne.App, stateDir string, repos func() []settings.Repository, open func(id string)) *historyWindow {
	h := &historyWindow{stateDir: stateDir, repos: repos, open: open}
	h.note = widget.NewLabel("Reading the runs…")
	h.note.Wrapping = fyne.TextWrapWord
	h.list = widget.NewList(func() int { return len(h.rows) }, func() fyne.CanvasObject {
		l := widget.NewLabel("")
		l.Truncation = fyne.TextTruncateEllipsis
		return l
	}, func(i widget.ListItemID, o fyne.CanvasObject) {
		if i < len(h.rows) {
			o.(*widget.Label).SetText(historyLine(h.rows[i], h.repos(), h.worktreeNote(h.rows[i].sum, true)))
		}
	})
	h.list.OnSelected = func(i widget.ListItemID) {
		h.list.UnselectAll()
		if i < len(h.rows) {
			h.open(h.rows[i].sum.ID)
		}
	}
	h.search = widget.NewEntry()
	h.search.SetPlaceHolder("Search tasks and repositories")
	h.search.OnChanged = func(string) { h.filter() }
	refresh := widget.NewButton("Refresh", h.reload)
	h.win = a.NewWindow("segwi: run history")
	top := container.NewVBox(container.NewBorder(nil, nil, nil, refresh, h.search), h.note)
	h.win.SetContent(container.NewBorder(top, nil, nil, nil, h.list))
	h.win.Resize(fyne.NewSize(760, 480))
	h.reload()
	return h
}

// worktreeNote says which worktree and branch the run worked in, whether its folder is
// still there and how much disk it holds: "worktree segwi/fix-login-ab12, 48 MB", or
// ", its folder removed"; "" for a run in its checkout. A folder not
// looked at yet is measured off Fyne's goroutine when measure is set (for the rows drawn
// only), and kept: a history of 10,000 runs measures those shown. On Fyne's goroutine.
func (h *historyWindow) worktreeNote(s record.Summary, measure bool) string {
	if s.Worktree == "" {
		return ""
	}
	note := "worktree " + visible.Escape(s.Branch)
	d := h.disk[s.Worktree]
	switch {
	case d == nil && !measure:
		return note
	case d == nil:
		if h.disk == nil {
			h.disk = map[string]*worktreeDisk{}
		}
		h.disk[s.Worktree] = &worktreeDisk{}
		go h.measure(s.Worktree)
		return note + ", measuring…"
	case !d.done:
		return note + ", measuring…"
	case !d.exists:
		return note + ", its folder removed"
	}
	return note + ", " + record.Size(d.bytes)
}

// measure looks at the worktree's folder path and measures the disk it holds, one folder
// at a time, then redraws the lines. On a goroutine of its own.
func (h *historyWindow) measure(path string) {
	diskTurn <- struct{}{}
	defer func() { <-diskTurn }()
	d := &worktreeDisk{done: true}
	if st, err := os.Lstat(path); err == nil && st.IsDir() {
		d.exists = true
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		d.bytes, _ = record.DiskUse(ctx, path) //nolint:errcheck // what was counted is shown
		cancel()
	}
	onUI(func() {
		if h.disk == nil { // a reload forgot what was measured
			h.disk = map[string]*worktreeDisk{}
		}
		h.disk[path] = d
		h.measured.Add(1)
		h.list.Refresh()
	})
}

// reload reads the runs again, on a goroutine of its own, and shows them once read, and
// measures the worktrees shown again. On Fyne's goroutine.
func (h *historyWindow) reload() {
	h.reads++
	h.disk = nil // worktrees removed or grown since are measured again
	read := h.reads
	go func() {
		sums, damaged, err := record.Summaries(h.stateDir)
		groups := record.GroupConversations(sums)
		onUI(func() {
			if read == h.reads { // else a later reload is under way
				h.show(groups, len(sums), damaged, err)
				h.shown = read
			}
		})
	}()
}

// show shows the conversations read, newest first, and what could not be read. On Fyne's
// goroutine.
func (h *historyWindow) show(groups [][]record.Summary, total int, damaged []record.Damaged, err error) {
	h.groups, h.total = groups, total
	switch {
	case err != nil:
		h.note.SetText(fmt.Sprintf("The runs could not be listed: %v", err))
	case len(damaged) > 0:
		lines := []string{fmt.Sprintf("%s, the newest first. Left out, as their records could not be read:", countRuns(total))}
		for _, d := range damaged {
			lines = append(lines, d.Error())
		}
		h.note.SetText(strings.Join(lines, "\n"))
	case total == 0:
		h.note.SetText("No runs yet. Start one from the tray menu.")
	case total == 1:
		h.note.SetText("1 run. Click it to see it.")
	case len(groups) == total:
		h.note.SetText(fmt.Sprintf("%d runs, the newest first. Click one to see it.", total))
	default:
		h.note.SetText(fmt.Sprintf("%d runs in %d conversations, the newest first, a continued run under the one it continues. Click one to see it.", total, len(groups)))
	}
	h.filter()
}

// countRuns is "1 run" or "N runs".
func countRuns(n int) string {
	if n == 1 {
		return "1 run"
	}
	return fmt.Sprintf("%d runs", n)
}

// filter shows the conversations a run of which matches the search: its task, or its
// repository's name or folder, holds every word of it, in any case. On Fyne's goroutine.
func (h *historyWindow) filter() {
	words := strings.Fields(strings.ToLower(h.search.Text))
	repos := h.repos()
	h.rows = h.rows[:0]
	for _, g := range h.groups {
		if len(words) > 0 && !slices.ContainsFunc(g, func(s record.Summary) bool { return historyMatches(s, words, repos) }) {
			continue
		}
		for i, s := range g {
			h.rows = append(h.rows, historyRow{sum: s, continues: i > 0})
		}
	}
	h.list.Refresh()
}

// historyMatches reports whether every word is in the run's task, its repository's name
// or folder, or its worktree's folder or branch (words are lower case).
func historyMatches(s record.Summary, words []string, repos []settings.Repository) bool {
	hay := strings.ToLower(s.Task + "\n" + settings.CheckoutName(summaryRepository(s), repos) + "\n" + s.Checkout + "\n" + s.Repository + "\n" + s.Branch)
	for _, w := range words {
		if !strings.Contains(hay, w) {
			return false
		}
	}
	return true
}

// summaryRepository is the checkout the run was started in: the repository its worktree
// was made from, else its checkout (Info.Repository).
func summaryRepository(s record.Summary) string {
	if s.Repository != "" {
		return s.Repository
	}
	return s.Checkout
}

// historyLine is a run's line in the history: "2025-03-14 09:26 · web · build · succeeded
// · pushed · PR #12 · $0.1200 · worktree segwi/fix-login-ab12, 48 MB · fix the login" ("build on codex" for a run on an ACP
// runtime); a run that continues the one above is
// indented under it, "    ↳ 2025-03-14 09:40 · continued · succeeded · $0.0300 · mention it in the
// README". The task is shown with what would hide or reorder it escaped (visible.Escape).
func historyLine(r historyRow, repos []settings.Repository, wt string) string {
	s := r.sum
	var line string
	if r.continues {
		line = fmt.Sprintf("    ↳ %s · continued · %s", s.Created.Local().Format("2006-01-02 15:04"), s.StateText())
	} else {
		kind := string(s.Kind)
		if s.Runtime != "" {
			kind += " on " + visible.Escape(s.Runtime) // an ACP runtime of segwi.runtimes
		}
		line = fmt.Sprintf("%s · %s · %s · %s", s.Created.Local().Format("2006-01-02 15:04"),
			visible.Escape(settings.CheckoutName(summaryRepository(s), repos)), kind, s.StateText())
	}
	if s.Pushed != "" {
		line += " · pushed"
	}
	if s.PullRequest != "" {
		line += " · " + prBadge(s.PullRequest)
	}
	if s.CostUSD > 0 {
		line += fmt.Sprintf(" · $%.4f", s.CostUSD)
	}
	if wt != "" {
		line += " · " + wt
	}
	if p := visible.FirstLine(s.Task, 80); p != "" {
		line += " · " + visible.Escape(p)
	}
	return line
}

// prBadge is "PR #12" for a pull request's URL ending in its number, else "PR".
func prBadge(url string) string {
	n := url[strings.LastIndexByte(url, '/')+1:]
	if n == "" || strings.Trim(n, "0123456789") != "" || len(n) > 9 {
		return "PR"
	}
	return "PR #" + n
}

// Show shows and focuses the window.
func (h *historyWindow) Show() {
	h.win.Show()
	h.win.RequestFocus()
}
