package app

import (
	"fmt"
	"strings"
	"time"

	"github.com/segwi/segwi/internal/lib/visible"
	"github.com/segwi/segwi/runs/record"
)

// showHeader writes the header from w.info. On Fyne's goroutine.
func (w *runWindow) showHeader() {
	if t := w.windowTitle(); t != w.win.Title() { // the tray's first word on a run it just started may say more
		w.win.SetTitle(t)
	}
	w.title.SetText(w.runName())
	w.task.SetText(taskLine(w.info))
	w.where.SetText(whereLine(w.info))
	w.status.SetText(statusLine(w.info, w.ahead, w.deps.now()))
	if w.approvals != nil {
		w.approvals.showTimeLeft()
	}
}

// whereLine is the header's line about where the run works: its checkout and the branch
// it started on, or, for a run in a worktree of its own, the worktree's branch first (a
// long folder cuts the line), then its folder.
func whereLine(info record.Info) string {
	if wt := info.Worktree; wt != nil {
		return fmt.Sprintf("Worktree on branch %s   Folder: %s", wt.Branch, wt.Path)
	}
	return fmt.Sprintf("Checkout: %s   Branch: %s", info.Checkout, branchText(info))
}

// branchText is the branch the run started on, as its record has it (Info.Base): read
// once by segwi when the run started, never by running git here.
func branchText(info record.Info) string {
	b := info.Base
	switch {
	case b == nil && !info.State.Final():
		return "…"
	case b == nil || b.Error != "":
		return "(unknown)"
	case b.Detached:
		return "(detached HEAD)"
	}
	return b.Branch
}

// taskLine is the header's line about what the run was asked.
func taskLine(info record.Info) string { return taskText(info.Kind, info.Prompt) }

// taskText is the line about what a run of kind was asked with prompt, as the person
// typed it: "Task: …", "Question: …" or "Notes: …", its first line. The run window's
// header and the approval popups show it.
func taskText(kind record.Kind, prompt string) string {
	p := visible.FirstLine(prompt, 160)
	switch kind {
	case record.KindAsk:
		return "Question: " + p
	case record.KindReady:
		return "Notes: " + orDefault(p, "(none)")
	}
	return "Task: " + p
}

// maxTitleTask is how much of a run's task a window title shows.
const maxTitleTask = 60

// runKindIn names a run by its kind and its repository's name: "build run in web".
func runKindIn(info record.Info, repo string) string {
	return fmt.Sprintf("%s run in %s", info.Kind, repo)
}

// runTitle says a run's task, then what run it is: "Fix the login form · build run in
// web", and ", continued" for a run that continues another; for a run with no task, what
// it is alone. Run windows and their details windows are titled by it, and the Quit
// question names the runs it stops by it.
func runTitle(info record.Info, repo string) string {
	name := runKindIn(info, repo)
	if info.ContinuedFrom != "" {
		name += ", continued"
	}
	task := visible.Escape(visible.FirstLine(info.Prompt, maxTitleTask))
	if task == "" && info.Kind == record.KindReady {
		task = record.WorkTitle(info)
	}
	if task == "" {
		return name
	}
	return task + " · " + name
}

// statusLine is the header's line about the run's state, time, cost and tokens (as its
// turns' usage events add up: live, turn by turn).
func statusLine(info record.Info, ahead int, now time.Time) string {
	state := string(info.State)
	if info.State == record.StateQueued {
		if ahead > 0 {
			state = fmt.Sprintf("queued: %d runs ahead of it", ahead)
		} else {
			state = "queued: waiting for a free slot or for its checkout"
		}
	} else if info.State == record.StateWaiting && info.Waiting == record.WaitReply {
		state = "⚠ waiting for your reply: its turn is over; send a follow-up, or Finish"
	} else if info.WaitsAtBudget() {
		state = "⚠ " + info.Reason + ": raise the budget below, or Stop"
	} else if info.State == record.StateWaiting {
		state = "⚠ waiting for you: answer the approval here or in its popup"
	}
	if info.Reason != "" && info.State.Final() {
		state += ": " + info.Reason
	}
	parts := []string{"State: " + state}
	if !info.Start.IsZero() {
		end := now
		if !info.End.IsZero() {
			end = info.End
		}
		parts = append(parts, longElapsed(end.Sub(info.Start)))
	}
	if info.CostUSD > 0 {
		parts = append(parts, fmt.Sprintf("$%.4f", info.CostUSD))
	}
	if info.Usage != nil {
		parts = append(parts, record.Thousands(info.Usage.Tokens())+" tokens")
	}
	return strings.Join(parts, " · ")
}

// longElapsed renders d to the second: "42s", "4m 05s", "1h 02m 03s".
func longElapsed(d time.Duration) string {
	s := int64(d / time.Second)
	if s < 0 {
		s = 0
	}
	h, m, sec := s/3600, s/60%60, s%60
	switch {
	case h > 0:
		return fmt.Sprintf("%dh %02dm %02ds", h, m, sec)
	case m > 0:
		return fmt.Sprintf("%dm %02ds", m, sec)
	}
	return fmt.Sprintf("%ds", sec)
}

// tickClock moves the elapsed time while the run goes. On its own goroutine.
func (w *runWindow) tickClock() {
	t := time.NewTicker(w.deps.clockEvery)
	defer t.Stop()
	for {
		select {
		case <-w.quit:
			return
		case <-t.C:
			if w.detached.Load() {
				return
			}
			done := true // and so when segwi is quitting
			onUIWait(func() {
				if w.closed.Load() {
					return
				}
				w.showHeader()
				done = w.ended
			})
			if done {
				return
			}
		}
	}
}
