package app

import (
	"fmt"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/widget"

	"github.com/segwi/segwi/internal/lib/visible"
	"github.com/segwi/segwi/runs/record"
)

// The conversation's runs in a run window: a run that continues another, or that another
// continues, lists under its header every run of its conversation in order, a line each
// ("Run 2 of 3: its task · its state · when it was made"); a click on another run's line
// opens that run's window. A run alone shows nothing there.

// maxConversationLines is how many runs' lines the list shows at most: the first run, and
// the latest ones after a line saying how many are left out.
const maxConversationLines = 5

// conversationRunLine is the line of run in, the nth of its conversation's total: "Run 2
// of 3: Yes, mention it in the README. · succeeded · 2025-03-14 10:30", and " (this
// window)" for the window's own.
func conversationRunLine(n, total int, in record.Info, own bool) string {
	task := visible.Escape(visible.FirstLine(in.Prompt, maxTitleTask))
	if task == "" {
		task = record.WorkTitle(in)
	}
	line := fmt.Sprintf("Run %d of %d: %s · %s · %s", n, total, task, in.StateText(), in.Created.Local().Format("2006-01-02 15:04"))
	if own {
		line += " (this window)"
	}
	return line
}

// conversationLines returns the lines the list shows of conv for the window of run id: a
// line per run, or, past maxConversationLines, the first run's, a line saying how many
// are left out ("" id), and the latest ones.
func conversationLines(conv record.Conversation, id string) (lines []string, ids []string) {
	add := func(i int) {
		r := conv.Runs[i]
		lines = append(lines, conversationRunLine(i+1, len(conv.Runs), r, r.ID == id))
		ids = append(ids, r.ID)
	}
	n := len(conv.Runs)
	if n <= maxConversationLines {
		for i := range n {
			add(i)
		}
		return lines, ids
	}
	add(0)
	latest := n - (maxConversationLines - 2)
	lines = append(lines, fmt.Sprintf("… %s left out: the run history lists them all", record.Plural(latest-1, "run")))
	ids = append(ids, "")
	for i := latest; i < n; i++ {
		add(i)
	}
	return lines, ids
}

// loadConversation reads the run's conversation from the records and shows its runs
// under the header, when it has more than this one. Off Fyne's goroutine.
func (w *runWindow) loadConversation() {
	if w.deps.stateDir == "" {
		return
	}
	conv := record.ConversationOf(w.deps.stateDir, w.infoNow())
	onUI(func() {
		if !w.closed.Load() && !w.detached.Load() {
			w.showConversation(conv)
		}
	})
}

// showConversation lists conv's runs under the header, a line each, the others' opening
// their windows; a conversation of one run shows nothing. On Fyne's goroutine.
func (w *runWindow) showConversation(conv record.Conversation) {
	box := w.convRuns
	if len(conv.Runs) < 2 {
		if !box.Hidden {
			box.Hide()
			w.win.Content().Refresh()
		}
		return
	}
	lines, ids := conversationLines(conv, w.id)
	var objs []fyne.CanvasObject
	for i, line := range lines {
		id := ids[i]
		if id == "" || id == w.id || w.deps.openRun == nil {
			l := widget.NewLabel(line)
			l.Truncation = fyne.TextTruncateEllipsis
			objs = append(objs, l)
			continue
		}
		link := widget.NewHyperlink(line, nil)
		link.Truncation = fyne.TextTruncateEllipsis
		link.OnTapped = func() { w.deps.openRun(id) }
		objs = append(objs, link)
	}
	box.Objects = objs
	box.Show()
	w.win.Content().Refresh() // the header grows: lay the window out again
	w.convShown.Add(1)        // last: a test that saw it sees the list filled
}

// newConversationBox is the list of the conversation's runs, empty and hidden until read.
func newConversationBox() *fyne.Container {
	box := container.NewVBox()
	box.Hide()
	return box
}
