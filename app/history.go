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

// historyWindow lists every recorded run, newest first (the list draws only the lines in
// view); a click opens one. It reads the runs through the runs index (runs.Summaries), off
// Fyne's goroutine.
type historyWindow struct {
	win      fyne.Window
	stateDir string
	repos    func() []settings.Repository
	open     func(id string)

	// On Fyne's goroutine:
	sums  []runs.Summary // newest first
	reads int            // reloads asked for: only the last one's runs are shown
	shown int            // the reload whose runs show
	list  *widget.List
	note  *widget.Label
}

// newHistoryWindow builds the history window and starts reading the runs. On Fyne's
// goroutine.
func newHistoryWindow(a fyne.App, stateDir string, repos func() []settings.Repository, open func(id string)) *historyWindow {
	h := &historyWindow{stateDir: stateDir, repos: repos, open: open}
	h.note = widget.NewLabel("Reading the runs…")
	h.note.Wrapping = fyne.TextWrapWord
	h.list = widget.NewList(func() int { return len(h.sums) }, func() fyne.CanvasObject {
		l := widget.NewLabel("")
		l.Truncation = fyne.TextTruncateEllipsis
		return l
	}, func(i widget.ListItemID, o fyne.CanvasObject) {
		if i < len(h.sums) {
			o.(*widget.Label).SetText(historyLine(h.sums[i], h.repos()))
		}
	})
	h.list.OnSelected = func(i widget.ListItemID) {
		h.list.UnselectAll()
		if i < len(h.sums) {
			h.open(h.sums[i].ID)
		}
	}
	refresh := widget.NewButton("Refresh", h.reload)
	h.win = a.NewWindow("segwi: run history")
	h.win.SetContent(container.NewBorder(container.NewBorder(nil, nil, nil, refresh, h.note), nil, nil, nil, h.list))
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
		slices.Reverse(sums)
		onUI(func() {
			if read == h.reads { // else a later reload is under way
				h.show(sums, damaged, err)
				h.shown = read
			}
		})
	}()
}

// show shows the runs read, newest first, and what could not be read. On Fyne's goroutine.
func (h *historyWindow) show(sums []runs.Summary, damaged []runs.Damaged, err error) {
	h.sums = sums
	switch {
	case err != nil:
		h.note.SetText(fmt.Sprintf("The runs could not be listed: %v", err))
	case len(damaged) > 0:
		lines := []string{fmt.Sprintf("%d runs, the newest first. Left out, as their records could not be read:", len(sums))}
		for _, d := range damaged {
			lines = append(lines, d.Error())
		}
		h.note.SetText(strings.Join(lines, "\n"))
	case len(sums) == 0:
		h.note.SetText("No runs yet. Start one from the tray menu.")
	case len(sums) == 1:
		h.note.SetText("1 run. Click it to see it.")
	default:
		h.note.SetText(fmt.Sprintf("%d runs, the newest first. Click one to see it.", len(sums)))
	}
	h.list.Refresh()
}

// historyLine is a run's line in the history: "2025-03-14 09:26 · web · build · succeeded · $0.1200 · fix the login".
func historyLine(s runs.Summary, repos []settings.Repository) string {
	line := fmt.Sprintf("%s · %s · %s · %s", s.Created.Local().Format("2006-01-02 15:04"),
		settings.CheckoutName(s.Checkout, repos), s.Kind, s.State)
	if s.CostUSD > 0 {
		line += fmt.Sprintf(" · $%.4f", s.CostUSD)
	}
	if p := visible.FirstLine(s.Task, 80); p != "" {
		line += " · " + p
	}
	return line
}

// Show shows and focuses the window.
func (h *historyWindow) Show() {
	h.win.Show()
	h.win.RequestFocus()
}
