package app

import (
	"context"
	"strings"
	"sync"
	"testing"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/test"

	"github.com/segwi/segwi/control"
	"github.com/segwi/segwi/internal/testing/await"
	"github.com/segwi/segwi/internal/testing/claudetest"
	"github.com/segwi/segwi/runs"
	"github.com/segwi/segwi/runs/changes"
)

// fakeShipper records what the run window asks of the tray, and answers as told.
type fakeShipper struct {
	mu        sync.Mutex
	commits   []changes.CommitOptions
	prs       []string // "title|body"
	continues []string // the prompts
	prURL     string
	continued liveRun
	order     *[]string // "commit", "push", in the order asked, shared with a pusher
}

func (s *fakeShipper) Commit(_ context.Context, _ string, opts changes.CommitOptions) (changes.Committed, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.commits = append(s.commits, opts)
	*s.order = append(*s.order, "commit")
	return changes.Committed{Commit: "89abcdef0123456789ab", Branch: "segwi/greet", Subject: opts.Message,
		Files: []string{"hello.txt", "x.txt"}, LeftOut: leftOut(opts.Include)}, nil
}

// leftOut is what a commit that includes include leaves out of the changes of shipSet.
func leftOut(include []string) []string {
	for _, p := range include {
		if p == "notes.txt" {
			return nil
		}
	}
	return []string{"notes.txt"}
}

func (s *fakeShipper) OpenPullRequest(_ context.Context, _, title, body string) (string, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.prs = append(s.prs, title+"|"+body)
	return s.prURL, nil
}

func (s *fakeShipper) Continue(_ context.Context, _, prompt string) (liveRun, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.continues = append(s.continues, prompt)
	return s.continued, nil
}

// orderedPusher is a pusher whose pushes work and are noted in order.
type orderedPusher struct {
	mu    sync.Mutex
	order *[]string
}

func (p *orderedPusher) Check(context.Context, string) error { return nil }

func (p *orderedPusher) Push(context.Context, string) (string, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	*p.order = append(*p.order, "push")
	return "Pushed segwi/greet to origin (https://github.com/ada/web.git).", nil
}

// shipSet is what a build run changed: two files of its own, and notes.txt, which was
// already changed before it started.
var shipSet = control.ChangeSet{
	Base: changes.Base{Repo: "/home/ada/src/web", Branch: "segwi/greet", Commit: "0123456789abcdef", Dirty: []string{"notes.txt"}, DirtyCount: 1},
	Files: []changes.File{
		{Path: "hello.txt", Status: changes.Modified, Added: 1, Uncommitted: true},
		{Path: "notes.txt", Status: changes.Modified, Added: 2, Uncommitted: true, DirtyAtBase: true},
		{Path: "x.txt", Status: changes.Added, Added: 1, Uncommitted: true},
	},
}

// recordWindow opens the window of the ended run info, from its record, with change
// applied to its dependencies, and waits until its push was checked.
func recordWindow(t *testing.T, info runs.Info, change func(*runWindowDeps)) *runWindow {
	t.Helper()
	deps := runWindowDeps{app: test.NewTempApp(t), now: func() time.Time { return runT0.Add(time.Hour) }}
	change(&deps)
	var w *runWindow
	ui(func() {
		w = newRunWindow(deps, nil, info)
		w.win.Resize(fyne.NewSize(820, 600))
		w.win.Show()
	})
	t.Cleanup(func() {
		// Not before the window has shown the record: its drawing would go on into the
		// next test, on another goroutine than that test's widgets.
		await.For(t, 10*time.Second, "the window to show the record", func() bool { return w.refreshes.Load() > 0 })
		ui(func() {
			if !w.closed.Load() {
				w.win.Close()
			}
		})
	})
	if deps.pusher != nil && info.Kind != runs.KindAsk {
		await.For(t, 10*time.Second, "the push to be checked", func() bool {
			return w.pushChecked.Load()
		})
	}
	return w
}

