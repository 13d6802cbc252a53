// Package worktree gives a run a git worktree of its own, when the person asks for one:
// made from the checkout's current commit on a new branch, in a folder segwi owns
// ($XDG_DATA_HOME/segwi/worktrees/<repository>/<run id>), set up (files copied from the
// checkout, a command run there), checked before segwi reads, commits, pushes or removes
// from it, and removed on request with what would be lost said first.
//
// # What segwi's git does here
//
// As everywhere, through internal/gitcmd only, and never with the checkout or the
// worktree as git's repository (see gitcmd's package doc): the worktree is made by hand in
// git's own layout (gitcmd.Checkout.AddWorktree), its files checked out by git read-tree in
// a private repository, so no post-checkout hook, smudge filter, fsmonitor or other
// configuration of the agent's runs. A run's agent can rewrite the worktree's .git file,
// its git folder and the repository's config: Check reads them as data and refuses a
// worktree whose .git file no longer names the git folder segwi made, or whose git folder
// no longer names it back; Remove deletes only a folder under Root, never through a link,
// and forgets only a git folder that names that folder.
package worktree

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"unicode"

	"github.com/segwi/segwi/internal/lib/gitcmd"
)

// Plan is what Make needs to make a run's worktree.
type Plan struct {
	Root       string // where segwi keeps worktrees (Root)
	Repository string // the checkout's top folder, absolute, links resolved
	Name       string // the repository's name as the person knows it (its entry in the settings)
	Remote     string // its remote, whose default branch the new branch must not be
	RunID      string
	Task       string // the run's task, which names the branch
	Kind       string // the run's kind, naming the branch when the task is empty
}

// Root returns the folder segwi keeps worktrees in, from the environment env (nil: this
// process's): $XDG_DATA_HOME/segwi/worktrees, XDG_DATA_HOME defaulting to ~/.local/share.
func Root(env []string) (string, error) {
	get := func(name string) string {
		if env == nil {
			return os.Getenv(name)
		}
		for i := len(env) - 1; i >= 0; i-- {
			if k, v, ok := strings.Cut(env[i], "="); ok && k == name {
				return v
			}
		}
		return ""
	}
	if d := get("XDG_DATA_HOME"); filepath.IsAbs(d) {
		return filepath.Join(d, "segwi", "worktrees"), nil
	}
	home := get("HOME")
	if !filepath.IsAbs(home) {
		return "", errors.New("finding where to keep worktrees: neither XDG_DATA_HOME nor HOME is set; set one")
	}
	return filepath.Join(home, ".local", "share", "segwi", "worktrees"), nil
}

// PathFor returns the folder of the worktree the run runID makes for the repository name,
// under root.
func PathFor(root, name, runID string) string {
	return filepath.Join(root, folderName(name), runID)
}

// folderName is a repository's name as a folder: what is not a letter, a digit, '.', '_'
// or '-' becomes '-', and no dot first.
func folderName(name string) string {
	s := strings.Map(func(r rune) rune {
		if r < 0x80 && (unicode.IsLetter(r) || unicode.IsDigit(r)) || r == '.' || r == '_' || r == '-' {
			return r
		}
		return '-'
	}, name)
	s = strings.TrimLeft(s, ".")
	if s == "" {
		return "repository"
	}
	return s[:min(len(s), 64)]
}

// BranchName is the branch a run's worktree is made on: segwi/<slug of the task>-<the
// run id's random end>, the slug at most 30 characters of lower-case words
// ("segwi/fix-the-login-form-e5dc0e"), the kind when the task has no word.
func BranchName(task, kind, runID string) string {
	var words []string
	n := 0
	for _, w := range strings.FieldsFunc(strings.ToLower(task), func(r rune) bool {
		return !('a' <= r && r <= 'z' || '0' <= r && r <= '9')
	}) {
		if n+len(w) > 30 {
			if n == 0 {
				words, n = append(words, w[:30]), 30
			}
			break
		}
		words = append(words, w)
		n += len(w) + 1
	}
	slug := strings.Join(words, "-")
	if slug == "" {
		slug = kind
	}
	short := runID[strings.LastIndex(runID, "-")+1:]
	return "segwi/" + slug + "-" + short
}

