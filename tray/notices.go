package tray

import (
	"fmt"
	"time"

	"github.com/segwi/segwi/approvals"
	"github.com/segwi/segwi/runs"
)

// The titles of the notifications about a run, besides WaitsForYou (an approval request).
const (
	WaitsForReply    = "segwi: a run waits for your reply"
	ApprovalTimedOut = "segwi: an approval request timed out"
)

// Notice returns the notification of one of the events the runs manager publishes
// (runs.Manager.Subscribe) for the run info, known to the person as name: a run that waits
// for the person's reply, a run that ended, an approval request that timed out. ok is
// false for an event that is no notification (a run going from queued to running).
func Notice(e runs.Event, info runs.Info, name string) (title, body string, ok bool) {
	who := fmt.Sprintf("%s · %s", name, info.Kind)
	switch {
	case e.Type == runs.EventState && e.State != nil && e.State.To == runs.StateWaiting && e.State.Waiting == runs.WaitReply:
		return WaitsForReply, who + ": Claude Code finished its turn. Reply in the run window, or Finish the run.", true
	case e.Type == runs.EventState && e.State != nil && e.State.To.Final():
		body = who + ": " + string(e.State.To)
		if e.State.Reason != "" {
			body += " (" + e.State.Reason + ")"
		}
		return endTitle(e.State.To), body, true
	case e.Type == runs.EventApprovalAnswer && e.Approval != nil && e.Approval.By == string(approvals.ByTimeout):
		body = fmt.Sprintf("%s: %s was denied after %s without an answer.", who, e.ToolName, time.Duration(e.Approval.WaitedMS)*time.Millisecond)
		return ApprovalTimedOut, body, true
	}
	return "", "", false
}

// endTitle is the title of the notification of a run that ended in state s.
func endTitle(s runs.State) string {
	switch s {
	case runs.StateSucceeded:
		return "segwi: a run succeeded"
	case runs.StateFailed:
		return "segwi: a run failed"
	case runs.StateStopped:
		return "segwi: a run was stopped"
	case runs.StateTimedOut:
		return "segwi: a run timed out"
	}
	return "segwi: a run ended (" + string(s) + ")"
}
