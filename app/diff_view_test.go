package app

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/test"
	"fyne.io/fyne/v2/theme"

	"github.com/segwi/segwi/control"
	"github.com/segwi/segwi/runs/changes"
)

// reviewDiff is a run's changes of every kind the diff view shows: a file with two hunks
// (one line too long for the view, one with a tab), a file added whose text holds an
// invisible character and ends without a newline, one deleted, one renamed as it was, a
// binary file and a mode change.
var reviewDiff = control.ChangeSet{
	Base: changes.Base{Repo: "/home/ada/src/web", Branch: "main", Commit: "0123456789abcdef"},
	Files: []changes.File{
		{Path: "web/login.go", Status: changes.Modified, Added: 3, Deleted: 2, Uncommitted: true},
		{Path: "web/new.txt", Status: changes.Added, Added: 2, Uncommitted: true},
		{Path: "old.txt", Status: changes.Deleted, Deleted: 1, Uncommitted: true},
		{Path: "b.go", OldPath: "a.go", Status: changes.Renamed, Uncommitted: true},
		{Path: "logo.png", Status: changes.Modified, Binary: true, Uncommitted: true},
		{Path: "run.sh", Status: changes.Modified, Uncommitted: true},
	},
	Diff: changes.Patch{Text: `diff --git a/web/login.go b/web/login.go
index 1111111..2222222 100644
--- a/web/login.go
+++ b/web/login.go
@@ -10,7 +10,8 @@ func Login(w http.ResponseWriter, r *http.Request) {
 	user := r.FormValue("user")
 	pass := r.FormValue("pass")
-	if user == "" {
+	if user == "" || pass == "" {
+		// Both are needed: say which one is missing.
 		http.Error(w, "missing user", http.StatusBadRequest)
 		return
 	}
@@ -40,3 +41,3 @@ func logout() {
-	log.Printf("logout %s", name)
+	log.Printf("logout %s, after a session of %s, from %s, with the reason the person gave: %q", name, took, addr, reason)
 	return nil
 }
diff --git a/web/new.txt b/web/new.txt
new file mode 100644
index 0000000..3333333
--- /dev/null
+++ b/web/new.txt
@@ -0,0 +1,2 @@
+an ` + "\u202e" + `invisible turn
+no newline here
\ No newline at end of file
diff --git a/old.txt b/old.txt
deleted file mode 100644
index 4444444..0000000
--- a/old.txt
+++ /dev/null
@@ -1 +0,0 @@
-bye
diff --git a/a.go b/b.go
similarity index 100%
rename from a.go
rename to b.go
diff --git a/logo.png b/logo.png
index 5555555..6666666 100644
Binary files a/logo.png and b/logo.png differ
diff --git a/run.sh b/run.sh
old mode 100644
new mode 100755
`},
}

// newReviewTab shows set in a Changes tab in a window of size, and waits for it.
func newReviewTab(t *testing.T, set control.ChangeSet, size fyne.Size) (*changesTab, fyne.Window) {
	t.Helper()
	test.NewTempApp(t)
	reader := &scriptedChanges{calls: make(chan string, 8), set: set}
	c := newChangesTab(reader, "run-1")
	win := test.NewTempWindow(t, c.content)
	win.Resize(size)
	onUIWait(c.load)
	loaded(t, c, 1)
	return c, win
}

// longReviewDiff is reviewDiff with a file of 40 lines at the end, so that in a small
// window every header can come to the top.
func longReviewDiff() control.ChangeSet {
	set := reviewDiff
	set.Files = append(slices.Clone(set.Files), changes.File{Path: "z.txt", Status: changes.Added, Added: 40})
	set.Diff.Text += "diff --git a/z.txt b/z.txt\nnew file mode 100644\n--- /dev/null\n+++ b/z.txt\n@@ -0,0 +1,40 @@\n" + strings.Repeat("+z\n", 40)
	return set
}

// screenRows are the rows the view draws, top to bottom, as "old|new|mark|text": read
// from the objects on screen, not from the view's model.
func screenRows(v *diffView) []string {
	r := test.WidgetRenderer(v.body).(*diffBodyRenderer)
	var rows []string
	for _, o := range r.pool[:v.rendered] {
		rows = append(rows, strings.Join([]string{o.old.Text, o.new.Text, o.mark.Text, o.text.Text}, "|"))
	}
	return rows
}

