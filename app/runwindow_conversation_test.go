package app

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/test"
	"fyne.io/fyne/v2/widget"
	"github.com/google/go-cmp/cmp"

	"github.com/segwi/segwi/internal/testing/await"

	"github.com/segwi/segwi/internal/testing/records"
	"github.com/segwi/segwi/runs"
)

// A continued run's window ships the whole conversation: Commit and push is prefilled
// with the first run's task and Claude's final summary, not the follow-up's words, lists
// the conversation's changes and sets apart what was changed before its first run (before,
// the dialog said "before the run started", the follow-up's), and the pull request is
// prefilled with the first task. Before, both said "Yes, mention it in the README.".
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
	var labels []string
	ui(func() {
		test.Tap(w.push)
		if w.commitForm != nil {
			msg = w.commitForm.entry.Text
			labels = settingsLabels(w.win.Canvas().Overlays().Top())
		}
	})
	for _, want := range []string{"The conversation's changes (its 2 runs), committed:",
		"Changed before the first run started (perhaps yours): left out unless ticked"} {
		if !slices.Contains(labels, want) {
			t.Errorf("the commit dialog says %q, want %q in it", labels, want)
		}
	}
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

// A continued run's window lists the conversation's runs in order under its header, its
// own marked, and a click on another run's line opens that run's window; a run alone
// lists none. Before, the window of a continued run said nothing of the runs before it.
func TestAContinuedRunsWindowListsTheConversationsRuns(t *testing.T) {
	state := t.TempDir()
	first := endedBuild
	second := runs.Info{ID: "20250314-100000-c0ffee", Kind: runs.KindBuild, Checkout: first.Checkout, Prompt: "Yes, mention it in the README.",
		Base: first.Base, State: runs.StateSucceeded, Created: runT0.Add(30 * time.Minute), ContinuedFrom: first.ID, SessionID: first.SessionID}
	third := runs.Info{ID: "20250314-110000-7e1a57", Kind: runs.KindBuild, Checkout: first.Checkout, Prompt: "And the changelog\nplease",
		Base: first.Base, State: runs.StateFailed, Created: runT0.Add(90 * time.Minute), ContinuedFrom: second.ID, SessionID: first.SessionID}
	first.ContinuedBy, second.ContinuedBy = []string{second.ID}, []string{third.ID}
	for _, in := range []runs.Info{first, second, third} {
		records.WriteRun(t, state, in)
	}
	var opened []string
	w := recordWindow(t, second, func(d *runWindowDeps) {
		d.stateDir = state
		d.openRun = func(id string) { opened = append(opened, id) }
	})
	await.For(t, 10*time.Second, "the conversation's runs listed", func() bool { return w.convShown.Load() > 0 })
	var lines []string
	var links []*widget.Hyperlink
	ui(func() {
		for _, o := range w.convRuns.Objects {
			switch o := o.(type) {
			case *widget.Hyperlink:
				lines, links = append(lines, "link|"+o.Text), append(links, o)
			case *widget.Label:
				lines = append(lines, "label|"+o.Text)
			}
		}
	})
	at := func(d time.Duration) string { return runT0.Add(d).Local().Format("2006-01-02 15:04") }
	want := []string{
		"link|Run 1 of 3: Greet the reader… · succeeded · " + at(0),
		"label|Run 2 of 3: Yes, mention it in the README. · succeeded · " + at(30*time.Minute) + " (this window)",
		"link|Run 3 of 3: And the changelog… · failed · " + at(90*time.Minute),
	}
	if diff := cmp.Diff(want, lines); diff != "" {
		t.Fatalf("the conversation's runs (-want +got):\n%s", diff)
	}
	ui(func() {
		for _, l := range []*widget.Hyperlink{links[1], links[0]} { // on the text, where a person clicks
			test.TapAt(l, fyne.NewPos(l.Size().Width/4, l.Size().Height/2))
		}
	})
	if diff := cmp.Diff([]string{third.ID, first.ID}, opened); diff != "" {
		t.Errorf("the runs opened (-want +got):\n%s", diff)
	}

	alone := recordWindow(t, runs.Info{ID: "20250314-120000-a10e00", Kind: runs.KindBuild, Checkout: "/home/ada/src/api",
		Prompt: "Fix it", State: runs.StateSucceeded, Created: runT0}, func(d *runWindowDeps) { d.stateDir = state })
	await.For(t, 10*time.Second, "the lone run's window to show its record", func() bool { return alone.refreshes.Load() > 0 })
	var hidden bool
	ui(func() { hidden = alone.convRuns.Hidden })
	if !hidden {
		t.Error("a run alone lists its conversation's runs, want no list")
	}
}

// Past five runs, the list shows the first, how many it leaves out, and the latest.
func TestALongConversationsListKeepsTheFirstAndTheLatest(t *testing.T) {
	var conv runs.Conversation
	for i := range 9 {
		conv.Runs = append(conv.Runs, runs.Info{ID: fmt.Sprintf("r%d", i+1), Prompt: fmt.Sprintf("turn %d", i+1),
			State: runs.StateSucceeded, Created: runT0.Add(time.Duration(i) * time.Minute)})
	}
	lines, ids := conversationLines(conv, "r9")
	if len(lines) != maxConversationLines {
		t.Fatalf("%d lines, want %d: %q", len(lines), maxConversationLines, lines)
	}
	if diff := cmp.Diff([]string{"r1", "", "r7", "r8", "r9"}, ids); diff != "" {
		t.Errorf("the runs listed (-want +got):\n%s", diff)
	}
	if lines[1] != "… 5 runs left out: the run history lists them all" || !strings.HasSuffix(lines[4], "(this window)") {
		t.Errorf("lines %q", lines)
	}
}
