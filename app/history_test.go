package app

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/test"
	"github.com/google/go-cmp/cmp"

	"github.com/segwi/segwi/internal/testing/await"
	"github.com/segwi/segwi/internal/testing/measure"
	"github.com/segwi/segwi/internal/testing/records"
	"github.com/segwi/segwi/runs"
	"github.com/segwi/segwi/runs/worktree"
	"github.com/segwi/segwi/settings"
)

// openHistory opens the history window over state, as the desk does, on Fyne's goroutine,
// and waits until it shows the runs it read.
func openHistory(t *testing.T, a fyne.App, state string, repos func() []settings.Repository, open func(string)) *historyWindow {
	t.Helper()
	var h *historyWindow
	closed := false
	ui(func() {
		h = newHistoryWindow(a, state, repos, open)
		h.win.SetOnClosed(func() { closed = true })
		h.Show()
	})
	t.Cleanup(func() {
		ui(func() {
			if !closed {
				h.win.Close()
			}
		})
	})
	awaitHistory(t, h)
	return h
}

// awaitHistory waits until h shows the runs of its last reload.
func awaitHistory(t *testing.T, h *historyWindow) {
	t.Helper()
	await.For(t, 30*time.Second, "the history to show the runs it read", func() bool {
		var done bool
		ui(func() { done = h.shown == h.reads })
		return done
	})
}

// historyTexts returns the history's note and lines, read on Fyne's goroutine.
func historyTexts(h *historyWindow) (note string, lines []string) {
	ui(func() {
		note = h.note.Text
		for _, r := range h.rows {
			lines = append(lines, historyLine(r, h.repos(), h.worktreeNote(r.sum, false)))
		}
	})
	return note, lines
}

func TestHistoryListsRunsNewestFirstAndOpensOne(t *testing.T) {
	a := test.NewTempApp(t)
	state := t.TempDir()
	web := "/home/ada/src/web"
	repos := func() []settings.Repository { return []settings.Repository{{Name: "web", Path: web}} }
	older := runs.Info{ID: "r1", Kind: runs.KindBuild, Checkout: web, Prompt: "fix the login\nand the tests",
		State: runs.StateSucceeded, Created: time.Date(2026, 3, 14, 9, 26, 0, 0, time.Local), CostUSD: 0.12}
	newer := runs.Info{ID: "r2", Kind: runs.KindAsk, Checkout: "/tmp/elsewhere", Prompt: "what is this?",
		State: runs.StateFailed, Created: time.Date(2026, 3, 15, 10, 0, 0, 0, time.Local)}

	var opened []string
	h := openHistory(t, a, state, repos, func(id string) { opened = append(opened, id) })
	if note, _ := historyTexts(h); note != "No runs yet. Start one from the tray menu." {
		t.Errorf("with no runs the note says %q, want %q", note, "No runs yet. Start one from the tray menu.")
	}

	records.WriteRun(t, state, older)
	records.WriteRun(t, state, newer)
	refresh := settingsButton(t, h.win, "Refresh")
	ui(func() { test.Tap(refresh) })
	awaitHistory(t, h)
	note, lines := historyTexts(h)
	if want := "2 runs, the newest first. Click one to see it."; note != want {
		t.Errorf("note = %q, want %q", note, want)
	}
	wantLines := []string{
		"2026-03-15 10:00 · elsewhere · ask · failed · what is this?",
		"2026-03-14 09:26 · web · build · succeeded · $0.1200 · fix the login…",
	}
	if fmt.Sprint(lines) != fmt.Sprint(wantLines) {
		t.Errorf("lines = %q, want %q", lines, wantLines)
	}
	ui(func() { h.list.Select(1) })
	if len(opened) != 1 || opened[0] != "r1" {
		t.Errorf("clicking the second line opened %v, want [r1]", opened)
	}
}

// Figures of issue 22 for the history over many runs.
const (
	manyRuns        = 10_000
	historyOpenGoal = 300 * time.Millisecond // the window open, every run in its list (warm)
	// historyShare is the most CPU time opening the history may take of what runs.List
	// takes to read every record (as the history did, on Fyne's goroutine, to show 1,000
	// of them), measured beside it: a clear regression beyond it.
	historyShare = 0.5
	historyTries = 5
)

