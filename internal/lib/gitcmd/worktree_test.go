package gitcmd

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// addWorktree makes a worktree of dir named name on branch, at HEAD, in a new folder.
func addWorktree(t *testing.T, g Git, dir, name, branch string) (*Checkout, *Checkout) {
	t.Helper()
	c := open(t, g, dir)
	wt := filepath.Join(t.TempDir(), name)
	w, err := c.AddWorktree(context.Background(), WorktreeOptions{Dir: wt, Name: name, Branch: branch, Commit: c.Head})
	if err != nil {
		t.Fatalf("AddWorktree: %v", err)
	}
	return c, w
}

// A worktree segwi makes is one git knows as its own: listed, on its branch, clean, and
// pruned by git only once its folder is gone.
func TestAWorktreeSegwiMakesIsGitsOwn(t *testing.T) {
	dir, g := newCheckout(t)
	os.WriteFile(filepath.Join(dir, "b.txt"), []byte("b\r\nkept as written\n"), 0o644)
	hostGit(t, dir, "add", "b.txt")
	hostGit(t, dir, "commit", "-qm", "second")
	c, w := addWorktree(t, g, dir, "run-1", "segwi/task-ab12cd")

	list := hostGit(t, dir, "worktree", "list", "--porcelain")
	if !strings.Contains(list, "worktree "+w.Top+"\nHEAD "+c.Head+"\nbranch refs/heads/segwi/task-ab12cd") {
		t.Errorf("git worktree list does not show the worktree on its branch:\n%s", list)
	}
	if st := hostGit(t, w.Top, "status", "--porcelain"); st != "" {
		t.Errorf("git status in the new worktree:\n%s", st)
	}
	if b, _ := os.ReadFile(filepath.Join(w.Top, "b.txt")); string(b) != "b\r\nkept as written\n" {
		t.Errorf("b.txt in the worktree = %q", b)
	}
	if err := CheckWorktree(w.Top, c.Admin("run-1"), c.Common); err != nil {
		t.Errorf("CheckWorktree of a fresh worktree: %v", err)
	}
	hostGit(t, dir, "worktree", "prune")
	if _, err := os.Stat(c.Admin("run-1")); err != nil {
		t.Errorf("git worktree prune took a worktree whose folder is there: %v", err)
	}

	t.Run("a branch that exists is refused, and nothing is left", func(t *testing.T) {
		wt := filepath.Join(t.TempDir(), "run-2")
		_, err := c.AddWorktree(context.Background(), WorktreeOptions{Dir: wt, Name: "run-2", Branch: "segwi/task-ab12cd", Commit: c.Head})
		if err == nil || !strings.Contains(err.Error(), "exists already") {
			t.Errorf("AddWorktree on an existing branch = %v", err)
		}
		if _, err := os.Stat(wt); !errors.Is(err, fs.ErrNotExist) {
			t.Errorf("the folder was made: %v", err)
		}
	})
	t.Run("names git refuses are refused", func(t *testing.T) {
		for _, b := range []string{"main..x", "a b", "x.lock", "-x/..", "a~1", ""} {
			wt := filepath.Join(t.TempDir(), "run-3")
			if _, err := c.AddWorktree(context.Background(), WorktreeOptions{Dir: wt, Name: "run-3", Branch: b, Commit: c.Head}); err == nil {
				t.Errorf("branch %q was taken", b)
			}
		}
	})
	t.Run("a failure leaves no folder, git folder or branch", func(t *testing.T) {
		wt := filepath.Join(t.TempDir(), "run-4")
		missing := strings.Repeat("0", 39) + "1"
		if _, err := c.AddWorktree(context.Background(), WorktreeOptions{Dir: wt, Name: "run-4", Branch: "segwi/broken", Commit: missing}); err == nil {
			t.Fatal("a worktree at a commit that does not exist was made")
		}
		if _, err := os.Stat(wt); !errors.Is(err, fs.ErrNotExist) {
			t.Errorf("the folder is left: %v", err)
		}
		if _, err := os.Stat(c.Admin("run-4")); !errors.Is(err, fs.ErrNotExist) {
			t.Errorf("the git folder is left: %v", err)
		}
		if ref, _ := c.Resolve("refs/heads/segwi/broken"); ref != "" {
			t.Errorf("the branch is left at %s", ref)
		}
	})
	t.Run("forgotten once its folder is removed", func(t *testing.T) {
		if err := RemoveTree(w.Top); err != nil {
			t.Fatal(err)
		}
		if err := CheckWorktree(w.Top, c.Admin("run-1"), c.Common); !errors.Is(err, fs.ErrNotExist) {
			t.Errorf("CheckWorktree of a removed worktree = %v, want not exist", err)
		}
		if err := ForgetWorktree(c.Admin("run-1"), w.Top); err != nil {
			t.Fatal(err)
		}
		if list := hostGit(t, dir, "worktree", "list", "--porcelain"); strings.Contains(list, w.Top) {
			t.Errorf("git still lists the worktree:\n%s", list)
		}
	})
}

