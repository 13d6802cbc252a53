package changes

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"

	"golang.org/x/sys/unix"

	"github.com/segwi/segwi/internal/testing/claudetest"
)

// The run's changes are committed as the person; what was dirty before the run and what
// the person staged for other files stay as they were.
func TestCommitTakesTheRunsChangesAndLeavesThePersonsAlone(t *testing.T) {
	g, _ := sealedGit(t)
	dir := claudetest.Checkout(t)
	git(t, dir, "switch", "-q", "-c", "segwi/work")
	write(t, dir, "dirty.txt", "the person's work in progress\n")
	write(t, dir, "gone.txt", "to delete\n")
	git(t, dir, "add", "gone.txt")
	git(t, dir, "commit", "-q", "-m", "A file to delete")
	base := baseOf(t, g, dir)
	parent := git(t, dir, "rev-parse", "HEAD")

	write(t, dir, "hello.txt", "hello, edited by the run\n")
	write(t, dir, "x.txt", "a new file\n")
	os.Remove(filepath.Join(dir, "gone.txt"))
	write(t, dir, "dirty.txt", "the person's work, and the run's\n")
	write(t, dir, "staged.txt", "staged by the person during the run\n")
	git(t, dir, "add", "staged.txt")
	git(t, dir, "reset", "-q", "--", "staged.txt") // unstaged again: untracked, so it is the run's
	write(t, dir, "README.md", claudetest.CheckoutReadme+"The person's staged line.\n")
	git(t, dir, "add", "README.md") // staged by the person: but a change since the base, so the run's

	c, err := Commit(context.Background(), g, base, CommitOptions{Message: "Edit hello and add x\n\nThe run's task.\n", Reflog: "segwi: commit of run r1"})
	if err != nil {
		t.Fatalf("Commit: %v", err)
	}
	wantFiles := []string{"README.md", "gone.txt", "hello.txt", "staged.txt", "x.txt"}
	if !slices.Equal(c.Files, wantFiles) || !slices.Equal(c.LeftOut, []string{"dirty.txt"}) {
		t.Errorf("committed %q, left out %q; want %q and dirty.txt", c.Files, c.LeftOut, wantFiles)
	}
	if c.Branch != "segwi/work" || c.Parent != parent || c.Commit != git(t, dir, "rev-parse", "HEAD") || c.IndexNote != "" {
		t.Errorf("committed %+v, want segwi/work moved from %s to the new commit", c, parent)
	}
	if c.Author != "segwi test <test@segwi.invalid>" || c.Subject != "Edit hello and add x" {
		t.Errorf("author %q, subject %q", c.Author, c.Subject)
	}
	if got := git(t, dir, "log", "-1", "--format=%an <%ae>|%cn|%B"); got != "segwi test <test@segwi.invalid>|segwi test|Edit hello and add x\n\nThe run's task." {
		t.Errorf("the commit reads %q", got)
	}
	if got := git(t, dir, "show", "--name-status", "--format=", "HEAD"); got != "M\tREADME.md\nD\tgone.txt\nM\thello.txt\nA\tstaged.txt\nA\tx.txt" {
		t.Errorf("the commit holds:\n%s", got)
	}
	// The person's view: only dirty.txt is left, unstaged as it was.
	if st := claudetest.Status(t, dir); st != "?? dirty.txt" {
		t.Errorf("git status after the commit:\n%s\nwant only dirty.txt untracked", st)
	}
	if got := git(t, dir, "reflog", "-1", "--format=%gs", "segwi/work"); !strings.HasPrefix(got, "segwi: commit of run r1: Edit hello and add x") {
		t.Errorf("reflog says %q", got)
	}
	git(t, dir, "fsck", "--no-dangling") // the commit's objects are all in the checkout

	t.Run("a file dirty before the run is committed when named", func(t *testing.T) {
		base2 := base
		c, err := Commit(context.Background(), g, base2, CommitOptions{Message: "Also the work in progress", Include: []string{"dirty.txt"}})
		if err != nil {
			t.Fatalf("Commit: %v", err)
		}
		if !slices.Equal(c.Files, []string{"dirty.txt"}) || len(c.LeftOut) != 0 {
			t.Errorf("committed %q, left out %q", c.Files, c.LeftOut)
		}
		if st := claudetest.Status(t, dir); st != "" {
			t.Errorf("git status: %q, want clean", st)
		}
	})
}