var endedBuild = runs.Info{ID: "20250314-092653-5e1f00", Kind: runs.KindBuild, Checkout: "/home/ada/src/web", Prompt: "Greet the reader\nin hello.txt",
	Base:  &changes.Base{Repo: "/home/ada/src/web", Branch: "segwi/greet", Commit: "0123456789abcdef0123456789abcdef01234567"},
	State: runs.StateSucceeded, Created: runT0, Start: runT0, End: runT0.Add(3 * time.Minute), SessionID: "5e55-10n"}

// An ask run changes nothing: its window offers no Push, and asks the tray nothing about
// pushing.
func TestAnAskRunsWindowOffersNoPush(t *testing.T) {
	info := endedBuild
	info.Kind = runs.KindAsk
	reader := &scriptedChanges{calls: make(chan string, 4), set: shipSet}
	w := recordWindow(t, info, func(d *runWindowDeps) {
		d.pusher, d.changes, d.shipper = &orderedPusher{order: &[]string{}}, reader, &fakeShipper{order: &[]string{}}
	})
	onUIWait(func() {
		if w.push.Visible() && !w.closed.Load() && isShown(w.win.Content(), w.push) {
			t.Error("the window of an ask run offers Push")
		}
	})
	select {
	case <-reader.calls:
		t.Error("the window of an ask run read its changes to push them")
	default:
	}
}

// isShown reports whether o is among the objects of the tree under root.
func isShown(root, o fyne.CanvasObject) bool {
	if root == o {
		return true
	}
	if c, ok := root.(*fyne.Container); ok {
		for _, child := range c.Objects {
			if isShown(child, o) {
				return true
			}
		}
	}
	return false
}

// With changes not committed, Push is "Commit and push…": its message is the run's task,
// the run's own files are listed, the file changed before the run is listed apart and
// left out unless ticked; the commit comes before the push, and the pull request is then
// offered, with the title and body the person edits, and shown as a link once opened.
func TestCommitAndPushLeavesOutWhatWasChangedBeforeAndThenOffersAPullRequest(t *testing.T) {
	for _, tick := range []bool{false, true} {
		name := "the file changed before the run is left out"
		if tick {
			name = "the file changed before the run is ticked, and included"
		}
		t.Run(name, func(t *testing.T) {
			order := []string{}
			ship := &fakeShipper{order: &order, prURL: "https://github.com/ada/web/pull/7"}
			reader := &scriptedChanges{calls: make(chan string, 4), set: shipSet}
			w := recordWindow(t, endedBuild, func(d *runWindowDeps) {
				d.pusher, d.changes, d.shipper = &orderedPusher{order: &order}, reader, ship
			})
			if got := w.push.Text; got != "Commit and push…" {
				t.Fatalf("the push button reads %q, want Commit and push…", got)
			}
			test.Tap(w.push)
			f := w.commitForm
			if f == nil {
				t.Fatal("Commit and push opened no dialog")
			}
			if f.entry.Text != "Greet the reader" {
				t.Errorf("the commit message is prefilled with %q, want the task's first line", f.entry.Text)
			}
			if len(f.included) != 1 || f.included[0].Text != "notes.txt" || f.included[0].Checked {
				t.Fatalf("the files changed before the run are offered as %+v, want notes.txt, unticked", f.included)
			}
			if !tick {
				assertMarkup(t, "runwindow_commit.xml", w.win.Canvas())
			}
			f.entry.SetText(f.entry.Text + " politely")
			if tick {
				test.Tap(f.included[0])
			}
			test.Tap(f.ok)
			await.For(t, 10*time.Second, "the commit and the push", func() bool { return w.settled.Load() == 1 })

			wantInclude := []string(nil)
			if tick {
				wantInclude = []string{"notes.txt"}
			}
			if len(ship.commits) != 1 || ship.commits[0].Message != "Greet the reader politely" || strings.Join(ship.commits[0].Include, ",") != strings.Join(wantInclude, ",") {
				t.Errorf("committed %+v, want the edited message, including %q", ship.commits, wantInclude)
			}
			if strings.Join(order, ",") != "commit,push" {
				t.Errorf("the tray was asked to %v, want commit then push", order)
			}
			note := w.note.Text
			if !strings.HasPrefix(note, "Committed 89abcdef0123 on segwi/greet: Greet the reader politely (2 files") ||
				!strings.HasSuffix(note, "Pushed segwi/greet to origin (https://github.com/ada/web.git).") {
				t.Errorf("note = %q", note)
			}
			if tick == strings.Contains(note, "; left out, changed before the run: notes.txt).") {
				t.Errorf("note = %q; it names what was left out when it left something out", note)
			}

			if !w.pr.Visible() {
				t.Fatal("no Open pull request after the push")
			}
			test.Tap(w.pr)
			pf := w.prForm
			if pf.entry.Text != "Greet the reader" || pf.body.Text != "" {
				t.Errorf("the pull request is prefilled with %q and %q, want the task's first line and the tray's body", pf.entry.Text, pf.body.Text)
			}
			pf.entry.SetText("Greet the reader politely")
			pf.body.SetText("Says hello.")
			test.Tap(pf.ok)
			await.For(t, 10*time.Second, "the pull request", func() bool { return w.settled.Load() == 2 })
			if strings.Join(ship.prs, "\n") != "Greet the reader politely|Says hello." {
				t.Errorf("pull requests asked for: %q", ship.prs)
			}
			if !w.prLink.Visible() || w.prLink.URL.String() != "https://github.com/ada/web/pull/7" || w.pr.Visible() {
				t.Errorf("the link shows %v with %v; the button is visible: %v", w.prLink.Visible(), w.prLink.URL, w.pr.Visible())
			}
		})
	}
}