// Make makes the run's worktree as p says: a new branch (BranchName) at the checkout's HEAD
// commit, checked out in PathFor(p.Root, p.Name, p.RunID). It refuses a checkout whose
// branch has no commit yet, and a branch name that exists, that git refuses or that is
// the remote's default branch. It returns when the files are checked out or ctx is done.
func Make(ctx context.Context, g gitcmd.Git, p Plan) (Worktree, error) {
	c, err := g.Open(ctx, p.Repository)
	if err != nil {
		return Worktree{}, fmt.Errorf("making a worktree of %s: %w", p.Repository, err)
	}
	if c.Top != p.Repository {
		return Worktree{}, fmt.Errorf("making a worktree of %s: it is inside the checkout %s, not its top folder", p.Repository, c.Top)
	}
	if c.Head == "" {
		return Worktree{}, fmt.Errorf("making a worktree of %s: its branch %s has no commit yet; commit once, or run in the checkout", c.Top, c.Branch)
	}
	branch := BranchName(p.Task, p.Kind, p.RunID)
	if p.Remote != "" {
		if def, _ := c.Symref("refs/remotes/" + p.Remote + "/HEAD"); def == "refs/remotes/"+p.Remote+"/"+branch {
			return Worktree{}, fmt.Errorf("making a worktree of %s: %s is the default branch of %s, which a run never works on", c.Top, branch, p.Remote)
		}
	}
	dir := PathFor(p.Root, p.Name, p.RunID)
	if err := os.MkdirAll(filepath.Dir(dir), 0o700); err != nil {
		return Worktree{}, fmt.Errorf("making a worktree of %s: %w", c.Top, err)
	}
	who, _, _ := c.Identity() // for the reflog only: git picks one when it is empty
	w, err := c.AddWorktree(ctx, gitcmd.WorktreeOptions{Dir: dir, Name: p.RunID, Branch: branch, Commit: c.Head, Who: who})
	if err != nil {
		return Worktree{}, err
	}
	return Worktree{Path: w.Top, Repository: c.Top, Branch: branch, Commit: c.Head, GitDir: w.GitDir, Common: c.Common, MadeBy: p.RunID}, nil
}

// ErrNotSegwis is wrapped by the errors about a worktree record that does not name a
// worktree segwi made: a folder outside Root, or reached through a link.
var ErrNotSegwis = errors.New("not a worktree segwi made")

// Owned checks that the record w names a worktree folder segwi made under root: exactly
// root/<repository>/<the run that made it>, no link on the way. A run's agent can write
// its run's record; segwi deletes nothing a record names unless this holds.
func Owned(root string, w Worktree) error {
	if w.Path == "" || w.MadeBy == "" || filepath.Base(w.Path) != w.MadeBy || filepath.Dir(filepath.Dir(w.Path)) != filepath.Clean(root) {
		return fmt.Errorf("the worktree %q: %w (segwi's are in %s)", w.Path, ErrNotSegwis, root)
	}
	parent := filepath.Dir(w.Path)
	rootReal, errRoot := filepath.EvalSymlinks(root)
	parentReal, errParent := filepath.EvalSymlinks(parent)
	if errRoot == nil && errParent == nil && parentReal != filepath.Join(rootReal, filepath.Base(parent)) {
		return fmt.Errorf("the worktree %q is reached through a link: %w", w.Path, ErrNotSegwis)
	}
	if st, err := os.Lstat(w.Path); err == nil && !st.IsDir() {
		return fmt.Errorf("the worktree %q is %s, not a folder: %w", w.Path, st.Mode().Type(), ErrNotSegwis)
	}
	return nil
}

// Check checks that w's folder is still the worktree segwi made (gitcmd.CheckWorktree): its
// .git file names its git folder, which names it back and belongs to its repository. Its
// error wraps gitcmd.ErrWorktreeMoved, saying what differs, or fs.ErrNotExist when the
// folder is gone.
func Check(w Worktree) error {
	return gitcmd.CheckWorktree(w.Path, w.GitDir, w.Common)
}
