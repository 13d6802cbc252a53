package changes

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/segwi/segwi/internal/testing/claudetest"
)

func TestTheBaseSaysWhereTheCheckoutStood(t *testing.T) {
	g, _ := sealedGit(t)
	t.Run("a branch with changes already made", func(t *testing.T) {
		dir := claudetest.Checkout(t)
		write(t, dir, ".gitignore", "*.log\n")
		git(t, dir, "add", ".gitignore")
		git(t, dir, "commit", "-q", "-m", "Ignore logs")
		write(t, dir, "hello.txt", "changed by the person\n") // tracked, modified
		write(t, dir, "notes/todo.txt", "untracked\n")        // untracked
		write(t, dir, "debug.log", "ignored\n")               // ignored
		write(t, dir, "staged.txt", "staged\n")
		git(t, dir, "add", "staged.txt") // staged, not committed
		head := git(t, dir, "rev-parse", "HEAD")

		got := baseOf(t, g, filepath.Join(dir, "notes")) // from a folder inside the work tree
		want := Base{Repo: dir, Branch: "main", Commit: head, Dirty: []string{"hello.txt", "notes/todo.txt", "staged.txt"}, DirtyCount: 3}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("base (-want +got):\n%s", diff)
		}
		if !got.WasDirty("hello.txt") || got.WasDirty("README.md") {
			t.Errorf("WasDirty: hello.txt %v, README.md %v; want true, false", got.WasDirty("hello.txt"), got.WasDirty("README.md"))
		}
		if st := claudetest.Status(t, dir); !strings.Contains(st, "A  staged.txt") || !strings.Contains(st, "M hello.txt") {
			t.Errorf("reading the base changed the person's index:\n%s", st)
		}
	})
	t.Run("a detached HEAD", func(t *testing.T) {
		dir := claudetest.Checkout(t)
		git(t, dir, "switch", "-q", "--detach")
		got := baseOf(t, g, dir)
		if !got.Detached || got.Branch != "" || got.Commit != git(t, dir, "rev-parse", "HEAD") || len(got.Dirty) != 0 {
			t.Errorf("got %+v, want a detached HEAD at its commit, nothing dirty", got)
		}
	})
	t.Run("a branch with no commit yet", func(t *testing.T) {
		dir := t.TempDir()
		git(t, dir, "init", "-q", "-b", "trunk")
		write(t, dir, "first.txt", "one\n")
		got := baseOf(t, g, dir)
		if !got.Unborn || got.Branch != "trunk" || got.Commit != "" || !slices.Equal(got.Dirty, []string{"first.txt"}) {
			t.Errorf("got %+v, want branch trunk with no commit, first.txt dirty", got)
		}
	})
	t.Run("a folder that is not a git checkout", func(t *testing.T) {
		got := ReadBase(context.Background(), g, t.TempDir())
		if got.Known() || !strings.Contains(got.Error, "not a git checkout") {
			t.Errorf("got %+v, want an unknown base saying it is not a git checkout", got)
		}
		if _, err := Take(context.Background(), g, got); err == nil || !strings.Contains(err.Error(), "no base recorded") {
			t.Errorf("Take of that base: %v, want no base", err)
		}
	})
}

// The agent can mark a file it changed as unchanged in the checkout's index
// (git update-index --assume-unchanged or --skip-worktree), which hides the change from git
// status. The run's changes must still show it.
func TestChangesHiddenByIndexBitsAreShown(t *testing.T) {
	g, _ := sealedGit(t)
	dir := claudetest.Checkout(t)
	base := baseOf(t, g, dir)
	write(t, dir, "hello.txt", "changed, then hidden\n")
	write(t, dir, "README.md", "changed, then hidden too\n")
	git(t, dir, "update-index", "--assume-unchanged", "hello.txt")
	git(t, dir, "update-index", "--skip-worktree", "README.md")
	if st := claudetest.Status(t, dir); st != "" {
		t.Fatalf("git status shows %q: the bits did not hide the changes, so this proves nothing", st)
	}
	snap := take(t, g, base)
	var got []string
	for _, f := range snap.Files {
		got = append(got, f.Path+" "+string(f.Status))
	}
	if want := []string{"README.md modified", "hello.txt modified"}; !slices.Equal(got, want) {
		t.Errorf("changes = %q, want %q", got, want)
	}
}

// The base's git reads no index but the scratch repository's copy, in git status: segwi
// reads the index's entries itself (gitcmd.ParseIndex), and asks git ls-files only for an
// index it does not read, such as a split index, which it then starts from HEAD's tree
// (issue 22). Files the index hides from git status were dirty all the same.
func TestTheBaseReadsTheIndexWithoutGit(t *testing.T) {
	g, _ := sealedGit(t)
	log := filepath.Join(t.TempDir(), "commands")
	g.Path = claudetest.WrappedGit(t, `echo "$1" >> '`+log+`'`)
	commands := func() []string {
		t.Helper()
		b, err := os.ReadFile(log)
		if err != nil {
			t.Fatal(err)
		}
		os.Remove(log)
		// The version check and the configuration's parse are once a process for a file.
		return slices.DeleteFunc(strings.Fields(string(b)), func(c string) bool { return c == "--version" || c == "config" })
	}
	dir := claudetest.Checkout(t)
	write(t, dir, "hello.txt", "changed, then hidden\n")
	write(t, dir, "README.md", "changed, then hidden too\n")
	git(t, dir, "update-index", "--assume-unchanged", "hello.txt")
	git(t, dir, "update-index", "--skip-worktree", "README.md")

	for _, c := range []struct {
		name  string
		split bool
		want  []string
	}{
		{"an index segwi reads", false, []string{"update-index", "update-index", "status"}},
		{"a split index, which only git reads", true, []string{"ls-files", "read-tree", "ls-files", "status"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			if c.split {
				git(t, dir, "update-index", "--split-index")
			}
			got := baseOf(t, g, dir)
			if want := []string{"README.md", "hello.txt"}; !slices.Equal(got.Dirty, want) {
				t.Errorf("dirty at the base: %q, want %q", got.Dirty, want)
			}
			if cmds := commands(); !slices.Equal(cmds, c.want) {
				t.Errorf("git commands: %q, want %q", cmds, c.want)
			}
		})
	}
}
