package tray

import (
	"fmt"
	"strings"
	"time"

	"github.com/segwi/segwi/approvals"
	"github.com/segwi/segwi/internal/lib/visible"
	"github.com/segwi/segwi/runs"
)

// titleRunes bounds the task in a notification's title: daemons show one line of it.
const titleRunes = 60

// RunTitle is the title of every notification about a run: the run as the person knows
// it, by its repository's name (name) and its task, "web · Fix the login form" (see
// runs.WorkTitle), or its kind when it has none, "web · ready run"; its hidden characters
// escaped. The daemon names segwi already, as the application that notifies.
func RunTitle(name string, info runs.Info) string {
	task := string(info.Kind) + " run"
	if strings.TrimSpace(info.Prompt) != "" {
		task = visible.FirstLine(runs.WorkTitle(info), titleRunes)
	}
	return visible.Escape(name + " · " + task)
}

// Notice returns the notification of one of the events the runs manager publishes
// (runs.Manager.Subscribe) for the run info, known to the person as name: a run that waits
// for the person's reply, a run that reached its budget, a run that ended, an approval request that timed out or that
// Claude Code stopped waiting for. ok is false for an event that is no notification (a
// run going from queued to running).
func Notice(e runs.Event, info runs.Info, name string) (note Note, ok bool) {
	note.Title = RunTitle(name, info)
	run := "The " + string(info.Kind) + " run"
	switch {
	case e.Type == runs.EventState && e.State != nil && e.State.To == runs.StateWaiting && e.State.Waiting == runs.WaitReply:
		note.Body = "Claude Code finished its turn and waits for your reply. Reply in the run window, or Finish the run."
		note.Lasting = true // until the person replies or the run ends
		return note, true
	case e.Type == runs.EventState && e.State != nil && e.State.To == runs.StateWaiting && e.State.Waiting == runs.WaitBudget:
		note.Body = run + " stopped at its budget (" + visible.Escape(strings.TrimPrefix(e.State.Reason, "budget reached: ")) +
			"): no further turn starts until you raise it. Raise it or Stop the run in the run window."
		return note, true
	case e.Type == runs.EventState && e.State != nil && e.State.To.Final():
		note.Body = run + " " + endText(e.State.To)
		if e.State.Reason != "" {
			note.Body += ": " + visible.Escape(e.State.Reason)
		}
		note.Body += "."
		return note, true
	case e.Type == runs.EventApprovalAnswer && e.Approval != nil && e.Approval.By == string(approvals.ByTimeout):
		note.Body = fmt.Sprintf("%s asked to use %s; nobody answered within %s, so segwi denied it.",
			run, e.ToolName, time.Duration(e.Approval.WaitedMS)*time.Millisecond)
		return note, true
	case e.Type == runs.EventApprovalAnswer && e.Approval != nil && e.Approval.By == string(approvals.ByCancelled):
		note.Body = fmt.Sprintf("%s asked to use %s, and Claude Code stopped waiting for your answer after %s "+
			"(its own timeout): it went on without the call.",
			run, e.ToolName, (time.Duration(e.Approval.WaitedMS) * time.Millisecond).Round(time.Second))
		return note, true
	}
	return Note{}, false
}

// AskNotice is the notification of an approval request, the run named as RunTitle names
// it (req.Run.Name its repository, req.Run.Prompt its task): what the run wants to do, and
// when segwi denies it unless the person answers (the request's deadline, the one every
// countdown shows). It lasts until withdrawn: the request ends, one way or another.
func AskNotice(req approvals.Request) Note {
	info := runs.Info{ID: req.Run.ID, Kind: runs.Kind(req.Run.Kind), Prompt: req.Run.Prompt}
	body := req.Notice() + "."
	if !req.Deadline.IsZero() {
		by := req.Deadline.Local().Format("15:04:05")
		if req.RunEnds {
			body += fmt.Sprintf("\nAnswer by %s, when the run ends (runs.maxDuration) and segwi denies it.", by)
		} else {
			body += fmt.Sprintf("\nAnswer by %s, or segwi denies it.", by)
		}
	}
	return Note{Title: RunTitle(req.Run.Name, info), Body: body, Lasting: true}
}

// endText says how a run that ended in state s ended.
func endText(s runs.State) string {
	switch s {
	case runs.StateSucceeded:
		return "succeeded"
	case runs.StateFailed:
		return "failed"
	case runs.StateStopped:
		return "was stopped"
	case runs.StateTimedOut:
		return "timed out"
	case runs.StateInterrupted:
		return "was interrupted"
	}
	return "ended (" + string(s) + ")"
}
