package unidiff

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// git runs git in dir, sealed from the person's configuration, and returns its output.
func git(t *testing.T, dir string, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GIT_CONFIG_GLOBAL="+os.DevNull, "GIT_CONFIG_NOSYSTEM=1",
		"GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@example.invalid", "GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@example.invalid")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return string(out)
}

func write(t *testing.T, dir, name, content string, mode os.FileMode) {
	t.Helper()
	path := filepath.Join(dir, name)
	if err := os.WriteFile(path, []byte(content), mode); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(path, mode); err != nil {
		t.Fatal(err)
	}
}

// numbered is n lines "line 1" to "line n".
func numbered(n int, change map[int]string) string {
	var b strings.Builder
	for i := 1; i <= n; i++ {
		if s, ok := change[i]; ok {
			b.WriteString(s)
			continue
		}
		fmt.Fprintf(&b, "line %d\n", i)
	}
	return b.String()
}

// gitDiff commits before, applies change to the work tree, commits it, and returns the
// diff git prints between the two commits, as segwi reads a run's changes
// (runs/changes: diff-tree -r -M -p).
func gitDiff(t *testing.T, before, change func(dir string)) string {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed")
	}
	dir := t.TempDir()
	git(t, dir, "init", "--quiet", "--initial-branch=main")
	before(dir)
	git(t, dir, "add", "-A")
	git(t, dir, "commit", "--quiet", "-m", "before")
	change(dir)
	git(t, dir, "add", "-A")
	git(t, dir, "commit", "--quiet", "-m", "after")
	return git(t, dir, "diff-tree", "-r", "-M", "-p", "--no-color", "--no-ext-diff", "HEAD~1", "HEAD")
}

// summary is what a test compares of a parsed file.
type summary struct {
	Old, New                 string
	IsNew, Deleted, Renamed  bool
	Binary, Cut              bool
	OldMode, NewMode         string
	Hunks                    []string // each hunk's header
	Added, Removed, Numbered int      // lines, and lines with a number on both sides
}

func summarise(files []File) []summary {
	var out []summary
	for _, f := range files {
		s := summary{Old: f.OldPath, New: f.NewPath, IsNew: f.New, Deleted: f.Deleted, Renamed: f.Renamed,
			Binary: f.Binary, Cut: f.Cut, OldMode: f.OldMode, NewMode: f.NewMode}
		s.Added, s.Removed = f.Counts()
		for _, h := range f.Hunks {
			s.Hunks = append(s.Hunks, h.Header)
			for _, l := range h.Lines {
				if l.Old > 0 && l.New > 0 {
					s.Numbered++
				}
			}
		}
		out = append(out, s)
	}
	return out
}

// Every kind of change git prints for a run's changes is read with its names as they are
// in the checkout: names with spaces, tabs and accents (which git quotes), a rename with
// changes and one without, a binary file, a mode change, a file ending without a newline.
func TestParseReadsTheDiffGitPrints(t *testing.T) {
	text := gitDiff(t, func(dir string) {
		write(t, dir, "two hunks.txt", numbered(40, nil), 0o644)
		write(t, dir, "gone.txt", "bye\n", 0o644)
		write(t, dir, "moved.txt", numbered(20, nil), 0o644)
		write(t, dir, "same.txt", numbered(5, nil), 0o644)
		write(t, dir, "script.sh", "echo hi\n", 0o644)
		write(t, dir, "logo.png", "\x89PNG\r\n\x1a\n\x00\x00", 0o644)
		write(t, dir, "tail.txt", "a\nb", 0o644)
	}, func(dir string) {
		write(t, dir, "two hunks.txt", numbered(40, map[int]string{2: "line two\n", 39: "line 39\nline 39½\n"}), 0o644)
		os.Remove(filepath.Join(dir, "gone.txt"))
		os.Rename(filepath.Join(dir, "moved.txt"), filepath.Join(dir, "moved again.txt"))
		write(t, dir, "moved again.txt", numbered(20, map[int]string{20: "the end\n"}), 0o644)
		os.Rename(filepath.Join(dir, "same.txt"), filepath.Join(dir, "élan.txt"))
		write(t, dir, "script.sh", "echo hi\n", 0o755)
		write(t, dir, "logo.png", "\x89PNG\r\n\x1a\n\x00\x01", 0o644)
		write(t, dir, "tail.txt", "a\nc", 0o644)
		write(t, dir, "tab\there.txt", "new\n", 0o644)
	})
	got := summarise(Parse(text))
	want := []summary{
		{Old: "gone.txt", Deleted: true, OldMode: "100644", Hunks: []string{"@@ -1 +0,0 @@"}, Removed: 1},
		{Old: "logo.png", New: "logo.png", Binary: true},
		{Old: "moved.txt", New: "moved again.txt", Renamed: true, Hunks: []string{"@@ -17,4 +17,4 @@ line 16"}, Added: 1, Removed: 1, Numbered: 3},
		{Old: "script.sh", New: "script.sh", OldMode: "100644", NewMode: "100755"},
		{New: "tab\there.txt", IsNew: true, NewMode: "100644", Hunks: []string{"@@ -0,0 +1 @@"}, Added: 1},
		{Old: "tail.txt", New: "tail.txt", Hunks: []string{"@@ -1,2 +1,2 @@"}, Added: 1, Removed: 1, Numbered: 1},
		{Old: "two hunks.txt", New: "two hunks.txt", Hunks: []string{"@@ -1,5 +1,5 @@", "@@ -37,4 +37,5 @@ line 36"}, Added: 2, Removed: 1, Numbered: 8},
		{Old: "same.txt", New: "élan.txt", Renamed: true},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("the files read (-want +got):\n%s\nfrom:\n%s", diff, text)
	}

	files := Parse(text)
	byPath := map[string]File{}
	for _, f := range files {
		byPath[f.Path()] = f
	}
	// The lines of a hunk carry their numbers in the old and the new file.
	h := byPath["two hunks.txt"].Hunks[1]
	var lines []string
	for _, l := range h.Lines {
		lines = append(lines, fmt.Sprintf("%d %d %c%s", l.Old, l.New, l.Op, l.Text))
	}
	wantLines := []string{"37 37  line 37", "38 38  line 38", "39 39  line 39", "0 40 +line 39½", "40 41  line 40"}
	if diff := cmp.Diff(wantLines, lines); diff != "" {
		t.Errorf("the second hunk's lines (-want +got):\n%s", diff)
	}
	// A file ending without a newline says so on its last line, old and new.
	tail := byPath["tail.txt"].Hunks[0].Lines
	if len(tail) != 3 || !tail[1].NoNewline || !tail[2].NoNewline || tail[0].NoNewline {
		t.Errorf("tail.txt's lines = %+v, want b and c each marked as ending without a newline", tail)
	}
	if f := byPath["moved again.txt"]; f.Similarity < 50 {
		t.Errorf("the rename's similarity = %d%%", f.Similarity)
	}
	if f := byPath["élan.txt"]; f.Similarity != 100 || len(f.Hunks) != 0 {
		t.Errorf("the pure rename = %+v, want 100%% similar and no hunks", f)
	}
}