// What a run's agent can rewrite in its worktree, each caught by CheckWorktree before segwi
// reads, commits, pushes or removes from it.
func TestCheckWorktreeSeesWhatTheAgentRewrote(t *testing.T) {
	dir, g := newCheckout(t)
	elsewhere, _ := newCheckout(t)
	tests := []struct {
		name   string
		tamper func(t *testing.T, c, w *Checkout, admin string)
		want   string
	}{
		{"the .git file names another repository's git folder", func(t *testing.T, c, w *Checkout, admin string) {
			os.WriteFile(filepath.Join(w.Top, ".git"), []byte("gitdir: "+filepath.Join(elsewhere, ".git")+"\n"), 0o644)
		}, "names the git folder"},
		{"the .git file is a link", func(t *testing.T, c, w *Checkout, admin string) {
			os.Remove(filepath.Join(w.Top, ".git"))
			os.Symlink(filepath.Join(elsewhere, ".git"), filepath.Join(w.Top, ".git"))
		}, "a symbolic link"},
		{"the git folder names another worktree", func(t *testing.T, c, w *Checkout, admin string) {
			os.WriteFile(filepath.Join(admin, "gitdir"), []byte(filepath.Join(elsewhere, ".git")+"\n"), 0o644)
		}, "names the worktree"},
		{"the git folder names another repository", func(t *testing.T, c, w *Checkout, admin string) {
			os.WriteFile(filepath.Join(admin, "commondir"), []byte(filepath.Join(elsewhere, ".git")+"\n"), 0o644)
		}, "names the repository"},
		{"the git folder is a link to another", func(t *testing.T, c, w *Checkout, admin string) {
			os.RemoveAll(admin)
			os.Symlink(filepath.Join(elsewhere, ".git"), admin)
		}, "gone or not a folder"},
	}
	for i, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			name := "tamper-" + string(rune('a'+i))
			c, w := addWorktree(t, g, dir, name, "segwi/"+name)
			tt.tamper(t, c, w, c.Admin(name))
			err := CheckWorktree(w.Top, c.Admin(name), c.Common)
			if !errors.Is(err, ErrWorktreeMoved) || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("CheckWorktree = %v, want ErrWorktreeMoved saying %q", err, tt.want)
			}
			if err := ForgetWorktree(filepath.Join(elsewhere, ".git"), w.Top); err == nil {
				t.Error("ForgetWorktree took another repository's git folder")
			}
		})
	}
}

// A run's agent can plant a post-checkout hook and a smudge filter in the checkout's
// configuration: git worktree add runs both as the person, the moment segwi makes the next
// run's worktree. segwi's AddWorktree runs neither.
func TestMakingAWorktreeRunsNothingTheAgentPlanted(t *testing.T) {
	dir, g := newCheckout(t)
	ran := filepath.Join(t.TempDir(), "ran")
	program := filepath.Join(t.TempDir(), "agent-program")
	os.WriteFile(program, []byte("#!/bin/sh\necho \"$0 $*\" >> '"+ran+"'\ncat\n"), 0o755)
	os.WriteFile(filepath.Join(dir, ".gitattributes"), []byte("*.txt filter=agent\n"), 0o644)
	hostGit(t, dir, "add", ".gitattributes")
	hostGit(t, dir, "commit", "-qm", "attributes")
	hostGit(t, dir, "config", "filter.agent.smudge", program)
	hostGit(t, dir, "config", "core.hooksPath", filepath.Dir(program))
	os.Symlink(program, filepath.Join(filepath.Dir(program), "post-checkout"))

	// What git worktree add does with them: the attack.
	hostGit(t, dir, "worktree", "add", "-q", "-b", "by-hand", filepath.Join(t.TempDir(), "by-hand"))
	if _, err := os.Stat(ran); err != nil {
		t.Fatalf("git worktree add ran neither the hook nor the filter (%v): the test plants nothing", err)
	}
	os.Remove(ran)

	_, w := addWorktree(t, g, dir, "run-1", "segwi/planted-ab12cd")
	if b, err := os.ReadFile(ran); err == nil {
		t.Errorf("making the worktree ran the agent's program:\n%s", b)
	}
	if b, _ := os.ReadFile(filepath.Join(w.Top, "a.txt")); string(b) != "a\n" {
		t.Errorf("a.txt in the worktree = %q", b)
	}
}
