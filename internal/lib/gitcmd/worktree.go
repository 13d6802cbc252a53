package gitcmd

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// A linked worktree is made and forgotten by hand here, as git worktree add and git
// worktree remove would leave the repository's git folder, without running git in the
// checkout: git worktree add reads the checkout's configuration, runs its post-checkout
// hook and the smudge filters its configuration names, and git worktree remove runs git
// status in the worktree (its fsmonitor, its configuration). What segwi writes is git's
// own layout (gitrepository-layout(5), "worktrees/<id>"): the worktree's .git file naming
// its git folder COMMON/worktrees/NAME, which holds HEAD, commondir, gitdir (the .git
// file's path, which git worktree prune checks) and the index. The branch is made with
// UpdateRef, and the files are checked out by git read-tree in a private repository that
// borrows the checkout's objects (NewRepo): no configuration of the checkout's, no hook,
// no filter program.

// WorktreeOptions say what linked worktree AddWorktree makes.
type WorktreeOptions struct {
	// Dir is the new worktree's folder, absolute: it must not exist, its parent must.
	Dir string
	// Name is its git folder's name under the repository's worktrees folder: letters,
	// digits, '.', '_' and '-'.
	Name string
	// Branch is the new branch it works on (a short name, "segwi/fix-login-ab12cd"): it
	// must not exist yet.
	Branch string
	// Commit is the commit the branch starts at.
	Commit string
	// Who is recorded in the branch's reflog; empty fields let git pick.
	Who Ident
}

// Admin returns the git folder of the linked worktree named name: COMMON/worktrees/NAME.
func (c *Checkout) Admin(name string) string { return filepath.Join(c.Common, "worktrees", name) }

// AddWorktree makes a linked worktree of c's repository as git worktree add -b would: a
// new branch at o.Commit, a new folder o.Dir checked out at it, and its git folder (Admin),
// without running git in the checkout (see above). It returns the new worktree, read as
// Open reads a checkout. On failure it leaves nothing behind. It returns when git has
// checked the files out or ctx is done.
func (c *Checkout) AddWorktree(ctx context.Context, o WorktreeOptions) (*Checkout, error) {
	ref := "refs/heads/" + o.Branch
	switch {
	case !validRefName(ref):
		return nil, fmt.Errorf("making a worktree of %s: %q is not a branch name git accepts", c.Top, o.Branch)
	case !validWorktreeName(o.Name):
		return nil, fmt.Errorf("making a worktree of %s: %q is not a worktree name segwi gives", c.Top, o.Name)
	case !c.isHash(o.Commit):
		return nil, fmt.Errorf("making a worktree of %s: %q is not a commit id", c.Top, o.Commit)
	case !filepath.IsAbs(o.Dir) || strings.ContainsAny(o.Dir, "\n\r\x00"):
		return nil, fmt.Errorf("making a worktree of %s: %q is not a folder git can record", c.Top, o.Dir)
	}
	if existing, err := c.Resolve(ref); err != nil {
		return nil, fmt.Errorf("making a worktree of %s: %w", c.Top, err)
	} else if existing != "" {
		return nil, fmt.Errorf("making a worktree of %s: the branch %s exists already", c.Top, o.Branch)
	}
	// The worktrees folder is the repository's, which a program of the person's can write:
	// segwi writes into it only when it is a plain folder, never through a link.
	worktrees := filepath.Join(c.Common, "worktrees")
	if st, err := os.Lstat(worktrees); err == nil && !st.IsDir() {
		return nil, fmt.Errorf("making a worktree of %s: %s is not a folder (%s)", c.Top, worktrees, st.Mode().Type())
	} else if errors.Is(err, fs.ErrNotExist) {
		if err := os.Mkdir(worktrees, 0o777); err != nil && !errors.Is(err, fs.ErrExist) {
			return nil, fmt.Errorf("making a worktree of %s: %w", c.Top, err)
		}
	} else if err != nil {
		return nil, fmt.Errorf("making a worktree of %s: %w", c.Top, err)
	}
	admin := c.Admin(o.Name)
	if err := os.Mkdir(admin, 0o777); err != nil {
		return nil, fmt.Errorf("making a worktree of %s: %w", c.Top, err)
	}
	made := &madeWorktree{c: c, admin: admin}
	w, err := made.fill(ctx, o)
	if err != nil {
		made.undo(o)
		return nil, fmt.Errorf("making a worktree of %s in %s: %w", c.Top, o.Dir, err)
	}
	return w, nil
}

// madeWorktree is what AddWorktree has made so far, to undo on failure.
type madeWorktree struct {
	c      *Checkout
	admin  string
	dir    bool // the worktree's folder
	branch bool // the branch
}