// A diff cut short, as segwi cuts one at its size limit, is read as far as it goes: the
// file it was cut in is marked, its lines keep their numbers, and nothing is made up.
func TestParseReadsADiffCutShort(t *testing.T) {
	text := "diff --git a/a.txt b/a.txt\nindex 1..2 100644\n--- a/a.txt\n+++ b/a.txt\n@@ -10,3 +10,4 @@ func f()\n ten\n-eleven\n+eleven!\n+eleven and a half\n twelve\n" +
		"diff --git a/b.txt b/b.txt\nindex 3..4 100644\n--- a/b.txt\n+++ b/b.txt\n@@ -1,3 +1,3 @@\n one\n-two\n"
	files := Parse(text)
	got := summarise(files)
	want := []summary{
		{Old: "a.txt", New: "a.txt", Hunks: []string{"@@ -10,3 +10,4 @@ func f()"}, Added: 2, Removed: 1, Numbered: 2},
		{Old: "b.txt", New: "b.txt", Hunks: []string{"@@ -1,3 +1,3 @@"}, Removed: 1, Numbered: 1, Cut: true},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
	if s := files[0].Hunks[0].Section; s != "func f()" {
		t.Errorf("the hunk's section = %q", s)
	}
	if l := files[0].Hunks[0].Lines[4]; l.Old != 12 || l.New != 13 || l.Text != "twelve" {
		t.Errorf("the last line read = %+v, want twelve at 12 and 13", l)
	}
	whole := Parse(text + "+2\n three\n")
	if whole[1].Cut {
		t.Errorf("a file whose hunk has all its lines is marked cut")
	}
}

// What is not git's diff is not made into files, and git's odd names are read.
func TestParseKeepsToWhatGitPrints(t *testing.T) {
	if files := Parse("hello\n--- a\n+++ b\n@@ -1 +1 @@\n-a\n+b\n"); len(files) != 0 {
		t.Errorf("text before any diff --git line gave %d files", len(files))
	}
	for _, c := range []struct{ line, old, new string }{
		{`a/x.txt b/x.txt`, "x.txt", "x.txt"},
		{`a/with b/inside b/with b/inside`, "with b/inside", "with b/inside"},
		{`"a/\303\251.txt" "b/\303\251.txt"`, "é.txt", "é.txt"},
		{`a/plain "b/tab\there"`, "plain", "tab\there"},
		{`a/old b/new`, "", ""}, // a rename: its names come from its rename lines
	} {
		old, new := gitHeaderNames(c.line)
		if old != c.old || new != c.new {
			t.Errorf("diff --git %s: names %q and %q, want %q and %q", c.line, old, new, c.old, c.new)
		}
	}
	// A hunk whose counts were wrong ends at the first line that is not a hunk's.
	files := Parse("diff --git a/a b/a\n@@ -1,5 +1,5 @@\n-a\n+b\nnot a hunk line\n")
	if len(files) != 1 || len(files[0].Hunks[0].Lines) != 2 || files[0].Headers[len(files[0].Headers)-1] != "not a hunk line" {
		t.Errorf("got %+v", files)
	}
}