// The view as a person reviews in it: files led by their header, hunks by their @@ line,
// old and new numbers in a gutter, added and removed lines coloured from the theme, the
// long line broken at the view's width, the invisible character escaped, the binary file,
// the rename and the mode change said in words.
func TestTheDiffViewShowsEveryKindOfChange(t *testing.T) {
	c, win := newReviewTab(t, reviewDiff, fyne.NewSize(820, 640))
	assertMarkup(t, "diff_view.xml", win.Canvas())

	var rows []string
	onUIWait(func() { rows = screenRows(c.view) })
	for _, want := range []string{
		"|||M  web/login.go  +3 -2",
		"|||@@ -10,7 +10,8 @@ func Login(w http.ResponseWriter, r *http.Request) {",
		"10|10||    user := r.FormValue(\"user\")", // the tab to four columns
		"12||-|    if user == \"\" {",
		"|12|+|    if user == \"\" || pass == \"\" {",
		"|1|+|an \\u202einvisible turn", // escaped, as every view of segwi does
		"|||" + noNewlineNote,
		"|||" + binaryNote,
		"|||Renamed; its content is unchanged.",
		"|||Mode changed from 100644 to 100755.",
	} {
		if !strings.Contains(strings.Join(rows, "\n")+"\n", want+"\n") {
			t.Errorf("no row %q on screen; the rows:\n%s", want, strings.Join(rows, "\n"))
		}
	}
	for _, row := range rows {
		for _, raw := range []string{"diff --git", "index ", "--- ", "+++ "} {
			if strings.Contains(row, raw) {
				t.Errorf("row %q shows git's raw header %q: the file header says it", row, raw)
			}
		}
	}
}

// A line too long for the view is broken at the view's real width, each piece but the last
// ending in the break mark and every piece within the view, so that every character
// shows; narrowing the view breaks it again.
func TestTheDiffViewBreaksALongLineAtItsWidth(t *testing.T) {
	long := `log.Printf("logout %s, after a session of %s, from %s, with the reason the person gave: %q", name, took, addr, reason)`
	for _, width := range []float32{820, 560} {
		c, _ := newReviewTab(t, reviewDiff, fyne.NewSize(width, 640))
		var pieces []string
		var room float32
		onUIWait(func() {
			v := c.view
			room = v.Size().Width - v.m.textX - v.m.pad - v.Theme().Size(theme.SizeNameScrollBar)
			for _, r := range v.rows {
				l := v.lines[r.line]
				if l.new == 41 && l.kind == diffAdded {
					pieces = append(pieces, r.text)
				}
			}
		})
		if len(pieces) < 2 {
			t.Fatalf("at %v wide the long line is in %d piece(s), want it broken", width, len(pieces))
		}
		joined := ""
		for i, p := range pieces {
			if w := fyne.MeasureText(p, theme.TextSize()-2, fyne.TextStyle{Monospace: true}).Width; w > room {
				t.Errorf("at %v wide piece %d (%q) is %.0f px wide, more than the %.0f px the view has", width, i, p, w, room)
			}
			if i < len(pieces)-1 && !strings.HasSuffix(p, wrapMark) {
				t.Errorf("piece %d (%q) does not end in the break mark", i, p)
			}
			joined += strings.TrimSuffix(p, wrapMark)
		}
		if want := "    " + long; joined != want {
			t.Errorf("the pieces join into %q, want %q", joined, want)
		}
		t.Logf("at %v wide the line is %d pieces", width, len(pieces))
	}
}

// press sends the view keys as a person types them: runes, or named keys.
func press(v *diffView, keys ...any) {
	onUIWait(func() {
		for _, k := range keys {
			switch k := k.(type) {
			case rune:
				v.TypedRune(k)
			case fyne.KeyName:
				v.TypedKey(&fyne.KeyEvent{Name: k})
			}
		}
	})
}

// markedRows counts the rows drawn marked, in the selection colour.
func markedRows(v *diffView) int {
	n := 0
	onUIWait(func() {
		r := test.WidgetRenderer(v.body).(*diffBodyRenderer)
		for _, o := range r.pool[:v.rendered] {
			if o.bg.FillColor == v.color(theme.ColorNameSelection) {
				n++
			}
		}
	})
	return n
}

// topRow is the row at the top of the view, as drawn.
func topRow(v *diffView) string {
	var top string
	onUIWait(func() { top = screenRows(v)[0] })
	return top
}

