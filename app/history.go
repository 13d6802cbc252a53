package app

import (
	"fmt"
	"slices"
	"strings"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/widget"

	"github.com/segwi/segwi/internal/visible"
	"github.com/segwi/segwi/runs"
	"github.com/segwi/segwi/settings"
)

// maxHistoryRuns bounds the runs the history window lists, the newest first.
const maxHistoryRuns = 1000

// historyWindow lists the recorded runs, newest first; a click opens one.
type historyWindow struct {
	win      fyne.Window
	stateDir string
	repos    func() []settings.Repository
	open     func(runs.Info)

	infos []runs.Info
	list  *widget.List
	note  *widget.Label
}

// newHistoryWindow builds the history window and reads the records. On Fyne's goroutine.
func newHistoryWindow(a fyne.App, stateDir string, repos func() []settings.Repository, open func(runs.Info)) *historyWindow {
	h := &historyWindow{stateDir: stateDir, repos: repos, open: open}
	h.note = widget.NewLabel("")
	h.note.Wrapping = fyne.TextWrapWord
	h.list = widget.NewList(func() int { return len(h.infos) }, func() fyne.CanvasObject {
		l := widget.NewLabel("")
		l.Truncation = fyne.TextTruncateEllipsis
		return l
	}, func(i widget.ListItemID, o fyne.CanvasObject) {
		if i < len(h.infos) {
			o.(*widget.Label).SetText(historyLine(h.infos[i], h.repos()))
		}
	})
	h.list.OnSelected = func(i widget.ListItemID) {
		h.list.UnselectAll()
		if i < len(h.infos) {
			h.open(h.infos[i])
		}
	}
	refresh := widget.NewButton("Refresh", h.reload)
	h.win = a.NewWindow("segwi: run history")
	h.win.SetContent(container.NewBorder(container.NewBorder(nil, nil, nil, refresh, h.note), nil, nil, nil, h.list))
	h.win.Resize(fyne.NewSize(760, 480))
	h.reload()
	return h
}

// reload reads the run records again.
func (h *historyWindow) reload() {
	infos, damaged, err := runs.List(h.stateDir)
	slices.Reverse(infos)
	if len(infos) > maxHistoryRuns {
		infos = infos[:maxHistoryRuns]
	}
	h.infos = infos
	switch {
	case err != nil:
		h.note.SetText(fmt.Sprintf("The runs could not be listed: %v", err))
	case len(damaged) > 0:
		lines := []string{fmt.Sprintf("%d runs, the newest first. Left out, as their records could not be read:", len(infos))}
		for _, d := range damaged {
			lines = append(lines, d.Error())
		}
		h.note.SetText(strings.Join(lines, "\n"))
	case len(infos) == 0:
		h.note.SetText("No runs yet. Start one from the tray menu.")
	case len(infos) == 1:
		h.note.SetText("1 run. Click it to see it.")
	default:
		h.note.SetText(fmt.Sprintf("%d runs, the newest first. Click one to see it.", len(infos)))
	}
	h.list.Refresh()
}

// historyLine is a run's line in the history: "2025-03-14 09:26 · web · build · succeeded · $0.1200 · fix the login".
func historyLine(info runs.Info, repos []settings.Repository) string {
	line := fmt.Sprintf("%s · %s · %s · %s", info.Created.Local().Format("2006-01-02 15:04"),
		settings.CheckoutName(info.Checkout, repos), info.Kind, info.State)
	if info.CostUSD > 0 {
		line += fmt.Sprintf(" · $%.4f", info.CostUSD)
	}
	if p := visible.FirstLine(info.Prompt, 80); p != "" {
		line += " · " + p
	}
	return line
}

// Show shows and focuses the window.
func (h *historyWindow) Show() {
	h.win.Show()
	h.win.RequestFocus()
}