// TestHistoryOfManyRunsOpensQuicklyWithEveryRun opens the history over 10,000 runs: it
// shows all of them, newest first, with their true count, within the goal once warm (the
// runs index written at the first opening). It prints the figures, and fails when an
// opening takes more than half of the CPU time runs.List takes to read every record.
func TestHistoryOfManyRunsOpensQuicklyWithEveryRun(t *testing.T) {
	if testing.Short() {
		t.Skip("writes 10,000 run records")
	}
	a := test.NewTempApp(t)
	state := t.TempDir()
	many := records.WriteMany(t, state, manyRuns)
	repos := func() []settings.Repository { return nil }

	list := measure.Best(t, historyTries, "runs.List (every record read)", func() {
		if infos, _, err := runs.List(state); err != nil || len(infos) != manyRuns {
			t.Fatalf("List = %d runs, %v", len(infos), err)
		}
	})
	start := time.Now()
	openHistory(t, a, state, repos, func(string) {})
	t.Logf("history opened with no runs index yet (it builds one): %d ms", time.Since(start).Milliseconds())
	var h *historyWindow
	open := measure.Best(t, historyTries, "history opened, every run listed", func() {
		if h != nil {
			ui(h.win.Close)
		}
		h = openHistory(t, a, state, repos, func(string) {})
	})
	t.Logf("history open: %d ms (best of %d; goal <= %d ms)", open.Wall.Milliseconds(), historyTries, historyOpenGoal.Milliseconds())

	note, lines := historyTexts(h)
	sums, _, err := runs.Summaries(state)
	if err != nil {
		t.Fatal(err)
	}
	want := fmt.Sprintf("%d runs in %d conversations, the newest first, a continued run under the one it continues. Click one to see it.",
		manyRuns, len(runs.GroupConversations(sums)))
	if note != want {
		t.Errorf("the note says %q, want %q", note, want)
	}
	var first, last string
	ui(func() { first, last = h.rows[0].sum.ID, h.rows[len(h.rows)-1].sum.ID })
	if len(lines) != manyRuns || first != many.IDs[manyRuns-1] || last != many.IDs[0] {
		t.Errorf("the history lists %d runs from %s to %s, want %d from %s down to %s",
			len(lines), first, last, manyRuns, many.IDs[manyRuns-1], many.IDs[0])
	}
	if float64(open.CPU) > historyShare*float64(list.CPU) {
		t.Errorf("opening the history over %d runs took %d ms of CPU, more than %.0f%% of List's %d ms",
			manyRuns, open.CPU.Milliseconds(), 100*historyShare, list.CPU.Milliseconds())
	}
}

// The history groups a conversation: the continued run under the one it continues, in
// order, the conversation placed by its latest run; it shows the state, the pushed and
// pull request badges and the cost of each run, and a task's hidden characters escaped.
// The search box keeps the conversations a run of which matches, by task or repository,
// and a click on a continuation opens that run.
func TestHistoryGroupsAConversationAndSearchesIt(t *testing.T) {
	a := test.NewTempApp(t)
	state := t.TempDir()
	web, api := "/home/ada/src/web", "/home/ada/src/api"
	repos := func() []settings.Repository {
		return []settings.Repository{{Name: "web", Path: web}, {Name: "api", Path: api}}
	}
	at := func(day, h, m int) time.Time { return time.Date(2026, 3, day, h, m, 0, 0, time.Local) }
	records.WriteRun(t, state, runs.Info{ID: "r1", Kind: runs.KindBuild, Checkout: web, Prompt: "Fix the login form",
		State: runs.StateSucceeded, Created: at(14, 9, 26), CostUSD: 0.12, ContinuedBy: []string{"r3"}})
	records.WriteRun(t, state, runs.Info{ID: "r2", Kind: runs.KindAsk, Checkout: api, Prompt: "what does \u202eevil\u202c do?",
		State: runs.StateFailed, Created: at(15, 10, 0)})
	records.WriteRun(t, state, runs.Info{ID: "r3", Kind: runs.KindBuild, Checkout: web, Prompt: "Yes, mention it in the README.",
		State: runs.StateSucceeded, Created: at(16, 8, 0), CostUSD: 0.03, ContinuedFrom: "r1",
		Pushed: "segwi/login", PullRequest: "https://github.com/ada/web/pull/12"})

	var opened []string
	h := openHistory(t, a, state, repos, func(id string) { opened = append(opened, id) })
	ui(func() { h.win.Resize(fyne.NewSize(760, 300)) })
	note, lines := historyTexts(h)
	if want := "3 runs in 2 conversations, the newest first, a continued run under the one it continues. Click one to see it."; note != want {
		t.Errorf("note = %q, want %q", note, want)
	}
	want := []string{
		"2026-03-14 09:26 · web · build · succeeded · $0.1200 · Fix the login form",
		"    ↳ 2026-03-16 08:00 · continued · succeeded · pushed · PR #12 · $0.0300 · Yes, mention it in the README.",
		`2026-03-15 10:00 · api · ask · failed · what does \u202eevil\u202c do?`,
	}
	if diff := cmp.Diff(want, lines); diff != "" {
		t.Errorf("lines (-want +got):\n%s", diff)
	}
	assertMarkup(t, "history_conversations.xml", h.win.Canvas())

	for _, c := range []struct {
		search string
		want   []string
	}{
		{"readme", want[:2]}, // a continuation's task keeps its conversation
		{"API", want[2:]},    // a repository's name
		{"src/web LOGIN", want[:2]},
		{"nothing like it", nil},
	} {
		ui(func() { h.search.SetText(c.search) })
		if _, got := historyTexts(h); !cmp.Equal(c.want, got) {
			t.Errorf("searching %q shows %q, want %q", c.search, got, c.want)
		}
	}
	ui(func() { h.search.SetText("readme") })
	assertMarkup(t, "history_search.xml", h.win.Canvas())
	ui(func() { h.list.Select(1) })
	if !cmp.Equal(opened, []string{"r3"}) {
		t.Errorf("clicking the continuation opened %v, want [r3]", opened)
	}
}

