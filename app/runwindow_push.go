package app

import (
	"context"
	"strings"
	"time"

	"github.com/segwi/segwi/control"
	"github.com/segwi/segwi/runs/record"
)

// checkPush enables Push when the branch can be pushed, or says why not; with changes
// not committed yet, Push becomes "Commit and push…". Off Fyne's goroutine: the tray runs
// git.
func (w *runWindow) checkPush() {
	if w.deps.pusher == nil || w.info.Kind == record.KindAsk {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	err := w.deps.pusher.Check(ctx, w.info.ID)
	var set control.ChangeSet
	if err == nil && w.deps.shipper != nil && w.deps.changes != nil {
		// A run whose changes cannot be read is pushed as it is: push says what it can.
		set, _ = w.deps.changes.ChangedFiles(ctx, w.info.ID)
	}
	onUI(func() {
		defer w.pushChecked.Store(true) // last: a test that saw it sees Push as it will be
		w.pushOK = err == nil
		w.shipSet = set
		if set.Uncommitted() {
			w.push.SetText("Commit and push…")
		}
		if err == nil {
			w.push.Enable()
			w.pushWhy.Hide()
			return
		}
		w.push.Disable()
		w.sayPushOff("Push is off: " + err.Error())
	})
}

// Why Push is off, before its check says more.
const (
	pushAfterEnd = "Push is off until the run has ended."
	pushChecking = "Push is off while segwi checks that the branch can be pushed…"
)

// sayPushOff says, under the buttons, why Push is off.
func (w *runWindow) sayPushOff(why string) {
	w.pushWhy.SetText(why)
	w.pushWhy.Show()
}

// pushBranch pushes the run's branch, off Fyne's goroutine, and says what happened.
func (w *runWindow) pushBranch() {
	if w.pushing || !w.pushOK || w.deps.pusher == nil {
		return
	}
	if w.shipSet.Uncommitted() && w.deps.shipper != nil {
		w.openCommit(w.shipSet)
		return
	}
	w.pushing = true
	w.push.Disable()
	w.note.SetText("Pushing…")
	id := w.info.ID
	go func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
		defer cancel()
		words, err := w.deps.pusher.Push(ctx, id)
		cs := w.recordChanges() // the attempt, as the pusher recorded it
		onUI(func() {
			defer w.settled.Add(1)
			w.pushing = false
			w.push.Enable()
			w.addToTimeline(cs)
			committed := w.committed
			w.committed = ""
			if err != nil {
				w.note.SetText(strings.TrimSpace(committed + " Not pushed: " + err.Error()))
				return
			}
			w.note.SetText(strings.TrimSpace(committed + " " + words))
			if w.deps.shipper != nil && w.prLink.Hidden {
				w.pr.Show()
				w.pr.Enable()
			}
		})
	}()
}
