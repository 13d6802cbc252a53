package app

import (
	"fmt"
	"slices"
	"strings"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/widget"

	"github.com/segwi/segwi/internal/lib/visible"
	"github.com/segwi/segwi/runs"
	"github.com/segwi/segwi/settings"
)

// historyWindow lists every recorded run grouped by conversation (a continued run under
// the run it continues), the newest conversations first; the list draws only the lines in
// view. A search box keeps the conversations whose tasks or repository match; a click
// opens a run's window. It reads the runs through the runs index (runs.Summaries), off
// Fyne's goroutine.
type historyWindow struct {
	win      fyne.Window
	stateDir string
	repos    func() []settings.Repository
	open     func(id string)

	// On Fyne's goroutine:
	groups [][]runs.Summary // the conversations read, newest first
	rows   []historyRow     // the lines shown: the conversations the search keeps
	total  int              // runs read
	reads  int              // reloads asked for: only the last one's runs are shown
	shown  int              // the reload whose runs show
	list   *widget.List
	note   *widget.Label
	search *widget.Entry
}

// historyRow is a line of the history: a run, and whether it continues the run above.
type historyRow struct {
	sum       runs.Summary
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
			o.(*widget.Label).SetText(historyLine(h.rows[i], h.repos()))
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

// reload reads the runs again, on a goroutine of its own, and shows them once read. On
// Fyne's goroutine.
func (h *historyWindow) reload() {
	h.reads++
	read := h.reads
	go func() {
		sums, damaged, err := runs.Summaries(h.stateDir)
		groups := runs.GroupConversations(sums)
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
func (h *historyWindow) show(groups [][]runs.Summary, total int, damaged []runs.Damaged, err error) {
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
		if len(words) > 0 && !slices.ContainsFunc(g, func(s runs.Summary) bool { return historyMatches(s, words, repos) }) {
			continue
		}
		for i, s := range g {
			h.rows = append(h.rows, historyRow{sum: s, continues: i > 0})
		}
	}
	h.list.Refresh()
}

// historyMatches reports whether every word is in the run's task or its repository's name
// or folder (words are lower case).
func historyMatches(s runs.Summary, words []string, repos []settings.Repository) bool {
	hay := strings.ToLower(s.Task + "\n" + settings.CheckoutName(s.Checkout, repos) + "\n" + s.Checkout)
	for _, w := range words {
		if !strings.Contains(hay, w) {
			return false
		}
	}
	return true
}

// historyLine is a run's line in the history: "2025-03-14 09:26 · web · build · succeeded
// · pushed · PR #12 · $0.1200 · fix the login" ("build on codex" for a run on an ACP
// runtime); a run that continues the one above is
// indented under it, "    ↳ 2025-03-14 09:40 · continued · succeeded · $0.0300 · mention it in the
// README". The task is shown with what would hide or reorder it escaped (visible.Escape).
func historyLine(r historyRow, repos []settings.Repository) string {
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
			visible.Escape(settings.CheckoutName(s.Checkout, repos)), kind, s.StateText())
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