// The keys move through the diff as the tab says: j k and the arrows a line, n p a hunk,
// ] [ a file, Space and Page Down a page, Home and End to the ends; and the file list
// follows the file at the top.
func TestTheDiffViewMovesWithTheKeys(t *testing.T) {
	c, win := newReviewTab(t, longReviewDiff(), fyne.NewSize(820, 300))
	v := c.view
	onUIWait(func() { win.Canvas().Focus(v) })
	var focused bool
	onUIWait(func() { focused = win.Canvas().Focused() == fyne.Focusable(v) })
	if !focused {
		t.Fatal("the view does not take the keyboard")
	}
	selected := func() int {
		var row int
		onUIWait(func() { row = c.selected })
		return row
	}
	steps := []struct {
		keys    []any
		top     string
		fileRow int // the row selected in the file list
	}{
		{nil, "|||M  web/login.go  +3 -2", 1},
		{[]any{'j'}, "|||@@ -10,7 +10,8 @@ func Login(w http.ResponseWriter, r *http.Request) {", 1},
		{[]any{fyne.KeyDown, fyne.KeyDown}, "11|11||    pass := r.FormValue(\"pass\")", 1},
		{[]any{'k', fyne.KeyUp}, "|||@@ -10,7 +10,8 @@ func Login(w http.ResponseWriter, r *http.Request) {", 1},
		{[]any{'n'}, "|||@@ -40,3 +41,3 @@ func logout() {", 1},
		{[]any{'p'}, "|||M  web/login.go  +3 -2", 1}, // the first hunk of a file shows under the file's header
		{[]any{'n', 'n'}, "|||A  web/new.txt  +2 -0", 2},
		{[]any{']'}, "|||D  old.txt  +0 -1", 3},
		{[]any{']', ']'}, "|||M  logo.png  binary", 5},
		{[]any{'['}, "|||R  a.go → b.go  +0 -0", 4},
		{[]any{fyne.KeyHome}, "|||M  web/login.go  +3 -2", 1},
		{[]any{' '}, "", 0}, // a page: checked below
	}
	for _, s := range steps {
		press(v, s.keys...)
		if s.top == "" {
			continue
		}
		if got := topRow(v); got != s.top {
			t.Errorf("after %v the top row is %q, want %q", s.keys, got, s.top)
		}
		if got := selected(); got != s.fileRow {
			t.Errorf("after %v the file list selects row %d, want %d", s.keys, got, s.fileRow)
		}
	}
	var first, last, rows int
	onUIWait(func() { first, last = v.visibleRows(); rows = len(v.rows) })
	if first != last-0 && first == 0 {
		t.Errorf("Space did not move a page: the top row is still %d", first)
	}
	press(v, fyne.KeyPageUp)
	if got := topRow(v); got != "|||M  web/login.go  +3 -2" {
		t.Errorf("Page Up from the second page shows %q at the top, want the first row", got)
	}
	press(v, fyne.KeyEnd)
	onUIWait(func() { first, last = v.visibleRows() })
	if last != rows-1 {
		t.Errorf("End shows rows %d to %d of %d, want the last", first, last, rows)
	}
	if got := topRow(v); got == "|||M  web/login.go  +3 -2" {
		t.Errorf("End left the top row at the start")
	}

	// A click on a file in the list scrolls the diff to it and gives the diff the keys.
	onUIWait(func() { win.Canvas().Unfocus(); c.files.Select(3) })
	if got := topRow(v); got != "|||D  old.txt  +0 -1" {
		t.Errorf("selecting old.txt shows %q at the top", got)
	}
	onUIWait(func() { focused = win.Canvas().Focused() == fyne.Focusable(v) })
	if !focused {
		t.Errorf("selecting a file left the keys elsewhere")
	}
}

// A change to the diff read after a turn keeps the person's place: the same file, at the
// same line.
func TestTheDiffKeepsItsPlaceWhenReadAgain(t *testing.T) {
	c, _ := newReviewTab(t, longReviewDiff(), fyne.NewSize(820, 300))
	press(c.view, ']', 'j', 'j', 'j')
	before := topRow(c.view)
	if before != "|2|+|no newline here" {
		t.Fatalf("the top row before = %q, want web/new.txt's second line", before)
	}
	onUIWait(c.load)
	loaded(t, c, 2)
	if got := topRow(c.view); got != before {
		t.Errorf("after reading the changes again the top row is %q, want %q as before", got, before)
	}
	if n := markedRows(c.view); n != 0 {
		t.Errorf("after reading the changes again %d rows are drawn marked, want none", n)
	}
	// At a file's header: the same header at the top, drawn as the view holds it (no mark
	// left over from finding it).
	press(c.view, ']')
	before = topRow(c.view)
	onUIWait(c.load)
	loaded(t, c, 3)
	if got := topRow(c.view); got != before {
		t.Errorf("after reading the changes again the top row is %q, want %q as before", got, before)
	}
	var mark int
	onUIWait(func() { mark = c.view.mark })
	if n := markedRows(c.view); n != 0 || mark != -1 {
		t.Errorf("after reading the changes again %d rows are drawn marked and line %d is, want none", n, mark)
	}
}