func (m *madeWorktree) fill(ctx context.Context, o WorktreeOptions) (*Checkout, error) {
	// "locked" keeps a git worktree prune that runs meanwhile from taking the git folder,
	// whose worktree does not exist yet; git worktree add does the same.
	if err := writeNew(filepath.Join(m.admin, "locked"), "initializing\n"); err != nil {
		return nil, err
	}
	if err := os.Mkdir(o.Dir, 0o777); err != nil {
		return nil, err
	}
	m.dir = true
	dotGit := filepath.Join(o.Dir, ".git")
	for name, content := range map[string]string{
		dotGit:                              "gitdir: " + m.admin + "\n",
		filepath.Join(m.admin, "gitdir"):    dotGit + "\n",
		filepath.Join(m.admin, "commondir"): "../..\n",
		filepath.Join(m.admin, "HEAD"):      o.Commit + "\n",
	} {
		if err := writeNew(name, content); err != nil {
			return nil, err
		}
	}
	none := ""
	if err := m.c.UpdateRef(ctx, "refs/heads/"+o.Branch, o.Commit, &none, "branch: Created from "+o.Commit, o.Who); err != nil {
		return nil, err
	}
	m.branch = true
	if err := replaceFile(filepath.Join(m.admin, "HEAD"), "ref: refs/heads/"+o.Branch+"\n"); err != nil {
		return nil, err
	}
	if err := m.checkOut(ctx, o); err != nil {
		return nil, err
	}
	if err := os.Remove(filepath.Join(m.admin, "locked")); err != nil {
		return nil, err
	}
	w, err := m.c.g.Open(ctx, o.Dir)
	if err != nil {
		return nil, err
	}
	if w.GitDir != m.admin || w.Common != m.c.Common || w.Branch != o.Branch || w.Head != o.Commit {
		return nil, fmt.Errorf("the new worktree reads as %s on %q at %s, not as made", w.GitDir, w.Branch, Short(w.Head))
	}
	return w, nil
}

// checkOut writes the commit's files into the new worktree and its index, with git
// read-tree in a private repository borrowing the checkout's objects: the only
// configuration it gets is the sealed one and the checkout's plain settings (line
// endings, file modes), so no filter program, hook or fsmonitor runs.
func (m *madeWorktree) checkOut(ctx context.Context, o WorktreeOptions) error {
	repo, err := NewRepo(ctx, m.c, RepoOptions{Prefix: "segwi-worktree-"})
	if err != nil {
		return err
	}
	defer repo.Close()
	g := repo.Git.With("GIT_WORK_TREE="+o.Dir, "GIT_INDEX_FILE="+filepath.Join(m.admin, "index")).Config(m.c.Settings()...)
	// git keeps GIT_DIR as it is given only when it starts in the work tree's top.
	g.Dir = o.Dir
	if _, err := g.Output(ctx, "read-tree", "--reset", "-u", o.Commit); err != nil {
		return fmt.Errorf("checking out %s: %w", Short(o.Commit), err)
	}
	return nil
}

// undo removes what fill made: the folder, the git folder, the branch (only while it is
// still at the commit it was made at).
func (m *madeWorktree) undo(o WorktreeOptions) {
	if m.dir {
		RemoveTree(o.Dir)
	}
	os.RemoveAll(m.admin)
	if m.branch {
		old := o.Commit
		m.c.UpdateRef(context.Background(), "refs/heads/"+o.Branch, "", &old, "branch: deleted", o.Who) //nolint:errcheck // best effort
	}
}

// validWorktreeName reports whether name is a worktree name segwi gives: a plain folder
// name, no dot first.
func validWorktreeName(name string) bool {
	if name == "" || name[0] == '.' || len(name) > 128 {
		return false
	}
	for _, r := range name {
		if !('a' <= r && r <= 'z' || 'A' <= r && r <= 'Z' || '0' <= r && r <= '9' || r == '.' || r == '_' || r == '-') {
			return false
		}
	}
	return true
}

// ErrWorktreeMoved is wrapped by CheckWorktree's error when a worktree's .git file, or its
// git folder, no longer says what segwi made it say.
var ErrWorktreeMoved = errors.New("the worktree's git files do not say what segwi made them say")

