package changes

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

	"github.com/google/go-cmp/cmp"

	"github.com/segwi/segwi/internal/testing/claudetest"
)

// What a run did, as the tests make it: an edit, a new file, a deletion, a rename, a
// binary file, a file too large to show, a commit, and a file that was dirty before.
func TestTheChangesAreEverythingSinceTheBase(t *testing.T) {
	g, _ := sealedGit(t)
	dir := claudetest.Checkout(t)
	write(t, dir, "old/name.txt", "moved\nwith its lines\nkept\n")
	write(t, dir, "gone.txt", "to be deleted\n")
	git(t, dir, "add", ".")
	git(t, dir, "commit", "-q", "-m", "More files")
	write(t, dir, "dirty.txt", "the person's work in progress\n")
	base := baseOf(t, g, dir)

	// The run: a commit of its own, then uncommitted changes.
	write(t, dir, "README.md", claudetest.CheckoutReadme+"\nA line the run committed.\n")
	git(t, dir, "commit", "-q", "-am", "Document the sample")
	write(t, dir, "hello.txt", "hello, edited\n")
	write(t, dir, "x.txt", "a new file\n")
	os.Remove(filepath.Join(dir, "gone.txt"))
	os.MkdirAll(filepath.Join(dir, "new"), 0o755)
	os.Rename(filepath.Join(dir, "old", "name.txt"), filepath.Join(dir, "new", "name.txt"))
	write(t, dir, "logo.png", "\x89PNG\r\n\x1a\n\x00\x00binary")
	write(t, dir, "huge.txt", strings.Repeat("a line of a generated file\n", MaxTextBytes/20))
	write(t, dir, "dirty.txt", "the person's work in progress, and the run's\n")

	snap := take(t, g, base)
	want := []File{
		{Path: "README.md", Status: Modified, Added: 2},
		{Path: "dirty.txt", Status: Added, Added: 1, Uncommitted: true, DirtyAtBase: true},
		{Path: "gone.txt", Status: Deleted, Deleted: 1, Uncommitted: true},
		{Path: "hello.txt", Status: Modified, Added: 1, Deleted: 1, Uncommitted: true},
		{Path: "huge.txt", Status: Added, Binary: true, Uncommitted: true},
		{Path: "logo.png", Status: Added, Binary: true, Uncommitted: true},
		{Path: "new/name.txt", OldPath: "old/name.txt", Status: Renamed, Uncommitted: true},
		{Path: "x.txt", Status: Added, Added: 1, Uncommitted: true},
	}
	if diff := cmp.Diff(want, snap.Files); diff != "" {
		t.Errorf("files (-want +got):\n%s", diff)
	}
	if len(snap.Commits) != 1 || snap.Commits[0].Subject != "Document the sample" || snap.Commits[0].Hash != git(t, dir, "rev-parse", "HEAD") {
		t.Errorf("commits = %+v, want the run's one commit", snap.Commits)
	}
	if files, added, deleted := snap.Stat(); files != 8 || added != 5 || deleted != 2 {
		t.Errorf("Stat = %d files +%d -%d, want 8 files +5 -2", files, added, deleted)
	}
	if snap.Branch != "main" || snap.Head != git(t, dir, "rev-parse", "HEAD") {
		t.Errorf("now on %q at %s, want main at HEAD", snap.Branch, snap.Head)
	}

	ctx := context.Background()
	whole, err := snap.Diff(ctx, "", 0)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"+A line the run committed.", // committed during the run
		"-hello from the test checkout", "+hello, edited",
		"new file mode 100644", "+a new file",
		"deleted file mode 100644", "-to be deleted",
		"rename from old/name.txt", "rename to new/name.txt",
		"Binary files /dev/null and b/logo.png differ",
		"Binary files /dev/null and b/huge.txt differ",
	} {
		if !strings.Contains(whole.Text, want) {
			t.Errorf("the whole diff lacks %q", want)
		}
	}
	if whole.Cut || strings.Contains(whole.Text, "a line of a generated file") || strings.Contains(whole.Text, "\x00") {
		t.Errorf("the whole diff (%d bytes, cut %v) shows the large or the binary file", len(whole.Text), whole.Cut)
	}
	one, err := snap.Diff(ctx, "old/name.txt", 0) // a renamed file, by its old path
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(one.Text, "diff --git a/old/name.txt b/new/name.txt\n") || strings.Count(one.Text, "diff --git") != 1 {
		t.Errorf("the renamed file's diff:\n%s", one.Text)
	}
	if _, err := snap.Diff(ctx, "README", 0); err == nil || !strings.Contains(err.Error(), "not among the run's changes") {
		t.Errorf("Diff of a file the run did not change: %v", err)
	}
}