func TestHistoryLineNamesAnACPRuntime(t *testing.T) {
	s := runs.Summary{Kind: runs.KindBuild, Checkout: "/src/web", Task: "fix it", State: runs.StateSucceeded,
		Created: time.Date(2026, 3, 14, 9, 26, 0, 0, time.Local), Runtime: "codex"}
	got := historyLine(historyRow{sum: s}, []settings.Repository{{Name: "web", Path: "/src/web"}}, "")
	if want := "2026-03-14 09:26 · web · build on codex · succeeded · fix it"; got != want {
		t.Errorf("historyLine = %q, want %q", got, want)
	}
}

// The history says of each worktree run which branch it worked on, whether its worktree's
// folder is still there and how much disk it holds, measured for the lines shown only: of
// 400 worktree runs, those in view.
func TestHistoryShowsWorktreesAndTheirDisk(t *testing.T) {
	a := test.NewTempApp(t)
	state := t.TempDir()
	web := "/home/ada/src/web"
	repos := func() []settings.Repository { return []settings.Repository{{Name: "web", Path: web}} }
	kept := filepath.Join(t.TempDir(), "kept")
	if err := os.MkdirAll(kept, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(kept, "big.bin"), make([]byte, 300_000), 0o644); err != nil {
		t.Fatal(err)
	}
	gone := filepath.Join(t.TempDir(), "gone")
	day := time.Date(2026, 3, 14, 9, 0, 0, 0, time.Local)
	const older = 400
	for i := range older {
		dir := filepath.Join(t.TempDir(), "w")
		os.Mkdir(dir, 0o755)
		records.WriteRun(t, state, runs.Info{ID: fmt.Sprintf("o%03d", i), Kind: runs.KindBuild, Checkout: dir, Prompt: "old",
			State: runs.StateSucceeded, Created: day.Add(time.Duration(i) * time.Second), Worktree: &worktree.Worktree{Path: dir, Branch: fmt.Sprintf("segwi/old-%03d", i), Repository: web}})
	}
	later := day.Add(time.Hour)
	records.WriteRun(t, state, runs.Info{ID: "r1", Kind: runs.KindBuild, Checkout: web, Prompt: "in the checkout",
		State: runs.StateSucceeded, Created: later})
	records.WriteRun(t, state, runs.Info{ID: "r2", Kind: runs.KindBuild, Checkout: gone, Prompt: "removed since",
		State: runs.StateSucceeded, Created: later.Add(time.Minute), Worktree: &worktree.Worktree{Path: gone, Branch: "segwi/removed-r2", Repository: web}})
	records.WriteRun(t, state, runs.Info{ID: "r3", Kind: runs.KindBuild, Checkout: kept, Prompt: "still there",
		State: runs.StateSucceeded, Created: later.Add(2 * time.Minute), Worktree: &worktree.Worktree{Path: kept, Branch: "segwi/kept-r3", Repository: web}})

	h := openHistory(t, a, state, repos, func(string) {})
	await.For(t, 30*time.Second, "the worktrees shown to be measured", func() bool {
		var done bool
		ui(func() { done = h.disk[kept] != nil && h.disk[kept].done && h.disk[gone] != nil && h.disk[gone].done })
		return done
	})
	disk, err := worktree.DiskUse(context.Background(), kept)
	if err != nil {
		t.Fatal(err)
	}
	var lines []string
	var looked int
	ui(func() {
		for _, r := range h.rows[:3] {
			lines = append(lines, historyLine(r, h.repos(), h.worktreeNote(r.sum, false)))
		}
		looked = len(h.disk)
	})
	want := []string{
		"2026-03-14 10:02 · web · build · succeeded · worktree segwi/kept-r3, " + worktree.Size(disk) + " · still there",
		"2026-03-14 10:01 · web · build · succeeded · worktree segwi/removed-r2, its folder removed · removed since",
		"2026-03-14 10:00 · web · build · succeeded · in the checkout",
	}
	if diff := cmp.Diff(want, lines); diff != "" {
		t.Errorf("the history's first lines (-want +got):\n%s", diff)
	}
	if disk < 300_000 {
		t.Errorf("the worktree holds %d bytes on disk, want at least the 300,000 of its file", disk)
	}
	if looked > 60 {
		t.Errorf("the history looked at %d worktrees of %d, more than the lines it shows", looked, older+2)
	}
	t.Logf("worktrees looked at on opening: %d of %d", looked, older+2)

	// Removed since, it is measured again on Refresh.
	if err := os.RemoveAll(kept); err != nil {
		t.Fatal(err)
	}
	refresh := settingsButton(t, h.win, "Refresh")
	ui(func() { test.Tap(refresh) })
	awaitHistory(t, h)
	await.For(t, 30*time.Second, "the removed worktree to be said removed", func() bool {
		var d *worktreeDisk
		ui(func() { d = h.disk[kept] })
		return d != nil && d.done && !d.exists
	})
}
