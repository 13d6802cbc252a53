package worktree

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/segwi/segwi/internal/lib/gitcmd"
	"github.com/segwi/segwi/internal/testing/claudetest"
)

// fixture is a checkout, segwi's worktree folder, and a sealed git with a HOME of its own.
type fixture struct {
	checkout, root string
	g              gitcmd.Git
}

func newFixture(t *testing.T) fixture {
	t.Helper()
	checkout, err := filepath.EvalSymlinks(claudetest.Checkout(t))
	if err != nil {
		t.Fatal(err)
	}
	return fixture{checkout: checkout, root: filepath.Join(t.TempDir(), "worktrees"),
		g: gitcmd.New("", "", []string{"PATH=" + os.Getenv("PATH"), "HOME=" + t.TempDir(), "TMPDIR=" + t.TempDir()})}
}

func (f fixture) make(t *testing.T, runID, task string) Worktree {
	t.Helper()
	w, err := Make(context.Background(), f.g, Plan{Root: f.root, Repository: f.checkout, Name: "web app", Remote: "origin", RunID: runID, Task: task, Kind: "build"})
	if err != nil {
		t.Fatalf("Make: %v", err)
	}
	return w
}

func TestBranchNamesComeFromTheTask(t *testing.T) {
	for _, tt := range []struct{ task, kind, want string }{
		{"Fix the login form's CSS!", "build", "segwi/fix-the-login-form-s-css-ab12cd"},
		{"", "ready", "segwi/ready-ab12cd"},
		{"¿¡ ~^:", "build", "segwi/build-ab12cd"},
		{strings.Repeat("x", 80) + " more", "build", "segwi/" + strings.Repeat("x", 30) + "-ab12cd"},
		{"a..b @{c} d.lock", "build", "segwi/a-b-c-d-lock-ab12cd"},
	} {
		if got := BranchName(tt.task, tt.kind, "20261204-160000-ab12cd"); got != tt.want {
			t.Errorf("BranchName(%q) = %q, want %q", tt.task, got, tt.want)
		}
	}
}

// Two runs of one repository get two folders on two branches, at the checkout's commit,
// which stays on its own branch with nothing changed.
func TestEachRunGetsItsOwnWorktreeAndBranch(t *testing.T) {
	f := newFixture(t)
	head := claudetest.Git(t, f.checkout, "rev-parse", "HEAD")
	a := f.make(t, "20261204-160000-aaaaaa", "Add a footer")
	b := f.make(t, "20261204-160001-bbbbbb", "Add a header")
	if a.Path != filepath.Join(f.root, "web-app", "20261204-160000-aaaaaa") || a.Branch != "segwi/add-a-footer-aaaaaa" || a.Commit != head {
		t.Errorf("first worktree = %+v", a)
	}
	if b.Path == a.Path || b.Branch == a.Branch {
		t.Errorf("two runs share a worktree: %+v and %+v", a, b)
	}
	for _, w := range []Worktree{a, b} {
		if got := claudetest.Git(t, w.Path, "rev-parse", "--abbrev-ref", "HEAD"); got != w.Branch {
			t.Errorf("git in %s says it is on %q, want %q", w.Path, got, w.Branch)
		}
		if err := Check(w); err != nil {
			t.Errorf("Check: %v", err)
		}
		if err := Owned(f.root, w); err != nil {
			t.Errorf("Owned: %v", err)
		}
	}
	if got := claudetest.Git(t, f.checkout, "rev-parse", "--abbrev-ref", "HEAD"); got != "main" {
		t.Errorf("the checkout moved to %q", got)
	}
	if st := claudetest.Status(t, f.checkout); st != "" {
		t.Errorf("the checkout changed:\n%s", st)
	}
}

func TestTheRemotesDefaultBranchIsNeverARunsBranch(t *testing.T) {
	f := newFixture(t)
	const id = "20261204-160000-aaaaaa"
	claudetest.Git(t, f.checkout, "update-ref", "refs/remotes/origin/segwi/build-aaaaaa", "HEAD")
	claudetest.Git(t, f.checkout, "symbolic-ref", "refs/remotes/origin/HEAD", "refs/remotes/origin/segwi/build-aaaaaa")
	_, err := Make(context.Background(), f.g, Plan{Root: f.root, Repository: f.checkout, Name: "web", Remote: "origin", RunID: id, Kind: "build"})
	if err == nil || !strings.Contains(err.Error(), "default branch") {
		t.Errorf("Make on the default branch = %v", err)
	}
}