// A run that rewrites a long file gives a diff of thousands of lines: it comes whole, in
// well under a second; past the limit it is cut at a line's end, and says so.
func TestALongDiffComesWholeOrCutWithANote(t *testing.T) {
	g, _ := sealedGit(t)
	dir := claudetest.Checkout(t)
	var old, edited bytes.Buffer
	for i := range 5000 {
		fmt.Fprintf(&old, "line %d of a long file\n", i)
		fmt.Fprintf(&edited, "line %d of a long file, edited\n", i)
	}
	write(t, dir, "long.txt", old.String())
	git(t, dir, "add", "long.txt")
	git(t, dir, "commit", "-q", "-m", "A long file")
	base := baseOf(t, g, dir)
	write(t, dir, "long.txt", edited.String())

	began := time.Now()
	snap := take(t, g, base)
	patch, err := snap.Diff(context.Background(), "", 0)
	took := time.Since(began)
	if err != nil {
		t.Fatal(err)
	}
	if f, _ := snap.File("long.txt"); f.Added != 5000 || f.Deleted != 5000 {
		t.Errorf("long.txt: +%d -%d, want +5000 -5000", f.Added, f.Deleted)
	}
	if patch.Cut || strings.Count(patch.Text, "\n+line ") != 5000 || patch.CutNote() != "" {
		t.Errorf("the diff of 10,000 changed lines was cut (%v) or lacks lines (%d added shown)", patch.Cut, strings.Count(patch.Text, "\n+line "))
	}
	t.Logf("5,000 lines rewritten: snapshot and diff (%d KiB) in %s", len(patch.Text)>>10, took.Round(time.Millisecond))
	if took > 5*time.Second {
		t.Errorf("reading the changes took %s", took)
	}

	cut, err := snap.Diff(context.Background(), "long.txt", 64<<10)
	if err != nil {
		t.Fatal(err)
	}
	if !cut.Cut || len(cut.Text) > 64<<10 || !strings.HasSuffix(cut.Text, "\n") {
		t.Errorf("cut at 64 KiB: cut %v, %d bytes, ends %q", cut.Cut, len(cut.Text), cut.Text[max(0, len(cut.Text)-10):])
	}
	if note := cut.CutNote(); note != "[segwi: the diff is cut here: it is longer than 64 KiB; look at one file at a time]" {
		t.Errorf("note = %q", note)
	}
}

