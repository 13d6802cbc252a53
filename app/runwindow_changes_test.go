package app

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/test"

	"github.com/segwi/segwi/control"
	"github.com/segwi/segwi/internal/lib/gitcmd"
	"github.com/segwi/segwi/internal/roots/hub"
	"github.com/segwi/segwi/internal/testing/await"
	"github.com/segwi/segwi/internal/testing/claudetest"
	"github.com/segwi/segwi/internal/testing/controltest"
	"github.com/segwi/segwi/internal/testing/coretest"
	"github.com/segwi/segwi/internal/testing/records"
	"github.com/segwi/segwi/runs"
	"github.com/segwi/segwi/runs/changes"
)

// changedRun is an ended build run recorded with its base in a real git checkout, whose
// changes are what Claude Code's Edit and Write leave: hello.txt edited, x.txt written.
type changedRun struct {
	id       string
	checkout string
	stateDir string
	info     runs.Info
}

// newChangedRun makes the run; the files named in before are written before it starts:
// changed already at its base, perhaps the person's.
func newChangedRun(t *testing.T, before ...string) changedRun {
	t.Helper()
	r := changedRun{id: "20250314-092653-c4a9e5", checkout: fixedCheckout(t), stateDir: t.TempDir()}
	write := func(name, text string) {
		if err := os.WriteFile(filepath.Join(r.checkout, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, name := range before {
		write(name, "the person's own notes\n")
	}
	base := changes.ReadBase(context.Background(), gitcmd.New("", "", nil), r.checkout)
	if !base.Known() {
		t.Fatalf("the checkout's base: %s", base.Error)
	}
	write("hello.txt", claudetest.CheckoutHello+"and a line the run added\n") // Edit
	write("x.txt", "a file the run wrote\n")                                  // Write
	r.info = runs.Info{ID: r.id, Kind: runs.KindBuild, Checkout: r.checkout, Prompt: "Greet the reader",
		State: runs.StateSucceeded, Created: runT0, Start: runT0, End: runT0.Add(time.Minute), Base: &base}
	records.WriteRun(t, r.stateDir, r.info)
	return r
}

// fixedCheckout is claudetest.Checkout's checkout, with its commit made at a fixed time, so
// that its hash, which the tab shows, is the same in every run of the test.
func fixedCheckout(t *testing.T) string {
	t.Helper()
	dir := claudetest.Checkout(t)
	cmd := exec.Command("git", "commit", "--quiet", "--amend", "--no-edit", "--reset-author")
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GIT_CONFIG_GLOBAL="+os.DevNull, "GIT_CONFIG_NOSYSTEM=1",
		"GIT_AUTHOR_DATE=2025-03-14T09:00:00Z", "GIT_COMMITTER_DATE=2025-03-14T09:00:00Z")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("git commit --amend: %v\n%s", err, out)
	}
	return dir
}

// trayOver serves a real hub over a core whose state folder is stateDir, and returns the
// window process's link to it over a real socket pair: the window reads the changes as
// it does in segwi, from the tray.
func trayOver(t *testing.T, stateDir string) *trayLink {
	t.Helper()
	return trayOverEnv(t, stateDir, nil)
}

// trayOverEnv is trayOver with env the runs' environment, and the tray's (nil: coretest's).
func trayOverEnv(t *testing.T, stateDir string, env []string) *trayLink {
	t.Helper()
	h := hub.New(hub.Options{Program: "test tray", Log: t.Logf})
	c, _ := coretest.New(t, "", coretest.Options{StateDir: stateDir, Decider: h, Env: env})
	ctx, cancel := context.WithCancel(context.Background())
	ran := make(chan struct{})
	go func() {
		defer close(ran)
		h.Run(ctx, c)
	}()
	ours, theirs := controltest.Pair(t)
	served := make(chan struct{})
	go func() {
		defer close(served)
		h.Server().Serve(ctx, ours, control.Grant{Role: control.RoleWindow, Who: control.ByThisDesktop})
	}()
	link := newTrayLink()
	client, err := control.NewClient(theirs, control.ClientOptions{Program: "test windows", Event: func(b control.Body) { link.apply(b) }})
	if err != nil {
		t.Fatal(err)
	}
	link.client = client
	t.Cleanup(func() {
		client.Close()
		cancel()
		<-served
		<-ran
	})
	return link
}

// loaded waits for the tab's nth reading to be shown.
func loaded(t *testing.T, c *changesTab, n int64) {
	t.Helper()
	await.For(t, 30*time.Second, fmt.Sprintf("reading %d of the changes to show", n), func() bool { return c.loads.Load() >= n })
}

// diffTexts returns the diff as the tab's view holds it, one "kind|old|new|text" per line.
func diffTexts(c *changesTab) []string {
	var out []string
	onUIWait(func() {
		for _, l := range c.view.lines {
			out = append(out, fmt.Sprintf("%d|%d|%d|%s", l.kind, l.old, l.new, l.text))
		}
	})
	return out
}

// The Changes tab reads a run's changes from the tray, over the control channel, and lists
// a file Claude Code edited and one it wrote beside their diff; selecting a file scrolls
// the diff to it.
func TestTheChangesTabListsAnEditedAndAWrittenFileWithTheirDiff(t *testing.T) {
	r := newChangedRun(t)
	link := trayOver(t, r.stateDir)
	test.NewTempApp(t)
	c := newChangesTab(link, r.id)
	win := test.NewTempWindow(t, c.content)
	win.Resize(fyne.NewSize(820, 400))
	onUIWait(c.load)
	loaded(t, c, 1)

	var files []string
	onUIWait(func() {
		for i := range len(c.set.Files) + 1 {
			files = append(files, c.fileRow(i))
		}
	})
	want := []string{"All files (2)", "M  hello.txt  +1 -0", "A  x.txt  +1 -0"}
	if strings.Join(files, "\n") != strings.Join(want, "\n") {
		t.Errorf("files:\n%s\nwant:\n%s", strings.Join(files, "\n"), strings.Join(want, "\n"))
	}
	if s := c.summary.Text; !strings.HasPrefix(s, "2 files changed, +2 −0\nsince main at ") || !strings.HasSuffix(s, ", clean\n2 files not committed") {
		t.Errorf("summary = %q", s)
	}
	assertMarkup(t, "runwindow_changes.xml", win.Canvas())

	// The diff's lines: each file led by its header (not git's diff --git, index, --- and
	// +++ lines), each hunk by its @@ line, each line with its numbers.
	wantDiff := []string{
		fmt.Sprintf("%d|0|0|M  hello.txt  +1 -0", diffFile),
		fmt.Sprintf("%d|0|0|@@ -1 +1,2 @@", diffHunk),
		fmt.Sprintf("%d|1|1|hello from the test checkout", diffContext),
		fmt.Sprintf("%d|0|2|and a line the run added", diffAdded),
		fmt.Sprintf("%d|0|0|A  x.txt  +1 -0", diffFile),
		fmt.Sprintf("%d|0|0|@@ -0,0 +1 @@", diffHunk),
		fmt.Sprintf("%d|0|1|a file the run wrote", diffAdded),
	}
	if got := diffTexts(c); strings.Join(got, "\n") != strings.Join(wantDiff, "\n") {
		t.Errorf("the diff:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(wantDiff, "\n"))
	}

	// Selecting x.txt marks its header in the diff, without reading the changes again.
	onUIWait(func() { c.files.Select(2) })
	var mark int
	onUIWait(func() { mark = c.view.mark })
	if mark != 4 {
		t.Errorf("after selecting x.txt the diff marks line %d, want 4 (x.txt's header)", mark)
	}
	if n := c.loads.Load(); n != 1 {
		t.Errorf("selecting a file in the diff read the changes again (%d readings)", n)
	}
}

// scriptedChanges is a changesReader that returns set, and counts its calls.
type scriptedChanges struct {
	set   control.ChangeSet
	err   error
	calls chan string // the path of each call
}

func (s *scriptedChanges) Changes(_ context.Context, _, path, _ string) (control.ChangeSet, error) {
	s.calls <- path
	return s.set, s.err
}

// filesOnly marks a ChangedFiles call among scriptedChanges' calls.
const filesOnly = "(files only)"

func (s *scriptedChanges) ChangedFiles(context.Context, string) (control.ChangeSet, error) {
	s.calls <- filesOnly
	set := s.set
	set.Diff = changes.Patch{}
	return set, s.err
}

// A diff of 5,000 lines opens at once: the view draws the rows on screen only, from
// objects it reuses, and scrolling to its end shows its last line. The figure is the time
// from asking for the changes to the diff shown, broken to the view's width.
func TestAFiveThousandLineDiffShowsWithoutMakingARowForEachLine(t *testing.T) {
	var b strings.Builder
	b.WriteString("diff --git a/big.txt b/big.txt\nindex 1111111..2222222 100644\n--- a/big.txt\n+++ b/big.txt\n@@ -1,2500 +1,2500 @@\n")
	for i := range 2500 {
		fmt.Fprintf(&b, "-old line %d\n+new line %d\n", i, i)
	}
	reader := &scriptedChanges{calls: make(chan string, 4), set: control.ChangeSet{
		Base:  changes.Base{Repo: "/home/ada/src/web", Branch: "main", Commit: "0123456789abcdef"},
		Files: []changes.File{{Path: "big.txt", Status: changes.Modified, Added: 2500, Deleted: 2500, Uncommitted: true}},
		Diff:  changes.Patch{Text: b.String()},
	}}
	test.NewTempApp(t)
	c := newChangesTab(reader, "run-1")
	win := test.NewTempWindow(t, c.content)
	win.Resize(fyne.NewSize(820, 600))
	start := time.Now()
	onUIWait(c.load)
	loaded(t, c, 1)
	took := time.Since(start)
	var rows, made, drawn int
	onUIWait(func() { rows, made, drawn = len(c.view.rows), int(c.view.made.Load()), c.view.rendered })
	t.Logf("a diff of 5,005 lines read and shown in %v: %d rows, %d on screen, %d row objects made", took, rows, drawn, made)
	if n := len(diffTexts(c)); n != 5002 {
		t.Errorf("the view holds %d lines, want 5,002 (a file header, a hunk, 5,000 lines)", n)
	}
	if made > 60 || drawn == 0 {
		t.Errorf("the view made %d row objects for 5,002 lines and draws %d, want only about a screenful", made, drawn)
	}
	onUIWait(func() { c.view.TypedKey(&fyne.KeyEvent{Name: fyne.KeyEnd}) })
	var last string
	onUIWait(func() {
		made = int(c.view.made.Load())
		rows := screenRows(c.view)
		last = rows[len(rows)-1]
	})
	if made > 60 {
		t.Errorf("after scrolling to the end the view has made %d row objects, want only about a screenful", made)
	}
	if want := "|2500|+|new line 2499"; last != want {
		t.Errorf("the last row on screen at the end = %q, want %q", last, want)
	}
}

// A binary file is named with no lines, and a diff cut at the channel's limit says so and
// names each file it left out.
func TestTheDiffNamesBinaryFilesAndTheFilesPastWhereItWasCut(t *testing.T) {
	set := control.ChangeSet{
		Files: []changes.File{
			{Path: "logo.png", Status: changes.Added, Binary: true},
			{Path: "big.txt", Status: changes.Modified, Added: 90000, Deleted: 3},
			{Path: "later.txt", Status: changes.Modified, Added: 1, Deleted: 1},
		},
		MoreFiles: 5,
		Diff: changes.Patch{Text: "diff --git a/logo.png b/logo.png\nnew file mode 100644\nindex 0000000..3333333\nBinary files /dev/null and b/logo.png differ\n" +
			"diff --git a/big.txt b/big.txt\nindex 1..2 100644\n--- a/big.txt\n+++ b/big.txt\n@@ -1,3 +1,90000 @@\n+a\n",
			Cut: true, Limit: control.MaxDiffBytes},
	}
	got := diffContentOf(set)
	var lines []string
	for _, l := range got.lines {
		lines = append(lines, fmt.Sprintf("%d|%d|%s", l.kind, l.file, l.text))
	}
	want := []string{
		fmt.Sprintf("%d|0|A  logo.png  binary", diffFile),
		fmt.Sprintf("%d|0|%s", diffNote, binaryNote),
		fmt.Sprintf("%d|1|M  big.txt  +90000 -3", diffFile),
		fmt.Sprintf("%d|1|@@ -1,3 +1,90000 @@", diffHunk),
		fmt.Sprintf("%d|1|a", diffAdded),
		fmt.Sprintf("%d|-1|%s", diffNote, set.Diff.CutNote()),
		fmt.Sprintf("%d|2|M  later.txt  +1 -1", diffFile),
		fmt.Sprintf("%d|2|%s", diffNote, cutFileNote),
		fmt.Sprintf("%d|-1|… and 5 files more, not listed: a run's changes list at most 2000 files.", diffNote),
	}
	if strings.Join(lines, "\n") != strings.Join(want, "\n") {
		t.Errorf("the diff's lines:\n%s\nwant:\n%s", strings.Join(lines, "\n"), strings.Join(want, "\n"))
	}
	if !slices.Equal(got.shown, []bool{true, true, false}) {
		t.Errorf("files shown = %v, want the two before the cut", got.shown)
	}
	renamed := changes.File{Path: "b.go", OldPath: "a.go", Status: changes.Renamed, Added: 1, DirtyAtBase: true}
	if line := fileLine(control.ChangeSet{Runs: 1}, renamed); line != "R  a.go → b.go  +1 -0  (changed before the run)" {
		t.Errorf("the renamed file's row = %q", line)
	}
	// A conversation's changes count from its first run's base: a file changed before it
	// was changed before the first run, not before this one.
	if line := fileLine(control.ChangeSet{Runs: 3}, renamed); line != "R  a.go → b.go  +1 -0  (changed before the first run)" {
		t.Errorf("the renamed file's row in a conversation of three runs = %q", line)
	}
}

// The run window reads the changes when the person opens the Changes tab, and again when
// a turn of the run ends: what the turn changed shows without a click.
func TestTheRunWindowReadsTheChangesOnTheTabAndAfterEachTurn(t *testing.T) {
	reader := &scriptedChanges{calls: make(chan string, 8), set: control.ChangeSet{Base: changes.Base{Branch: "main", Commit: "0123456789abcdef"}}}
	h := newRunHarness(t, 16, func(d *runWindowDeps) { d.changes = reader })
	h.sendAndFlush(ev(runs.EventText, func(e *runs.Event) { e.Text = "Working." }))
	select {
	case p := <-reader.calls:
		t.Fatalf("the changes were read (path %q) before the tab was opened", p)
	default:
	}
	onUIWait(func() { h.w.tabs.SelectIndex(2) })
	nextCall(t, reader, "opening the tab")
	loaded(t, h.w.changes, 1)
	if s := h.w.changes.summary.Text; s != "No changes\nsince main at 0123456789ab, clean." {
		t.Errorf("summary = %q", s)
	}
	h.sendAndFlush(ev(runs.EventResult, func(e *runs.Event) { e.Subtype = "success"; e.Result = &runs.ResultInfo{NumTurns: 1} }))
	nextCall(t, reader, "the end of the turn")
}

// On the Changes tab the run window gives the diff its height and the keyboard: the
// header's title, task and checkout lines fold away and the diff has the focus; on the
// timeline they are back.
func TestTheChangesTabFoldsTheHeaderAndFocusesTheDiff(t *testing.T) {
	reader := &scriptedChanges{calls: make(chan string, 8), set: reviewDiff}
	h := newRunHarness(t, 16, func(d *runWindowDeps) { d.changes = reader })
	hidden := func() (title, task, where, status bool, focused fyne.Focusable) {
		onUIWait(func() {
			title, task, where, status = h.w.title.Hidden, h.w.task.Hidden, h.w.where.Hidden, h.w.status.Hidden
			focused = h.w.win.Canvas().Focused()
		})
		return
	}
	onUIWait(func() { h.w.tabs.SelectIndex(2) })
	loaded(t, h.w.changes, 1)
	if title, task, where, status, focused := hidden(); !title || !task || !where || status || focused != h.w.changes.view {
		t.Errorf("on the Changes tab: title hidden %v, task hidden %v, checkout hidden %v, state hidden %v, focus on %T; want only the state shown and the diff focused",
			title, task, where, status, focused)
	}
	var rows, mark int
	onUIWait(func() { rows, mark = h.w.changes.view.rendered, h.w.changes.view.mark })
	t.Logf("at 820x600 the diff shows %d rows", rows)
	if mark != -1 {
		t.Errorf("opening the tab marked line %d of the diff; want none marked before a key or a click", mark)
	}
	onUIWait(func() { h.w.tabs.SelectIndex(0) })
	if title, task, where, status, _ := hidden(); title || task || where || status {
		t.Errorf("on the timeline: title hidden %v, task hidden %v, checkout hidden %v, state hidden %v; want all shown", title, task, where, status)
	}
}

// pathChanges is a changesReader whose answer depends on the path asked.
type pathChanges struct {
	sets  map[string]control.ChangeSet
	calls chan string
}

func (p *pathChanges) Changes(_ context.Context, _, path, _ string) (control.ChangeSet, error) {
	p.calls <- path
	set, ok := p.sets[path]
	if !ok {
		return control.ChangeSet{}, fmt.Errorf("%s is not among the run's changes", path)
	}
	return set, nil
}

func (p *pathChanges) ChangedFiles(context.Context, string) (control.ChangeSet, error) {
	return p.sets[""], nil
}

// next returns the path of the reader's next call.
func (p *pathChanges) next(t *testing.T) string {
	t.Helper()
	select {
	case path := <-p.calls:
		return path
	case <-time.After(10 * time.Second):
		t.Fatal("the changes were not read")
		return ""
	}
}

// A file whose diff lies past where the diff of every file was cut is read alone when it
// is selected, and the tab says so; All files goes back to the diff of every file, and so
// does a reading that finds the file gone from the changes.
func TestAFilePastTheCutIsReadAlone(t *testing.T) {
	files := []changes.File{{Path: "big.txt", Status: changes.Modified, Added: 90000}, {Path: "later.txt", Status: changes.Modified, Added: 1, Deleted: 1}}
	whole := control.ChangeSet{Files: files, Diff: changes.Patch{Text: "diff --git a/big.txt b/big.txt\n--- a/big.txt\n+++ b/big.txt\n@@ -1 +1,90000 @@\n+a\n", Cut: true, Limit: control.MaxDiffBytes}}
	alone := control.ChangeSet{Files: files, Path: "later.txt", Diff: changes.Patch{Text: "diff --git a/later.txt b/later.txt\n--- a/later.txt\n+++ b/later.txt\n@@ -1 +1 @@\n-was\n+is\n", Limit: control.MaxDiffBytes}}
	reader := &pathChanges{sets: map[string]control.ChangeSet{"": whole, "later.txt": alone}, calls: make(chan string, 8)}
	test.NewTempApp(t)
	c := newChangesTab(reader, "run-1")
	win := test.NewTempWindow(t, c.content)
	win.Resize(fyne.NewSize(820, 400))
	onUIWait(c.load)
	loaded(t, c, 1)
	reader.next(t)
	onUIWait(func() { c.files.Select(2) })
	if got := reader.next(t); got != "later.txt" {
		t.Fatalf("selecting later.txt read %q, want later.txt alone", got)
	}
	loaded(t, c, 2)
	var summary string
	onUIWait(func() { summary = c.summary.Text })
	if s := summary; !strings.Contains(s, "Showing later.txt alone: the diff of all the files is longer than 512 KiB.") {
		t.Errorf("summary = %q", s)
	}
	if got := diffTexts(c); !slices.Contains(got, fmt.Sprintf("%d|0|1|is", diffAdded)) {
		t.Errorf("the diff of later.txt alone:\n%s", strings.Join(got, "\n"))
	}
	onUIWait(func() { c.files.Select(0) })
	if got := reader.next(t); got != "" {
		t.Fatalf("All files read %q, want every file", got)
	}
	loaded(t, c, 3)

	// later.txt goes from the changes while it shows alone: the next reading shows all.
	onUIWait(func() { c.files.Select(2) })
	reader.next(t)
	loaded(t, c, 4)
	delete(reader.sets, "later.txt")
	onUIWait(c.load)
	for _, want := range []string{"later.txt", ""} {
		if got := reader.next(t); got != want {
			t.Fatalf("read %q, want %q", got, want)
		}
	}
	loaded(t, c, 6)
	var path string
	onUIWait(func() { path, summary = c.path, c.summary.Text })
	if path != "" || strings.Contains(summary, "alone") {
		t.Errorf("after later.txt went the tab shows %q: %q", path, summary)
	}
}

// nextCall waits for the reader's next call, made for why.
func nextCall(t *testing.T, r *scriptedChanges, why string) {
	t.Helper()
	select {
	case <-r.calls:
	case <-time.After(10 * time.Second):
		t.Fatalf("the changes were not read on %s", why)
	}
}

// A diff of 5,000 changed lines comes from the tray, over the channel, and shows whole:
// the figure is how long the person waits for it after opening the tab.
func TestAFiveThousandLineDiffThroughTheTray(t *testing.T) {
	r := newChangedRun(t)
	var b strings.Builder
	for i := range 5000 {
		fmt.Fprintf(&b, "line %d of a long file the run wrote, long enough to be a real line of code\n", i)
	}
	if err := os.WriteFile(filepath.Join(r.checkout, "big.txt"), []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	link := trayOver(t, r.stateDir)
	test.NewTempApp(t)
	c := newChangesTab(link, r.id)
	win := test.NewTempWindow(t, c.content)
	win.Resize(fyne.NewSize(820, 600))
	start := time.Now()
	onUIWait(c.load)
	loaded(t, c, 1)
	took := time.Since(start)
	lines := diffTexts(c)
	t.Logf("a diff of %d lines (%d KiB) read by the tray and shown in %v, with %d row objects made",
		len(lines), len(c.set.Diff.Text)>>10, took, c.view.made.Load())
	if c.set.Diff.Cut {
		t.Errorf("the diff of 5,000 lines was cut at %d bytes", c.set.Diff.Limit)
	}
	want := fmt.Sprintf("%d|0|5000|line 4999 of a long file", diffAdded)
	if !slices.ContainsFunc(lines, func(l string) bool { return strings.HasPrefix(l, want) }) {
		t.Errorf("the diff lacks big.txt's last line; it has %d lines", len(lines))
	}
}

// A push check asks the tray for the changed files only: the real tray answers with the
// files and no diff, so a large diff is not carried over the channel to learn whether
// anything is uncommitted.
func TestThePushCheckGetsTheFilesWithoutTheDiff(t *testing.T) {
	r := newChangedRun(t)
	link := trayOver(t, r.stateDir)
	ctx, cancel := context.WithTimeout(context.Background(), changesTimeout)
	defer cancel()
	set, err := link.ChangedFiles(ctx, r.id)
	if err != nil {
		t.Fatal(err)
	}
	if len(set.Files) != 2 || !set.Uncommitted() || set.Diff.Text != "" {
		t.Errorf("files only: %d files, uncommitted %v, %d bytes of diff; want 2 files, uncommitted, no diff",
			len(set.Files), set.Uncommitted(), len(set.Diff.Text))
	}
	full, err := link.Changes(ctx, r.id, "", "")
	if err != nil || !strings.Contains(full.Diff.Text, "+a file the run wrote") {
		t.Errorf("the full read: %v, diff %q; want the run's diff", err, full.Diff.Text)
	}
}

// Issue 22: the Changes tab read a run's changes again at every turn's end, with git, 1 s
// and more with 5,000 changed files (50 MB) even when the turn had changed nothing. Now
// the tray reads them again only when the checkout changed since the reading the tab
// shows: a turn's end costs a look at the files' stat data. Both measured here through
// the real tray, best of three tries; then a file changed is read again.
func TestATurnThatChangedNothingDoesNotReadTheChangesAgain(t *testing.T) {
	if testing.Short() {
		t.Skip("a measurement with 50 MB of changes: not in -short")
	}
	const files = 5000
	r := changedRun{id: "20250314-092653-c4a9e5", checkout: fixedCheckout(t), stateDir: t.TempDir()}
	var body bytes.Buffer
	for i := range 200 {
		fmt.Fprintf(&body, "line %03d of a file of about ten kilobytes\n", i)
	}
	name := func(i int) string {
		return filepath.Join(r.checkout, "src", fmt.Sprintf("d%02d", i%50), fmt.Sprintf("f%04d.txt", i))
	}
	writeAll := func(content func(i int) []byte) {
		for i := range files {
			if err := os.MkdirAll(filepath.Dir(name(i)), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(name(i), content(i), 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	writeAll(func(int) []byte { return body.Bytes() })
	claudetest.Git(t, r.checkout, "add", ".")
	claudetest.Git(t, r.checkout, "commit", "-q", "-m", "Five thousand files")
	base := changes.ReadBase(context.Background(), gitcmd.New("", "", nil), r.checkout)
	if !base.Known() {
		t.Fatalf("the checkout's base: %s", base.Error)
	}
	writeAll(func(i int) []byte {
		return bytes.Replace(body.Bytes(), []byte("line 070 of"), fmt.Appendf(nil, "line 070, edited by the run (%d), of", i), 1)
	})
	r.info = runs.Info{ID: r.id, Kind: runs.KindBuild, Checkout: r.checkout, Prompt: "Edit every file",
		State: runs.StateSucceeded, Created: runT0, Start: runT0, End: runT0.Add(time.Minute), Base: &base}
	records.WriteRun(t, r.stateDir, r.info)

	link := trayOver(t, r.stateDir)
	ctx, cancel := context.WithTimeout(context.Background(), changesTimeout)
	defer cancel()
	full := time.Hour // what every turn's end cost before: a reading with git
	for range 3 {
		began := time.Now()
		set, err := link.Changes(ctx, r.id, "", "")
		if err != nil || set.Unchanged || len(set.Files)+set.MoreFiles != files {
			t.Fatalf("a reading: %v, unchanged %v, %d files; want the %d files", err, set.Unchanged, len(set.Files)+set.MoreFiles, files)
		}
		full = min(full, time.Since(began))
	}

	test.NewTempApp(t)
	c := newChangesTab(link, r.id)
	win := test.NewTempWindow(t, c.content)
	win.Resize(fyne.NewSize(820, 600))
	onUIWait(c.load) // the tab opened
	loaded(t, c, 1)
	turnEnd := time.Hour
	for n := int64(2); n <= 4; n++ {
		began := time.Now()
		onUIWait(c.load) // a turn ended, having changed nothing
		loaded(t, c, n)
		turnEnd = min(turnEnd, time.Since(began))
	}
	t.Logf("%d changed files: a turn's end that changed nothing %v, best of 3; a reading of the changes %v (what each turn's end cost before)",
		files, turnEnd.Round(time.Millisecond), full.Round(time.Millisecond))
	if got := c.unchanged.Load(); got != 3 {
		t.Errorf("%d of the 3 turns' ends that changed nothing were told so; want all", got)
	}
	if turnEnd > full/2 {
		t.Errorf("a turn's end that changed nothing took %v, a reading of the changes %v", turnEnd, full)
	}

	// A turn that changed a file: the tab reads the changes again, and shows it.
	more := bytes.Replace(body.Bytes(), []byte("line 070 of"), []byte("line 070, edited by the run (0), of"), 1)
	if err := os.WriteFile(name(0), append(more, "and a line of the next turn\n"...), 0o644); err != nil {
		t.Fatal(err)
	}
	onUIWait(c.load)
	loaded(t, c, 5)
	var first changes.File
	onUIWait(func() { first = c.set.Files[0] })
	if c.unchanged.Load() != 3 || first.Path != "src/d00/f0000.txt" || first.Added != 2 {
		t.Errorf("after a file changed: told unchanged %d times, first file %+v; want it read again, with 2 lines added", c.unchanged.Load(), first)
	}
}

// The note under the run window's buttons takes no room while it says nothing, and its
// line once it says something. (The window re-lays itself out when a MinSize changes, on
// each frame of Fyne's driver; the test driver has no frames, so the layout's answer is
// checked.)
func TestTheRunWindowsNoteTakesRoomOnlyWhenItSaysSomething(t *testing.T) {
	h := newRunHarness(t, 16)
	l := emptyLabelLayout{h.w.note}
	var empty, said fyne.Size
	onUIWait(func() {
		empty = l.MinSize(nil)
		h.w.note.SetText("Pushed segwi/fix-login to origin.")
		said = l.MinSize(nil)
	})
	if empty.Height != 0 || said.Height == 0 {
		t.Errorf("the note's room: %v empty, %v saying something; want none, then a line", empty, said)
	}
}
