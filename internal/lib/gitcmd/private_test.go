package gitcmd

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// A base folder for private folders must be one no program but root's can swap: the
// person's own folder as its parent (a TMPDIR in the home folder) is passed over.
func TestAPrivateFolderBaseMustNotBeSwappable(t *testing.T) {
	root := ownersRoot(t)
	const person = 4242
	mk := func(path string, uid int, mode os.FileMode) string { return owned(t, path, uid, mode, true) }
	tests := []struct {
		name    string
		base    string
		problem string // "" when the base is fine
	}{
		{"a runtime folder of the person's in root's folder", mk(filepath.Join(root, "run", "user", "4242"), person, 0o700), ""},
		{"a TMPDIR in the person's home folder", mk(filepath.Join(mk(filepath.Join(root, "home", "p"), person, 0o755), "tmp"), person, 0o700), "which is yours"},
		{"a folder other users may write", mk(filepath.Join(root, "open"), 0, 0o777), "written by other users"},
		{"a shared sticky folder, as /tmp", mk(filepath.Join(root, "tmp"), 0, 0o1777), ""},
		{"the person's folder in a shared sticky folder", mk(filepath.Join(root, "tmp", "mine"), person, 0o700), "shared folder"},
		{"another user's folder", mk(filepath.Join(root, "other"), 4343, 0o700), "owned by another user"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := baseProblem(tt.base, person)
			if tt.problem == "" && got != "" || !strings.Contains(got, tt.problem) {
				t.Errorf("baseProblem(%s) = %q, want %q", tt.base, got, tt.problem)
			}
		})
	}
}

// ownersRoot skips the test unless it runs as root, which making files of other owners
// needs, and returns a folder of root's, 0755, to make them in: the chain above it reads
// as a system's.
func ownersRoot(t *testing.T) string {
	t.Helper()
	if os.Geteuid() != 0 {
		t.Skip("making files and folders of other owners needs root")
	}
	root := t.TempDir() // root's, 0700
	os.Chmod(root, 0o755)
	return root
}

// owned makes the folder path (and those missing above it), or the executable file path
// when folder is false, and gives it the owner uid and mode (the sticky bit kept).
func owned(t *testing.T, path string, uid int, mode os.FileMode, folder bool) string {
	t.Helper()
	var err error
	if folder {
		err = os.MkdirAll(path, 0o755)
	} else {
		err = os.WriteFile(path, []byte("#!/bin/sh\n"), 0o755)
	}
	if err == nil {
		err = os.Chown(path, uid, uid)
	}
	if err == nil {
		err = syscall.Chmod(path, uint32(mode))
	}
	if err != nil {
		t.Fatal(err)
	}
	return path
}

func TestTheSealSeesAnyChange(t *testing.T) {
	tests := []struct {
		name   string
		change func(t *testing.T, at func(string) string)
	}{
		{"a file added", func(t *testing.T, at func(string) string) { os.WriteFile(at("config"), []byte("[x]\n"), 0o600) }},
		{"a file added in a subfolder", func(t *testing.T, at func(string) string) {
			os.MkdirAll(at("objects/info"), 0o700)
			os.WriteFile(at("objects/info/alternates"), []byte("/x\n"), 0o600)
		}},
		{"a file rewritten in place", func(t *testing.T, at func(string) string) {
			f, _ := os.OpenFile(at("HEAD"), os.O_WRONLY, 0)
			f.WriteAt([]byte("ref: refs/heads/evil\n"), 0)
			f.Close()
		}},
		{"a file removed", func(t *testing.T, at func(string) string) { os.Remove(at("HEAD")) }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir, g := newCheckout(t)
			r, err := NewRepo(context.Background(), open(t, g, dir), RepoOptions{Seal: true})
			if err != nil {
				t.Fatal(err)
			}
			defer r.Close()
			tt.change(t, r.dir.at)
			if err := r.Changed(); err == nil {
				t.Error("Changed = nil after the change")
			}
		})
	}
}

// A branch moves only from where it was read, with its reflog as git writes it; a ref that
// is a FIFO is refused at once.
func TestUpdateRefMovesABranchLikeGit(t *testing.T) {
	dir, g := newCheckout(t)
	first := hostGit(t, dir, "rev-parse", "HEAD")
	hostGit(t, dir, "commit", "-q", "--allow-empty", "-m", "second")
	second := hostGit(t, dir, "rev-parse", "HEAD")
	hostGit(t, dir, "update-ref", "refs/heads/main", first)
	c := open(t, g, dir)
	who := Ident{Name: "Segwi Person", Email: "p@example.invalid"}

	if err := c.UpdateRef(context.Background(), "refs/heads/main", second, &first, "segwi: test", who); err != nil {
		t.Fatalf("UpdateRef: %v", err)
	}
	if got := hostGit(t, dir, "rev-parse", "main"); got != second {
		t.Errorf("main = %s, want %s", got, second)
	}
	if got := hostGit(t, dir, "reflog", "-1", "--format=%gs|%gn", "main"); got != "segwi: test|Segwi Person" {
		t.Errorf("main's reflog: %q", got)
	}
	if got := hostGit(t, dir, "reflog", "-1", "--format=%gs", "HEAD"); got != "segwi: test" {
		t.Errorf("HEAD's reflog: %q, want the branch's move, as git logs it", got)
	}
	err := c.UpdateRef(context.Background(), "refs/heads/main", first, &first, "segwi: stale", who)
	if !errors.Is(err, ErrRefMoved) {
		t.Errorf("UpdateRef from a stale value = %v, want ErrRefMoved", err)
	}
	if got := hostGit(t, dir, "rev-parse", "main"); got != second {
		t.Errorf("main = %s after a refused move, want %s", got, second)
	}
	none := ""
	if err := c.UpdateRef(context.Background(), "refs/remotes/origin/x", second, &none, "segwi push", Ident{}); err != nil {
		t.Errorf("UpdateRef of a new ref: %v", err)
	}

	fifo := filepath.Join(dir, ".git", "refs", "heads", "fifo")
	if err := syscall.Mkfifo(fifo, 0o600); err == nil {
		if err := c.UpdateRef(context.Background(), "refs/heads/fifo", second, nil, "x", who); !errors.Is(err, ErrNotRegular) {
			t.Errorf("UpdateRef of a FIFO = %v, want ErrNotRegular", err)
		}
	}
}

func TestUpdateIndexTakesTheIndexLock(t *testing.T) {
	dir, g := newCheckout(t)
	c := open(t, g, dir)
	r, err := NewRepo(context.Background(), c, RepoOptions{WorkTree: true})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	os.WriteFile(filepath.Join(dir, "b.txt"), []byte("b\n"), 0o644)
	if err := r.UpdateIndex(context.Background(), func(g Git) error {
		return g.Run(context.Background(), nil, nil, "add", "b.txt")
	}); err != nil {
		t.Fatalf("UpdateIndex: %v", err)
	}
	if got := hostGit(t, dir, "status", "--porcelain"); got != "A  b.txt" {
		t.Errorf("status after the update: %q", got)
	}
	lock := filepath.Join(dir, ".git", "index.lock")
	os.WriteFile(lock, nil, 0o644)
	err = r.UpdateIndex(context.Background(), func(Git) error { t.Error("update ran under another's lock"); return nil })
	if err == nil || !strings.Contains(err.Error(), "another git is working") {
		t.Errorf("UpdateIndex under a held lock = %v", err)
	}
	if _, err := os.Stat(lock); err != nil {
		t.Error("UpdateIndex removed another's lock")
	}
}
