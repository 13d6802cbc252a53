package hub

import (
	"context"

	"github.com/segwi/segwi/approvals"
	"github.com/segwi/segwi/control"
	"github.com/segwi/segwi/runs"
	"github.com/segwi/segwi/tray"
)

// notifyRuns shows a desktop notification (Options.Notify) for each of events the person
// should know of (tray.Notice): a run that waits for their reply, a run that ended, an
// approval request that timed out. Clicking one opens the run's window.
func (h *Hub) notifyRuns(events []runs.Event) {
	if h.opts.Notify == nil {
		return
	}
	for _, e := range events {
		if !noticeable(e) {
			continue
		}
		info, err := h.runInfo(e.RunID)
		if err != nil {
			h.opts.Log("no notification for run %s: %v", e.RunID, err)
			continue
		}
		title, body, ok := tray.Notice(e, info, h.runName(info))
		if !ok {
			continue
		}
		id := info.ID
		go h.opts.Notify(title, body, func() {
			h.Open(context.Background(), control.Show{Window: control.ShowRun, Run: id})
		})
	}
}

// noticeable says whether e may be a notification, before the run's record is read.
func noticeable(e runs.Event) bool {
	switch {
	case e.Type == runs.EventState && e.State != nil:
		return e.State.To.Final() || e.State.Waiting == runs.WaitReply
	case e.Type == runs.EventApprovalAnswer:
		return e.Approval != nil && e.Approval.By == string(approvals.ByTimeout)
	}
	return false
}