// setup.copy copies ignored files from the checkout, and nothing from outside it: not
// through a link, not through a folder that is a link, not with "..".
func TestCopyTakesOnlyWhatIsInTheCheckout(t *testing.T) {
	f := newFixture(t)
	w := f.make(t, "20261204-160000-aaaaaa", "copy")
	outside := t.TempDir()
	os.WriteFile(filepath.Join(outside, "secret"), []byte("the person's secret\n"), 0o600)
	os.WriteFile(filepath.Join(f.checkout, ".env"), []byte("TOKEN=abc\n"), 0o600)
	os.MkdirAll(filepath.Join(f.checkout, "config"), 0o755)
	os.WriteFile(filepath.Join(f.checkout, "config", "db.local.yaml"), []byte("db: x\n"), 0o644)
	os.Symlink(filepath.Join(outside, "secret"), filepath.Join(f.checkout, "config", "leak.local.yaml"))
	os.Symlink(outside, filepath.Join(f.checkout, "linked"))
	os.Symlink("db.local.yaml", filepath.Join(f.checkout, "config", "alias.local.yaml"))

	var said []string
	n, err := Copy(context.Background(), f.checkout, w.Path, []string{".env", "config/*.local.yaml", "linked/*", "missing"}, func(s string) { said = append(said, s) })
	if err != nil {
		t.Fatal(err)
	}
	if n != 3 {
		t.Errorf("copied %d files, want 3 (.env, db.local.yaml, alias.local.yaml); said:\n%s", n, strings.Join(said, "\n"))
	}
	if b, _ := os.ReadFile(filepath.Join(w.Path, ".env")); string(b) != "TOKEN=abc\n" {
		t.Errorf(".env in the worktree = %q", b)
	}
	if st, err := os.Lstat(filepath.Join(w.Path, ".env")); err != nil || st.Mode().Perm() != 0o600 {
		t.Errorf(".env's mode in the worktree: %v %v", st, err)
	}
	if b, _ := os.ReadFile(filepath.Join(w.Path, "config", "alias.local.yaml")); string(b) != "db: x\n" {
		t.Errorf("a link inside the checkout is copied as its file; got %q", b)
	}
	for _, p := range []string{"config/leak.local.yaml", "linked/secret", "linked"} {
		if _, err := os.Lstat(filepath.Join(w.Path, p)); err == nil {
			t.Errorf("%s, which leads out of the checkout, was copied", p)
		}
	}
	if joined := strings.Join(said, "\n"); !strings.Contains(joined, "missing: no file in the checkout matches it") || !strings.Contains(joined, "leads out of the checkout") {
		t.Errorf("what Copy said:\n%s", joined)
	}
	for _, p := range []string{"../x", "/etc/passwd", "~/.ssh/id_ed25519", "a/../../x", ".git/config", "[", ""} {
		if err := CheckPattern(p); err == nil {
			t.Errorf("CheckPattern(%q) accepted it", p)
		}
		if _, err := Copy(context.Background(), f.checkout, w.Path, []string{p}, func(string) {}); err == nil {
			t.Errorf("Copy(%q) copied", p)
		}
	}
	// A link the agent puts in the worktree where a copied file goes is not written through.
	target := filepath.Join(outside, "overwritten")
	os.WriteFile(target, []byte("kept\n"), 0o600)
	os.Remove(filepath.Join(w.Path, ".env"))
	os.Symlink(target, filepath.Join(w.Path, ".env"))
	Copy(context.Background(), f.checkout, w.Path, []string{".env"}, func(string) {}) //nolint:errcheck // what counts is the target
	if b, _ := os.ReadFile(target); string(b) != "kept\n" {
		t.Errorf("the copy wrote through a link in the worktree: %q", b)
	}
}

