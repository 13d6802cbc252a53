package gitcmd

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The git segwi runs, and the folders git's PATH keeps, are those only root can change:
// a folder of the person's (~/.local/bin), another user's, or one others may write is
// passed over, however early on PATH, and the error, when nothing is left, names each git
// passed over and why.
func TestOnlyAGitOnlyRootCanChangeRuns(t *testing.T) {
	root := ownersRoot(t)
	const person = 4242
	dir := func(path string, uid int, mode os.FileMode) string { return owned(t, path, uid, mode, true) }
	git := func(folder string, uid int, mode os.FileMode) string {
		return owned(t, filepath.Join(folder, "git"), uid, mode, false)
	}
	system := dir(filepath.Join(root, "usr", "bin"), 0, 0o755)
	systemGit := git(system, 0, 0o755)
	home := dir(filepath.Join(root, "home", "p"), person, 0o755)
	local := dir(filepath.Join(home, ".local", "bin"), person, 0o755)
	git(local, person, 0o755)
	linked := dir(filepath.Join(root, "linked"), 0, 0o755)
	os.Symlink(filepath.Join(local, "git"), filepath.Join(linked, "git"))
	open := dir(filepath.Join(root, "open"), 0, 0o777)
	git(open, 0, 0o755)
	writable := dir(filepath.Join(root, "writable"), 0, 0o755)
	git(writable, 0, 0o777)
	store := dir(filepath.Join(root, "store"), 0, 0o1775) // as /nix/store: sticky, a group writes
	storeBin := dir(filepath.Join(store, "abc-git", "bin"), 0, 0o755)
	storeGit := git(storeBin, 0, 0o555)
	systemLink := dir(filepath.Join(root, "profile"), 0, 0o755)
	os.Symlink(storeGit, filepath.Join(systemLink, "git"))

	list := func(dirs ...string) string { return strings.Join(dirs, string(os.PathListSeparator)) }
	tests := []struct {
		name, path, want string
		passed           []string // what the error names when nothing is left
	}{
		{"the person's ~/.local/bin first", list(local, system), systemGit, nil},
		{"a root folder's link into the person's folder", list(linked, system), systemGit, nil},
		{"a folder others may write", list(open, system), systemGit, nil},
		{"a git others may write", list(writable, system), systemGit, nil},
		{"a relative folder", list(".", "bin", system), systemGit, nil},
		{"a git in a sticky store, through a link of root's", list(local, systemLink), storeGit, nil},
		{"only the person's", list(local), "", []string{local + " is user 4242's, not root's"}},
		{"only others'", list(open, writable), "", []string{open + " may be written", filepath.Join(writable, "git") + " may be written"}},
		{"none at all", list(root), "", []string{"git is not installed or not on PATH"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := lookGit(tt.path)
			if tt.want != "" {
				if err != nil || got != tt.want {
					t.Errorf("lookGit(%s) = %q, %v; want %s", tt.path, got, err, tt.want)
				}
				return
			}
			if !errors.Is(err, ErrNoGit) {
				t.Fatalf("lookGit(%s) = %q, %v; want ErrNoGit", tt.path, got, err)
			}
			for _, w := range tt.passed {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("the error does not say %q:\n%v", w, err)
				}
			}
		})
	}

	// git's own PATH keeps root's folders only, in their order: not a sticky folder others
	// may write, where they may add a program of a name not taken yet, but a folder of
	// root's inside it.
	env := []string{"HOME=/h", "PATH=" + list(local, system, ".", open, store, storeBin, systemLink)}
	sealPath(env)
	if want := "PATH=" + list(system, storeBin, systemLink); env[1] != want {
		t.Errorf("git's PATH is %s, want %s", env[1], want)
	}
}

// A system git too old for segwi, found after the person's own newer one was passed over,
// is refused with both named: the person learns why segwi does not run theirs.
func TestAGitTooOldSaysWhatWasPassedOver(t *testing.T) {
	root := ownersRoot(t)
	const person = 4242
	system := owned(t, filepath.Join(root, "usr", "bin"), 0, 0o755, true)
	old := owned(t, filepath.Join(system, "git"), 0, 0o755, false)
	if err := os.WriteFile(old, []byte("#!/bin/sh\necho git version 2.20.1\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	local := owned(t, filepath.Join(root, "home", "p", ".local", "bin"), person, 0o755, true)
	owned(t, filepath.Join(local, "git"), person, 0o755, false)
	t.Setenv("PATH", local+string(os.PathListSeparator)+system)

	_, err := New("", root, nil).Output(context.Background(), "status")
	for _, want := range []string{old + " is git 2.20.1", "where only root can change it", "passed over " + filepath.Join(local, "git")} {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("git status with an old system git = %v, want it to say %q", err, want)
		}
	}
}
