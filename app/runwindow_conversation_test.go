package app

import (
	"testing"
	"time"

	"fyne.io/fyne/v2/test"

	"github.com/segwi/segwi/internal/testing/records"
	"github.com/segwi/segwi/runs"
)

// A continued run's window ships the whole conversation: Commit and push is prefilled
// with the first run's task and Claude's final summary, not the follow-up's words, and the
// pull request with the first task. Before, both said "Yes, mention it in the README.".
func TestAContinuedRunsWindowPrefillsTheConversationsStory(t *testing.T) {
	state := t.TempDir()
	first := endedBuild
	cont := runs.Info{ID: "20250314-100000-c0ffee", Kind: runs.KindBuild, Checkout: first.Checkout, Prompt: "Yes, mention it in the README.",
		Base: first.Base, State: runs.StateSucceeded, Created: runT0.Add(30 * time.Minute), ContinuedFrom: first.ID, SessionID: first.SessionID}
	first.ContinuedBy = []string{cont.ID}
	records.WriteRun(t, state, first)
	records.WriteRun(t, state, cont)
	if _, err := runs.AppendEvent(state, cont.ID, runs.Event{Type: runs.EventText, Text: "The reader is greeted, and the README says so."}); err != nil {
		t.Fatal(err)
	}
	order := []string{}
	w := recordWindow(t, cont, func(d *runWindowDeps) {
		d.stateDir = state
		d.pusher = &orderedPusher{order: &order}
		d.changes = &scriptedChanges{calls: make(chan string, 4), set: shipSet}
		d.shipper = &fakeShipper{order: &order, prURL: "https://github.com/ada/web/pull/7"}
	})
	var msg string
	ui(func() {
		test.Tap(w.push)
		if w.commitForm != nil {
			msg = w.commitForm.entry.Text
		}
	})
	if want := "Greet the reader\n\nThe reader is greeted, and the README says so."; msg != want {
		t.Errorf("the commit message is prefilled with %q, want %q", msg, want)
	}
	var title string
	ui(func() {
		w.openPullRequest()
		title = w.prForm.entry.Text
	})
	if title != "Greet the reader" {
		t.Errorf("the pull request's title is prefilled with %q, want the first task's first line", title)
	}
}
