package app

import (
	"errors"
	"net/url"
	"strings"

	"github.com/segwi/segwi/runs/record"
)

// keepsGoingHint says, while the run is live, that closing its window leaves it going and
// where the window opens again.
const keepsGoingHint = "Closing this window leaves the run going: segwi's tray menu opens it again."

// pressFinish ends the run once its current turn is done: no more follow-ups.
func (w *runWindow) pressFinish() {
	if w.run == nil || w.ended {
		return
	}
	w.run.CloseInput()
	w.finished = true
	w.finish.Disable()
	w.followUp.Disable()
	w.send.Disable()
	w.showReply(false)
	w.note.SetText("No more follow-ups: the run ends when its current turn is done.")
	w.untilEnd = true
}

// pressStop stops the run: the first press politely, the next ones by force.
func (w *runWindow) pressStop() {
	if w.run == nil || w.ended {
		return
	}
	w.run.Stop()
	if !w.stopPressed {
		w.stopPressed = true
		w.stop.SetText("Force stop")
		w.note.SetText("Stopping: the run got SIGTERM; Force stop kills it now.")
		w.untilEnd = true
		return
	}
	w.note.SetText("Force stop: the run's processes got SIGKILL.")
	w.untilEnd = true
}

// sendFollowUp sends the entry's text to the run, off Fyne's goroutine (Send may wait up
// to 10 s for Claude Code to read it).
func (w *runWindow) sendFollowUp() {
	text := strings.TrimSpace(w.followUp.Text)
	if w.run == nil || w.ended || w.sending || text == "" {
		return
	}
	w.sending = true
	w.send.Disable()
	w.note.SetText("Sending…")
	run := w.run
	go func() {
		err := run.Send(text)
		onUI(func() {
			defer w.settled.Add(1)
			w.sending = false
			if !w.ended {
				w.send.Enable()
			}
			if err != nil {
				w.note.SetText("Not sent: " + sendError(err))
				return
			}
			w.note.SetText("Sent.")
			if strings.TrimSpace(w.followUp.Text) == text {
				w.followUp.SetText("")
			}
		})
	}()
}

// sendError says why a follow-up was not sent.
func sendError(err error) string {
	switch {
	case errors.Is(err, record.ErrNotRunning):
		return "the run is not running (it has not started yet, or it ended)"
	case errors.Is(err, record.ErrInputClosed):
		return "the run's input is closed: it is finishing"
	}
	return err.Error()
}

// openFolder opens the checkout in the file manager, off Fyne's goroutine (the opener may
// take a moment to say it failed); when it cannot, the note says why and the path goes on
// the clipboard.
func (w *runWindow) openFolder() {
	path := w.info.Checkout
	u := &url.URL{Scheme: "file", Path: path}
	open := w.deps.openURL
	if open == nil {
		open = w.deps.app.OpenURL
	}
	go func() {
		err := open(u)
		onUI(func() {
			if err != nil && !w.closed.Load() {
				w.deps.app.Clipboard().SetContent(path)
				w.note.SetText(openFailed("the folder", path, err))
			}
		})
	}()
}