func TestTheSetupCommandRunsInTheWorktreeWithTheRunsEnvironment(t *testing.T) {
	dir := t.TempDir()
	var out bytes.Buffer
	err := RunCommand(context.Background(), dir, `pwd; echo "port $SEGWI_PORT"; echo oops >&2`, []string{"SEGWI_PORT=20000", "PATH=" + os.Getenv("PATH")}, &out, nil)
	if err != nil {
		t.Fatal(err)
	}
	real, _ := filepath.EvalSymlinks(dir)
	for _, want := range []string{real + "\n", "port 20000\n", "oops\n"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("output lacks %q:\n%s", want, out.String())
		}
	}
	if err := RunCommand(context.Background(), dir, "echo failing; exit 3", nil, &out, nil); err == nil || !strings.Contains(err.Error(), "code 3") {
		t.Errorf("a failing command = %v", err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
	defer cancel()
	start := time.Now()
	err = RunCommand(ctx, dir, "echo a && sleep 30 && echo b", []string{"PATH=" + os.Getenv("PATH")}, &out, nil)
	if !errors.Is(err, ErrSetupTimeout) || time.Since(start) > 10*time.Second {
		t.Errorf("a command past its timeout = %v after %s", err, time.Since(start))
	}
}

// Remove refuses to lose work without being told, removes a clean worktree and its
// never-pushed branch, and deletes nothing a record names outside segwi's folder.
func TestRemoveRefusesDirtyWorkAndRemovesACleanWorktree(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	w := f.make(t, "20261204-160000-aaaaaa", "dirty")
	os.WriteFile(filepath.Join(w.Path, "hello.txt"), []byte("changed\n"), 0o644)
	_, err := Remove(ctx, f.g, f.root, w, RemoveOptions{Remote: "origin", DeleteBranch: true})
	var refused *RefusedError
	if !errors.As(err, &refused) || !strings.Contains(err.Error(), "hello.txt") {
		t.Fatalf("Remove of a dirty worktree = %v", err)
	}
	if _, err := os.Stat(filepath.Join(w.Path, "hello.txt")); err != nil {
		t.Errorf("the refused remove took the file: %v", err)
	}
	claudetest.Git(t, w.Path, "commit", "-qam", "the run's work")
	_, err = Remove(ctx, f.g, f.root, w, RemoveOptions{Remote: "origin", DeleteBranch: true})
	if !errors.As(err, &refused) || !strings.Contains(err.Error(), "1 commit only its branch holds") {
		t.Fatalf("Remove with the branch's unpushed commit = %v", err)
	}
	done, err := Remove(ctx, f.g, f.root, w, RemoveOptions{Remote: "origin"})
	if err != nil || !done.Folder || done.BranchDeleted {
		t.Fatalf("Remove keeping the branch = %+v, %v", done, err)
	}
	if _, err := os.Stat(w.Path); err == nil {
		t.Error("the folder is still there")
	}
	if got := claudetest.Git(t, f.checkout, "worktree", "list"); strings.Contains(got, w.Path) {
		t.Errorf("git still lists the worktree:\n%s", got)
	}
	if got := claudetest.Git(t, f.checkout, "branch", "--list", w.Branch); got == "" {
		t.Error("the branch with the run's commit went")
	}

	clean := f.make(t, "20261204-160001-bbbbbb", "clean")
	done, err = Remove(ctx, f.g, f.root, clean, RemoveOptions{Remote: "origin", DeleteBranch: true})
	if err != nil || !done.Folder || !done.BranchDeleted {
		t.Fatalf("Remove of a clean worktree = %+v, %v", done, err)
	}
	if got := claudetest.Git(t, f.checkout, "branch", "--list", clean.Branch); got != "" {
		t.Errorf("the clean worktree's branch is left: %s", got)
	}

	t.Run("a record naming a folder outside segwi's is refused", func(t *testing.T) {
		victim := t.TempDir()
		os.WriteFile(filepath.Join(victim, "keep"), []byte("x"), 0o644)
		forged := Worktree{Path: victim, MadeBy: filepath.Base(victim), Repository: f.checkout, Branch: "segwi/x", GitDir: filepath.Join(victim, ".git")}
		if _, err := Remove(ctx, f.g, f.root, forged, RemoveOptions{Force: true}); !errors.Is(err, ErrNotSegwis) {
			t.Errorf("Remove of %s = %v", victim, err)
		}
		if _, err := os.Stat(filepath.Join(victim, "keep")); err != nil {
			t.Errorf("the folder was touched: %v", err)
		}
	})
	t.Run("a folder removed by hand is forgotten", func(t *testing.T) {
		gone := f.make(t, "20261204-160002-cccccc", "gone")
		os.RemoveAll(gone.Path)
		if ok, err := Forget(gone); !ok || err != nil {
			t.Errorf("Forget = %v, %v", ok, err)
		}
		if _, err := os.Stat(gone.GitDir); err == nil {
			t.Error("its git folder is left")
		}
	})
}