// A run that makes a repository of its own with git init, and commits nothing there,
// leaves a folder git add refuses ("does not have a commit checked out"): segwi used to
// hash the work tree with git add, and could then read neither the next run's base nor
// this run's changes. Such a repository is left out of the changes; one with a commit is a
// gitlink to it.
func TestANestedRepositoryWithNoCommitDoesNotStopTheReading(t *testing.T) {
	g, _ := sealedGit(t)
	dir := claudetest.Checkout(t)
	base := baseOf(t, g, dir)
	write(t, dir, "scratchpad/notes.txt", "not committed\n")
	git(t, filepath.Join(dir, "scratchpad"), "init", "-q")
	write(t, dir, "tool/main.go", "package main\n")
	git(t, filepath.Join(dir, "tool"), "init", "-q")
	git(t, filepath.Join(dir, "tool"), "add", ".")
	git(t, filepath.Join(dir, "tool"), "commit", "-q", "-m", "A tool")
	write(t, dir, "x.txt", "a new file\n")

	snap := take(t, g, base)
	var got []string
	for _, f := range snap.Files {
		got = append(got, f.Path+" "+string(f.Status))
	}
	if want := []string{"tool added", "x.txt added"}; !slices.Equal(got, want) {
		t.Errorf("changes = %q, want %q", got, want)
	}
	patch, err := snap.Diff(context.Background(), "", 0)
	if err != nil || !strings.Contains(patch.Text, "+Subproject commit "+git(t, filepath.Join(dir, "tool"), "rev-parse", "HEAD")) {
		t.Errorf("Diff = %v:\n%s", err, patch.Text)
	}
	next := baseOf(t, g, dir)
	if want := []string{"scratchpad", "tool", "x.txt"}; !slices.Equal(next.Dirty, want) {
		t.Errorf("the next run's base lists %q as already changed, want %q", next.Dirty, want)
	}
}

// Reading the changes copies no file: git compares the work tree with the base through the
// index, reading a changed file where it lies. The scratch repository holds no object but
// the empty one that names an untracked file.
func TestReadingTheChangesCopiesNoFile(t *testing.T) {
	g, _ := sealedGit(t)
	dir := claudetest.Checkout(t)
	base := baseOf(t, g, dir)
	write(t, dir, "hello.txt", "hello, edited\n")
	write(t, dir, "new/a.txt", "a new file\n")
	write(t, dir, "new/b.txt", "another\n")
	snap := take(t, g, base)
	if _, err := snap.Diff(context.Background(), "", 0); err != nil {
		t.Fatal(err)
	}
	out, err := snap.s.output(context.Background(), "count-objects", "-v")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out, "count: 1\n") && !strings.Contains(out, "count: 0\n") || !strings.Contains(out, "in-pack: 0") {
		t.Errorf("the scratch repository holds objects after the reading:\n%s", out)
	}
	if files, added, _ := snap.Stat(); files != 3 || added != 3 {
		t.Errorf("Stat = %d files, +%d; want 3 files, +3", files, added)
	}
}

// A file the run touched without changing it (a build that rewrote it as it was, a
// checkout of another branch and back) is no change; a file in conflict shows as the work
// tree has it.
func TestATouchedFileIsNoChangeAndAConflictShowsItsWorkTree(t *testing.T) {
	g, _ := sealedGit(t)
	dir := claudetest.Checkout(t)
	base := baseOf(t, g, dir)
	later := time.Now().Add(time.Hour)
	if err := os.Chtimes(filepath.Join(dir, "README.md"), later, later); err != nil {
		t.Fatal(err)
	}
	// A conflict: hello.txt changed on a side branch and here.
	git(t, dir, "switch", "-q", "-c", "side")
	write(t, dir, "hello.txt", "hello from the side branch\n")
	git(t, dir, "commit", "-q", "-am", "Side")
	git(t, dir, "switch", "-q", "main")
	write(t, dir, "hello.txt", "hello from main\n")
	git(t, dir, "commit", "-q", "-am", "Main")
	cmd := exec.Command("git", "merge", "-q", "side")
	cmd.Dir, cmd.Env = dir, append(os.Environ(), "GIT_CONFIG_GLOBAL="+os.DevNull, "GIT_CONFIG_NOSYSTEM=1")
	if err := cmd.Run(); err == nil {
		t.Fatal("the merge did not conflict")
	}
	snap := take(t, g, base)
	if len(snap.Files) != 1 || snap.Files[0].Path != "hello.txt" || snap.Files[0].Status != Modified {
		t.Fatalf("changes = %+v, want hello.txt modified alone", snap.Files)
	}
	patch, err := snap.Diff(context.Background(), "hello.txt", 0)
	if err != nil || !strings.Contains(patch.Text, "+<<<<<<< HEAD") {
		t.Errorf("the conflict's diff (%v) lacks its markers:\n%s", err, patch.Text)
	}
}
