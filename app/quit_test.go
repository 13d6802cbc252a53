package app

import (
	"context"
	"strings"
	"testing"
	"time"

	"fyne.io/fyne/v2/test"
	"fyne.io/fyne/v2/widget"

	"github.com/segwi/segwi/control"
	"github.com/segwi/segwi/runs"
)

// The quit question agrees with how many runs it stops.
func TestTheQuitQuestionCountsTheRuns(t *testing.T) {
	for n, want := range map[int]string{
		1: "1 run is still going. Quitting stops it: first politely, then by force after 10s.",
		3: "3 runs are still going. Quitting stops them: first politely, then by force after 10s.",
	} {
		if got := quitQuestion(n, 10*time.Second); got != want {
			t.Errorf("quitQuestion(%d) = %q, want %q", n, got, want)
		}
	}
}

// Quit names the runs it stops, each as its window is titled, with what it is doing.
func TestTheQuitQuestionNamesTheRuns(t *testing.T) {
	fix := runs.Info{ID: "r1", Kind: runs.KindBuild, Checkout: "/home/ada/src/web", Prompt: "Fix the login form\nand its tests", State: runs.StateRunning}
	ask := runs.Info{ID: "r2", Kind: runs.KindAsk, Checkout: "/home/ada/src/api", Prompt: "Why is the import slow?",
		State: runs.StateWaiting, Waiting: runs.WaitReply}
	more := runs.Info{ID: "r3", Kind: runs.KindBuild, Checkout: "/home/ada/src/web", Prompt: "Yes, mention it in the README.",
		ContinuedFrom: "r1", State: runs.StateQueued}
	h := newDeskHarness(t, func(p *control.Peer) {
		p.Send(control.SettingsReport{StateDir: t.TempDir()})
		p.Send(control.Runs{Runs: []control.Run{control.RunOf(fix, "web"), control.RunOf(ask, "api"), control.RunOf(more, "web")}})
	})
	if rep, err := h.peer.Request(context.Background(), control.Show{Window: control.ShowQuit}); err != nil || rep.Error != "" {
		t.Fatalf("Show = %+v, %v", rep, err)
	}
	var texts []string
	ui(func() {
		w := h.d.quitWin
		if w == nil {
			t.Fatal("no quit window")
		}
		for _, o := range test.LaidOutObjects(w.Content()) {
			if l, ok := o.(*widget.Label); ok {
				texts = append(texts, l.Text)
			}
		}
	})
	got := strings.Join(texts, "\n")
	for _, want := range []string{
		"3 runs are still going.",
		"• Fix the login form… · build run in web (running)",
		"• Why is the import slow? · ask run in api (waiting for your reply)",
		"• Yes, mention it in the README. · build run in web, continued (queued)",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("the quit window says\n%s\nwant it to say %q", got, want)
		}
	}
}

// Run windows are titled by their task: the windows of two runs in one repository, and of
// a run and the run that continues it, are told apart; a row opened in full says its event
// and its run's task.
func TestRunWindowsAreTitledByTheirTask(t *testing.T) {
	h := newRunHarness(t, 4)
	if got, want := h.w.win.Title(), "Fix the login form… · build run in Web shop"; got != want {
		t.Errorf("the run window is titled %q, want %q", got, want)
	}
	for _, tt := range []struct {
		info runs.Info
		want string
	}{
		{runs.Info{Kind: runs.KindBuild, Prompt: "Yes, mention it in the README.", ContinuedFrom: "r1"}, "Yes, mention it in the README. · build run in web, continued"},
		{runs.Info{Kind: runs.KindAsk, Prompt: "Where is the \u202eform?"}, `Where is the \u202eform? · ask run in web`},
		{runs.Info{Kind: runs.KindReady}, "Get the branch ready for review · ready run in web"},
		{runs.Info{Kind: runs.KindBuild, Prompt: strings.Repeat("a", 80)}, strings.Repeat("a", maxTitleTask) + "… · build run in web"},
	} {
		if got := runTitle(tt.info, "web"); got != tt.want {
			t.Errorf("runTitle(%+v) = %q, want %q", tt.info, got, tt.want)
		}
	}
	// What the tray says later of the run (a continuation it just started) titles it too.
	h.run.setInfo(func(i *runs.Info) { i.ContinuedFrom = "20250314-080000-beef" })
	h.sendAndFlush(ev(runs.EventText, func(e *runs.Event) { e.Text = "On it." }))
	if got, want := h.w.win.Title(), "Fix the login form… · build run in Web shop, continued"; got != want {
		t.Errorf("once the tray says it continues a run, the window is titled %q, want %q", got, want)
	}
	onUIWait(func() { h.w.openDetails("Claude · event 3 · 09:27:05", "text") })
	if got, want := h.w.details.win.Title(), "Claude · event 3 · 09:27:05 · Fix the login form… · build run in Web shop, continued"; got != want {
		t.Errorf("the details window is titled %q, want %q", got, want)
	}
}