func TestCommitRefusesWhatItCannotDoWell(t *testing.T) {
	g, _ := sealedGit(t)
	tests := []struct {
		name    string
		prepare func(t *testing.T, dir string) // after the base
		before  func(t *testing.T, dir string) // before the base
		opts    CommitOptions
		reason  RefusalReason
		says    string
	}{
		{name: "nothing changed", reason: NothingToCommit, says: "the run's changes are all committed"},
		{name: "only files dirty before the run changed",
			before:  func(t *testing.T, dir string) { write(t, dir, "hello.txt", "the person's\n") },
			prepare: func(t *testing.T, dir string) { write(t, dir, "hello.txt", "the person's and the run's\n") },
			reason:  NothingToCommit, says: "already changed before the run (hello.txt); name those"},
		{name: "a named file that is not dirty",
			prepare: func(t *testing.T, dir string) { write(t, dir, "x.txt", "x\n") },
			opts:    CommitOptions{Include: []string{"README.md"}}, reason: NotDirty, says: "README.md is not among the run's uncommitted changes"},
		{name: "an empty message", prepare: func(t *testing.T, dir string) { write(t, dir, "x.txt", "x\n") },
			opts: CommitOptions{Message: " \n\n"}, reason: NoMessage, says: "the commit message is empty"},
		{name: "a detached HEAD",
			prepare: func(t *testing.T, dir string) { git(t, dir, "switch", "-q", "--detach"); write(t, dir, "x.txt", "x\n") },
			reason:  DetachedHead, says: "create one with git switch -c NAME"},
		{name: "no identity",
			prepare: func(t *testing.T, dir string) {
				git(t, dir, "config", "--unset", "user.name")
				git(t, dir, "config", "--unset", "user.email")
				git(t, dir, "config", "user.useConfigOnly", "true")
				write(t, dir, "x.txt", "x\n")
			},
			reason: NoIdentity, says: "git config --global user.name"},
		{name: "a file that goes through git-lfs",
			prepare: func(t *testing.T, dir string) {
				write(t, dir, ".gitattributes", "*.psd filter=lfs diff=lfs merge=lfs -text\n")
				write(t, dir, "art.psd", "\x00big binary")
			},
			reason: Filtered, says: "art.psd (filter lfs)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := claudetest.Checkout(t)
			if tt.before != nil {
				tt.before(t, dir)
			}
			base := baseOf(t, g, dir)
			if tt.prepare != nil {
				tt.prepare(t, dir)
			}
			if tt.opts.Message == "" {
				tt.opts.Message = "The run's work"
			}
			head := git(t, dir, "rev-parse", "HEAD")
			status := claudetest.Status(t, dir)
			_, err := Commit(context.Background(), g, base, tt.opts)
			var refused *RefusedError
			if !errors.As(err, &refused) || refused.Reason != tt.reason || !strings.Contains(refused.Msg, tt.says) {
				t.Fatalf("Commit: %v, want a %s refusal saying %q", err, tt.reason, tt.says)
			}
			if got := git(t, dir, "rev-parse", "HEAD"); got != head {
				t.Errorf("HEAD moved to %s", got)
			}
			if got := claudetest.Status(t, dir); got != status {
				t.Errorf("the checkout's status changed:\n%s\nwas:\n%s", got, status)
			}
		})
	}
}

// A first commit on a branch that has none yet.
func TestCommitMakesTheFirstCommitOfABranch(t *testing.T) {
	g, _ := sealedGit(t)
	dir := t.TempDir()
	git(t, dir, "init", "-q", "-b", "main")
	git(t, dir, "config", "user.name", "segwi test")
	git(t, dir, "config", "user.email", "test@segwi.invalid")
	base := baseOf(t, g, dir)
	write(t, dir, "first.txt", "one\n")
	c, err := Commit(context.Background(), g, base, CommitOptions{Message: "Start"})
	if err != nil {
		t.Fatalf("Commit: %v", err)
	}
	if c.Parent != "" || git(t, dir, "rev-parse", "main") != c.Commit || claudetest.Status(t, dir) != "" {
		t.Errorf("committed %+v; status %q", c, claudetest.Status(t, dir))
	}
}

