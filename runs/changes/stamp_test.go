package changes

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/segwi/segwi/internal/lib/gitcmd"
	"github.com/segwi/segwi/internal/testing/await"
	"github.com/segwi/segwi/internal/testing/claudetest"
)

// stableStamp reads the changes since base with g and stamps them, again until the stamp
// is not racy: what was written just before reading cannot be told from a change made
// just after.
func stableStamp(t *testing.T, g gitcmd.Git, base Base) Stamp {
	t.Helper()
	var st Stamp
	await.For(t, 30*time.Second, "a stamp taken after the checkout settled", func() error {
		snap := take(t, g, base)
		var err error
		if st, err = snap.Stamp(context.Background()); err != nil {
			t.Fatal(err)
		}
		if st.racy {
			return fmt.Errorf("the stamp is racy")
		}
		return nil
	})
	return st
}

// unchanged is Stamp.Unchanged, failing the test on an error.
func unchanged(t *testing.T, st Stamp) bool {
	t.Helper()
	same, err := st.Unchanged(context.Background())
	if err != nil {
		t.Fatalf("Unchanged: %v", err)
	}
	return same
}

// changingCheckout makes the checkout that checkoutChanges change: a build folder git
// ignores whole and a nested repository, committed; README.md changed, an untracked x.txt
// and a built build/app, not.
func changingCheckout(t *testing.T) string {
	t.Helper()
	dir := claudetest.Checkout(t)
	write(t, dir, ".gitignore", "build/\n")
	git(t, dir, "add", ".gitignore")
	git(t, dir, "commit", "-q", "-m", "Ignore the build")
	nested := filepath.Join(dir, "nested")
	write(t, nested, "n.txt", "nested\n")
	git(t, nested, "init", "-q")
	git(t, nested, "add", ".")
	git(t, nested, "commit", "-q", "-m", "Nested")
	write(t, dir, "README.md", "changed by the person\n")
	write(t, dir, "x.txt", "a new file\n")
	write(t, dir, "build/app", "binary\n")
	return dir
}

// checkoutChanges are the ways a run, or the person, changes a checkout (changingCheckout;
// home is the HOME of the test's git): each changes what git would show, and must break a
// stamp taken before, except the two that hold, a change inside a folder git ignores whole
// among them.
var checkoutChanges = []struct {
	name   string
	change func(t *testing.T, dir, home string)
	holds  bool
}{
	{"nothing changed", func(t *testing.T, dir, home string) {}, true},
	{"a file in an ignored folder written", func(t *testing.T, dir, home string) {
		write(t, dir, "build/out/new.o", "object\n")
		write(t, dir, "build/app", "binary, rebuilt\n")
	}, true},
	{"a tracked file rewritten, same size and modification time", func(t *testing.T, dir, home string) {
		path := filepath.Join(dir, "hello.txt")
		st, err := os.Stat(path)
		if err != nil {
			t.Fatal(err)
		}
		write(t, dir, "hello.txt", "HELLO from the test checkout\n")
		if err := os.Chtimes(path, st.ModTime(), st.ModTime()); err != nil {
			t.Fatal(err)
		}
	}, false},
	{"a changed file put back as committed", func(t *testing.T, dir, home string) { git(t, dir, "checkout", "--", "README.md") }, false},
	{"an untracked file edited", func(t *testing.T, dir, home string) { write(t, dir, "x.txt", "a new file, edited\n") }, false},
	{"a new file in a folder", func(t *testing.T, dir, home string) { write(t, dir, "docs/new.md", "new\n") }, false},
	{"a file removed", func(t *testing.T, dir, home string) { os.Remove(filepath.Join(dir, "hello.txt")) }, false},
	{"an untracked file renamed", func(t *testing.T, dir, home string) {
		os.Rename(filepath.Join(dir, "x.txt"), filepath.Join(dir, "y.txt"))
	}, false},
	{"the ignore rules changed", func(t *testing.T, dir, home string) { write(t, dir, ".gitignore", "x.txt\n") }, false},
	{"the person's ignore rules in the git folder changed", func(t *testing.T, dir, home string) {
		write(t, dir, ".git/info/exclude", "x.txt\n")
	}, false},
	{"the person's own ignore file written", func(t *testing.T, dir, home string) {
		write(t, home, ".config/git/ignore", "x.txt\n")
	}, false},
	{"a file in an ignored folder added by force", func(t *testing.T, dir, home string) { git(t, dir, "add", "-f", "build/app") }, false},
	{"a file staged", func(t *testing.T, dir, home string) { git(t, dir, "add", "x.txt") }, false},
	{"a commit made", func(t *testing.T, dir, home string) {
		git(t, dir, "add", "README.md", "x.txt")
		git(t, dir, "commit", "-q", "-m", "Add x")
	}, false},
	{"a nested repository's commit moved, its files as they were", func(t *testing.T, dir, home string) {
		git(t, filepath.Join(dir, "nested"), "commit", "-q", "--allow-empty", "-m", "More")
	}, false},
	{"a line-ending setting changed", func(t *testing.T, dir, home string) { git(t, dir, "config", "core.autocrlf", "input") }, false},
}

// The Changes tab asks for a run's changes at every turn's end; the tray answers from its
// last reading while the checkout's stamp holds, and reads again with git once anything the
// reading sees has changed: each way a run, or the person, changes what git would show
// must break the stamp; a change inside a folder git ignores whole must not.
func TestAStampHoldsUntilWhatTheChangesShowChanges(t *testing.T) {
	for _, tt := range checkoutChanges {
		t.Run(tt.name, func(t *testing.T) {
			g, home := sealedGit(t)
			dir := changingCheckout(t)
			st := stableStamp(t, g, baseOf(t, g, dir))
			tt.change(t, dir, home)
			if got := unchanged(t, st); got != tt.holds {
				t.Errorf("Unchanged = %v, want %v", got, tt.holds)
			}
		})
	}
}

// A change whose time is within the file system's clock tick of the reading cannot be told
// from one made just after it: the stamp is racy then, and holds for nothing.
func TestAStampTakenRightAfterAChangeIsRacy(t *testing.T) {
	since := time.Unix(1_700_000_000, 500_000_000)
	tests := []struct {
		name    string
		changed time.Time
		racy    bool
	}{
		{"a second before", since.Add(-time.Second), false},
		{"10 ms before", since.Add(-10 * time.Millisecond), true},
		{"during the reading", since.Add(time.Millisecond), true},
		{"1.5 s before, on a file system that keeps whole seconds", time.Unix(1_699_999_999, 0), true},
		{"3 s before, on a file system that keeps whole seconds", time.Unix(1_699_999_997, 0), false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			w := &stamper{h: newHash(), since: since}
			old := since.Add(-time.Hour).UnixNano()
			w.stat(fileStat{mtime: old, ctime: tt.changed.UnixNano()})
			w.stat(fileStat{mtime: old, ctime: old})
			if w.racy != tt.racy {
				t.Errorf("racy = %v, want %v", w.racy, tt.racy)
			}
		})
	}
}