// CheckWorktree checks, by reading them as data, that the folder dir is still the linked
// worktree whose git folder is admin, in the repository whose common git folder is common:
// dir/.git is a regular file (no link) naming admin, admin is a folder (no link) whose
// gitdir names dir/.git and whose commondir leads to common. A run's agent can rewrite
// each of them; segwi reads, commits, pushes and removes a worktree only while they hold.
// Its error wraps ErrWorktreeMoved, saying what differs, or fs.ErrNotExist when dir is
// gone.
func CheckWorktree(dir, admin, common string) error {
	dotGit := filepath.Join(dir, ".git")
	st, err := os.Lstat(dir)
	if err != nil {
		return fmt.Errorf("the worktree %s: %w", dir, err)
	}
	if !st.IsDir() {
		return fmt.Errorf("the worktree %s is %s, not a folder: %w", dir, st.Mode().Type(), ErrWorktreeMoved)
	}
	if st, err := os.Lstat(dotGit); err != nil {
		return fmt.Errorf("the worktree %s has no .git file (%v): %w", dir, err, ErrWorktreeMoved)
	} else if !st.Mode().IsRegular() {
		return fmt.Errorf("the worktree's %s is %s, not a file: %w", dotGit, kindOf(st.Mode()), ErrWorktreeMoved)
	}
	b, err := ReadRegular(dotGit, maxSmallFile)
	if err != nil {
		return fmt.Errorf("reading %s: %w", dotGit, err)
	}
	if got := strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(string(b)), "gitdir:")); got != admin {
		return fmt.Errorf("the worktree's %s names the git folder %q, not %s: %w", dotGit, got, admin, ErrWorktreeMoved)
	}
	if st, err := os.Lstat(admin); err != nil || !st.IsDir() {
		return fmt.Errorf("the worktree's git folder %s is gone or not a folder: %w", admin, ErrWorktreeMoved)
	}
	b, err = ReadRegular(filepath.Join(admin, "gitdir"), maxSmallFile)
	if err != nil {
		return fmt.Errorf("reading the worktree's git folder %s: %v: %w", admin, err, ErrWorktreeMoved)
	}
	if got := strings.TrimSpace(string(b)); got != dotGit {
		return fmt.Errorf("the git folder %s names the worktree %q, not %s: %w", admin, got, dotGit, ErrWorktreeMoved)
	}
	b, err = ReadRegular(filepath.Join(admin, "commondir"), maxSmallFile)
	if err != nil {
		return fmt.Errorf("reading the worktree's git folder %s: %v: %w", admin, err, ErrWorktreeMoved)
	}
	got := strings.TrimSpace(string(b))
	if !filepath.IsAbs(got) {
		got = filepath.Join(admin, got)
	}
	if filepath.Clean(got) != filepath.Clean(common) {
		return fmt.Errorf("the git folder %s names the repository %s, not %s: %w", admin, got, common, ErrWorktreeMoved)
	}
	return nil
}

// ForgetWorktree removes the git folder admin of a linked worktree whose folder was dir,
// as git worktree remove and prune do once the folder is gone: only when admin is a folder
// (no link) under a worktrees folder whose gitdir file names dir/.git. It returns nil when
// admin is gone already.
func ForgetWorktree(admin, dir string) error {
	st, err := os.Lstat(admin)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return nil
	case err != nil:
		return fmt.Errorf("forgetting the worktree %s: %w", dir, err)
	case !st.IsDir() || filepath.Base(filepath.Dir(admin)) != "worktrees":
		return fmt.Errorf("forgetting the worktree %s: %s is not a worktree's git folder", dir, admin)
	}
	b, err := ReadRegular(filepath.Join(admin, "gitdir"), maxSmallFile)
	if err != nil {
		return fmt.Errorf("forgetting the worktree %s: reading %s: %w", dir, admin, err)
	}
	if got := strings.TrimSpace(string(b)); got != filepath.Join(dir, ".git") {
		return fmt.Errorf("forgetting the worktree %s: its git folder %s names %q instead, so segwi leaves it", dir, admin, got)
	}
	if err := os.RemoveAll(admin); err != nil {
		return fmt.Errorf("forgetting the worktree %s: %w", dir, err)
	}
	return nil
}

// RemoveTree removes the folder dir and everything in it without following a link: a
// folder the person cannot write (a read-only Go module cache) is made writable first.
func RemoveTree(dir string) error {
	err := os.RemoveAll(dir)
	if err == nil || !errors.Is(err, fs.ErrPermission) {
		return err
	}
	filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error { //nolint:errcheck // the second RemoveAll says what is left
		if err == nil && d.IsDir() && d.Type()&fs.ModeSymlink == 0 {
			os.Chmod(p, 0o700)
		}
		return nil
	})
	return os.RemoveAll(dir)
}

// writeNew writes content to the new file path, which must not exist.
func writeNew(path, content string) error {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o666)
	if err != nil {
		return err
	}
	_, err = f.WriteString(content)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}

// replaceFile replaces path with content, through a new file renamed over it.
func replaceFile(path, content string) error {
	tmp := path + ".segwi-new"
	os.Remove(tmp)
	if err := writeNew(tmp, content); err != nil {
		return err
	}
	return os.Rename(tmp, path)
}

// kindOf names what a file that is not regular is.
func kindOf(m fs.FileMode) string {
	if m&fs.ModeSymlink != 0 {
		return "a symbolic link"
	}
	return kind(m)
}