// The same attack as TestReadingChangesRunsNoProgramTheConfigNames, on the commit: a
// commit segwi makes for the person runs none of the agent's programs: not its hooks,
// fsmonitor, filters or a gpg.program that commit.gpgSign would call.
func TestCommitRunsNoProgramTheConfigNames(t *testing.T) {
	g, home := sealedGit(t)
	dir := claudetest.Checkout(t)
	git(t, dir, "switch", "-q", "-c", "segwi/work")
	ran := filepath.Join(t.TempDir(), "ran")
	program := filepath.Join(t.TempDir(), "agent-program")
	write(t, filepath.Dir(program), filepath.Base(program), "#!/bin/sh\necho \"$0 $*\" >> "+ran+"\ncat\n")
	os.Chmod(program, 0o755)
	hooks := filepath.Join(dir, ".git", "agent-hooks")
	for _, hook := range []string{"pre-commit", "prepare-commit-msg", "commit-msg", "post-commit", "post-index-change", "reference-transaction", "post-rewrite"} {
		write(t, hooks, hook, "#!/bin/sh\nexec "+program+" "+hook+"\n")
		os.Chmod(filepath.Join(hooks, hook), 0o755)
	}
	git(t, dir, "config", "core.hooksPath", hooks)
	git(t, dir, "config", "core.fsmonitor", program)
	git(t, dir, "config", "filter.agent.clean", program)
	write(t, home, ".gitconfig", "[commit]\n\tgpgSign = true\n[gpg]\n\tprogram = "+program+"\n")
	base := baseOf(t, g, dir)
	write(t, dir, "hello.txt", "hello, edited by the run\n")
	write(t, dir, "x.txt", "new\n")

	c, err := Commit(context.Background(), g, base, CommitOptions{Message: "The run's work"})
	if err != nil {
		t.Fatalf("Commit: %v", err)
	}
	if b, err := os.ReadFile(ran); err == nil {
		t.Errorf("a planted program ran during the commit:\n%s", b)
	}
	if !slices.Equal(c.Files, []string{"hello.txt", "x.txt"}) || git(t, dir, "cat-file", "-p", "HEAD:x.txt") != "new" {
		t.Errorf("committed %+v", c)
	}
	if got := git(t, dir, "cat-file", "commit", "HEAD"); strings.Contains(got, "gpgsig") {
		t.Errorf("the commit is signed:\n%s", got)
	}
}

// A checkout on another file system than the one segwi's git works in (/tmp, its private
// folder here; a tmpfs /tmp and a checkout on /home's disk on many machines): the commit's
// objects still reach it. git renames a pack into place from the repository it runs in,
// which fails across file systems ("Invalid cross-device link").
func TestCommitIntoACheckoutOnAnotherFileSystem(t *testing.T) {
	var tmp syscall.Stat_t
	if err := syscall.Stat("/tmp", &tmp); err != nil {
		t.Skip("no /tmp:", err)
	}
	other := ""
	for _, d := range []string{os.TempDir(), "/dev/shm", "/var/tmp", os.Getenv("HOME")} {
		var st syscall.Stat_t
		if d != "" && syscall.Stat(d, &st) == nil && st.Dev != tmp.Dev && unix.Access(d, unix.W_OK) == nil {
			other = d
			break
		}
	}
	if other == "" {
		t.Skip("no folder on another file system than /tmp to make a checkout in")
	}
	t.Setenv("TMPDIR", other) // before the test's first t.TempDir, which every later one shares
	g, _ := sealedGit(t)      // no TMPDIR or XDG_RUNTIME_DIR: its private folders go in /tmp
	dir := claudetest.Checkout(t)
	base := baseOf(t, g, dir)
	write(t, dir, "x.txt", "a new file\n")
	c, err := Commit(context.Background(), g, base, CommitOptions{Message: "Add x"})
	if err != nil {
		t.Fatalf("Commit into a checkout in %s, segwi's git working in /tmp: %v", other, err)
	}
	if got := git(t, dir, "show", "--name-status", "--format=", c.Commit); got != "A\tx.txt" {
		t.Errorf("the commit holds:\n%s", got)
	}
	if out := git(t, dir, "fsck", "--no-dangling"); strings.Contains(out, "error") || strings.Contains(out, "missing") {
		t.Errorf("git fsck in the checkout:\n%s", out)
	}
}