// Continue on an ended run asks for the next message, starts the run that resumes its
// session through the tray, and opens the new run's window.
func TestContinueStartsTheNextRunAndOpensItsWindow(t *testing.T) {
	next := newFakeRun(t, runs.Info{ID: "20250314-100000-0c0c0c", Kind: runs.KindBuild, State: runs.StateQueued}, 1)
	ship := &fakeShipper{order: &[]string{}, continued: next}
	opened := make(chan liveRun, 1)
	w := recordWindow(t, endedBuild, func(d *runWindowDeps) {
		d.shipper = ship
		d.showRun = func(r liveRun) { opened <- r }
	})
	await.For(t, 10*time.Second, "Continue to be offered", func() bool {
		shown := false
		onUIWait(func() { shown = w.cont.Visible() })
		return shown
	})
	test.Tap(w.cont)
	f := w.continueForm
	if w.win.Canvas().Focused() != f.entry {
		t.Errorf("the Continue dialog opened with the focus on %T, want its text box", w.win.Canvas().Focused())
	}
	// With no prompt, Continue is off and the dialog stays: nothing to say "not continued" about.
	if !f.ok.Disabled() {
		t.Error("Continue is on with nothing typed")
	}
	test.Tap(f.ok)
	f.entry.TypedShortcut(startShortcut)
	if len(ship.continues) != 0 || w.win.Canvas().Overlays().Top() == nil || strings.Contains(w.note.Text, "Not continued") {
		t.Errorf("an empty prompt: continued %q, dialog open %v, note %q; want nothing started, the dialog open and no stale note",
			ship.continues, w.win.Canvas().Overlays().Top() != nil, w.note.Text)
	}
	// Esc cancels; Continue… again, the text typed, Ctrl+Enter continues.
	f.entry.TypedKey(&fyne.KeyEvent{Name: fyne.KeyEscape})
	if w.win.Canvas().Overlays().Top() != nil {
		t.Error("Esc left the dialog open")
	}
	test.Tap(w.cont)
	f = w.continueForm
	test.Type(f.entry, "now in French")
	if f.ok.Disabled() {
		t.Error("Continue is off with a prompt typed")
	}
	f.entry.TypedShortcut(startShortcut)
	select {
	case r := <-opened:
		if r.ID() != next.ID() {
			t.Errorf("opened the window of run %s, want %s", r.ID(), next.ID())
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the continued run's window was not opened")
	}
	if strings.Join(ship.continues, "|") != "now in French" {
		t.Errorf("continued with %q", ship.continues)
	}
}

// Continue on an ACP run names its agent, not Claude Code, in the dialog's words.
func TestContinueNamesAnACPRunsAgent(t *testing.T) {
	for _, c := range []struct{ runtime, agent string }{{"", "Claude Code"}, {"codex", "codex"}} {
		info := endedBuild
		info.Runtime = c.runtime
		w := recordWindow(t, info, func(d *runWindowDeps) { d.shipper = &fakeShipper{order: &[]string{}} })
		await.For(t, 10*time.Second, "Continue to be offered", func() bool {
			shown := false
			onUIWait(func() { shown = w.cont.Visible() })
			return shown
		})
		var hint string
		var labels []string
		onUIWait(func() {
			test.Tap(w.cont)
			hint = w.continueForm.entry.PlaceHolder
			labels = settingsLabels(w.win.Canvas().Overlays().Top())
		})
		said := hint + "\n" + strings.Join(labels, "\n")
		wantHint := "What " + c.agent + " should do next, in the same session"
		wantLabel := "resumes this run's " + c.agent + " session."
		if hint != wantHint || !strings.Contains(said, wantLabel) {
			t.Errorf("runtime %q: the dialog says %q; want %q and %q", c.runtime, said, wantHint, wantLabel)
		}
		if c.runtime != "" && strings.Contains(said, "Claude") {
			t.Errorf("runtime %q: the dialog names Claude: %q", c.runtime, said)
		}
	}
}

// A run without a recorded session cannot be continued: no Continue.
func TestARunWithoutASessionOffersNoContinue(t *testing.T) {
	info := endedBuild
	info.SessionID = ""
	w := recordWindow(t, info, func(d *runWindowDeps) { d.shipper = &fakeShipper{order: &[]string{}} })
	await.For(t, 10*time.Second, "the record to be shown", func() bool { return w.refreshes.Load() > 0 })
	onUIWait(func() {
		if w.cont.Visible() {
			t.Error("Continue is offered for a run with no session")
		}
	})
}

// A run whose pull request was opened shows it as a link when its window opens again.
func TestARunsRecordedPullRequestShowsAsALink(t *testing.T) {
	info := endedBuild
	info.PullRequest = "https://github.com/ada/web/pull/9"
	w := recordWindow(t, info, func(d *runWindowDeps) { d.shipper = &fakeShipper{order: &[]string{}} })
	await.For(t, 10*time.Second, "the link to the pull request", func() bool {
		shown := false
		onUIWait(func() { shown = w.prLink.Visible() && w.prLink.URL != nil && w.prLink.URL.String() == info.PullRequest })
		return shown
	})
}

// The window's commit and continue reach the tray's core over the channel: the commit is
// made in the checkout as the person, leaving out what was changed before the run, and a
// run with no session is not continued, saying why.
func TestTheWindowCommitsAndContinuesThroughTheTray(t *testing.T) {
	r := newChangedRun(t, "notes.txt")
	link := trayOver(t, r.stateDir)
	ctx := context.Background()
	c, err := link.Commit(ctx, r.id, changes.CommitOptions{Message: "Greet the reader"})
	if err != nil {
		t.Fatalf("Commit: %v", err)
	}
	if strings.Join(c.Files, ",") != "hello.txt,x.txt" || strings.Join(c.LeftOut, ",") != "notes.txt" || c.Subject != "Greet the reader" {
		t.Errorf("committed %+v, want hello.txt and x.txt as Greet the reader, notes.txt left out", c)
	}
	if got := claudetest.Status(t, r.checkout); got != "?? notes.txt" {
		t.Errorf("git status after the commit:\n%s\nwant only the person's notes.txt left", got)
	}
	if got := claudetest.Git(t, r.checkout, "log", "-1", "--format=%s"); got != "Greet the reader" {
		t.Errorf("the checkout's last commit is %q", got)
	}
	if _, err := link.Continue(ctx, r.id, "and now in French"); err == nil || !strings.Contains(err.Error(), "no Claude Code session recorded") {
		t.Errorf("continuing a run with no session = %v, want the tray's refusal", err)
	}
}