// The figure for the README, held under a second: how long the view takes to show a diff
// of 5,000 lines it has been given (breaking every line for its width and placing a
// screenful), apart from reading it.
func TestTheDiffViewShowsFiveThousandLinesQuickly(t *testing.T) {
	var b strings.Builder
	b.WriteString("diff --git a/big.go b/big.go\n--- a/big.go\n+++ b/big.go\n@@ -1,2500 +1,2500 @@\n")
	for i := range 2500 {
		fmt.Fprintf(&b, "-\tfmt.Println(\"old line %d of a file the run rewrote, long enough to be code\")\n+\tfmt.Println(\"new line %d\")\n", i, i)
	}
	set := control.ChangeSet{Files: []changes.File{{Path: "big.go", Status: changes.Modified, Added: 2500, Deleted: 2500}}, Diff: changes.Patch{Text: b.String()}}
	test.NewTempApp(t)
	v := newDiffView()
	win := test.NewTempWindow(t, v)
	win.Resize(fyne.NewSize(600, 700))
	start := time.Now()
	content := diffContentOf(set)
	parsed := time.Since(start)
	onUIWait(func() { v.setLines(content.lines) })
	took := time.Since(start)
	var rows, drawn int
	onUIWait(func() { rows, drawn = len(v.rows), v.rendered })
	t.Logf("5,000 lines: read into lines in %v, shown (broken for the width, a screenful placed) in %v in all: %d rows, %d on screen",
		parsed, took, rows, drawn)
	if drawn == 0 || rows < 5002 {
		t.Errorf("%d rows, %d on screen", rows, drawn)
	}
	if took > time.Second { // issue 23: "well under a second"; about 40 ms on a loaded machine
		t.Errorf("5,000 lines took %v to read and show, want well under a second", took)
	}
}

// fiveThousandLines is a change set whose diff has 5,000 changed lines of Go.
func fiveThousandLines() control.ChangeSet {
	var b strings.Builder
	b.WriteString("diff --git a/big.go b/big.go\n--- a/big.go\n+++ b/big.go\n@@ -1,2500 +1,2500 @@\n")
	for i := range 2500 {
		fmt.Fprintf(&b, "-\tfmt.Println(\"old line %d of a file the run rewrote\")\n+\tfmt.Println(\"new line %d\")\n", i, i)
	}
	return control.ChangeSet{Files: []changes.File{{Path: "big.go", Status: changes.Modified, Added: 2500, Deleted: 2500}}, Diff: changes.Patch{Text: b.String()}}
}

// BenchmarkDiffContentOf reads a diff of 5,000 lines into the view's lines (off Fyne's
// goroutine in the tab).
func BenchmarkDiffContentOf(b *testing.B) {
	set := fiveThousandLines()
	for b.Loop() {
		diffContentOf(set)
	}
}

// BenchmarkDiffViewSetLines shows 5,000 lines in a view: breaking them for its width and
// placing a screenful (on Fyne's goroutine in the tab).
func BenchmarkDiffViewSetLines(b *testing.B) {
	test.NewTempApp(b)
	lines := diffContentOf(fiveThousandLines()).lines
	v := newDiffView()
	w := test.NewTempWindow(b, v)
	w.Resize(fyne.NewSize(600, 700))
	for b.Loop() {
		v.setLines(lines)
	}
}

// The diff's text is escaped and its tabs expanded whatever it holds: plain ASCII, which
// skips the escaping, and the rest.
func TestDiffTextEscapesAndExpandsTabs(t *testing.T) {
	for in, want := range map[string]string{
		"\tx := 1":                   "    x := 1",
		"ab\tc\t\td":                 "ab  c       d",
		"é\tx":                       "é   x",
		"a\u202eb\tc":                "a\\u202eb    c", // the escape's own columns count
		"bell\x07":                   "bell\\x07",
		"mark " + wrapMark + " here": "mark " + wrapMarkEscaped + " here",
		"plain":                      "plain",
	} {
		if got := diffText(in); got != want {
			t.Errorf("diffText(%q) = %q, want %q", in, got, want)
		}
	}
}
