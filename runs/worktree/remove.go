package worktree

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/segwi/segwi/internal/lib/gitcmd"
	"github.com/segwi/segwi/runs/changes"
)

// Inspect says what removing w would lose (see Loss), reading the worktree as segwi reads a
// run's changes and its branch against remote's tracking branch, running nothing the
// worktree's or the person's git configuration names. It checks w first (Check): a
// worktree whose git files were rewritten is not read. It returns when git has answered
// or ctx is done.
func Inspect(ctx context.Context, g gitcmd.Git, w Worktree, remote string) (Loss, error) {
	var l Loss
	err := Check(w)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		l.Gone = true
	case err != nil:
		return Loss{}, err
	default:
		look, err := changes.LookAt(ctx, g, w.Path)
		if err != nil {
			return Loss{}, fmt.Errorf("reading the worktree %s: %w", w.Path, err)
		}
		for _, line := range strings.Split(strings.TrimRight(look.Status, "\n"), "\n") {
			if line != "" {
				l.Changed = append(l.Changed, line)
			}
		}
	}
	c, err := g.Open(ctx, w.Repository)
	if err != nil {
		return Loss{}, fmt.Errorf("reading the repository of the worktree %s: %w", w.Path, err)
	}
	if c.Common != w.Common {
		return Loss{}, fmt.Errorf("the repository %s keeps its git folder at %s now, not at %s where the worktree %s was made: %w", w.Repository, c.Common, w.Common, w.Path, gitcmd.ErrWorktreeMoved)
	}
	if l.BranchHead, err = c.Resolve("refs/heads/" + w.Branch); err != nil || l.BranchHead == "" {
		return l, err
	}
	since := w.Commit
	if remote != "" {
		tracking, err := c.Resolve("refs/remotes/" + remote + "/" + w.Branch)
		if err != nil {
			return Loss{}, err
		}
		if tracking != "" {
			l.Pushed, since = true, tracking
		}
	}
	if since == l.BranchHead {
		return l, nil
	}
	repo, err := gitcmd.NewRepo(ctx, c, gitcmd.RepoOptions{Prefix: "segwi-worktree-"})
	if err != nil {
		return Loss{}, err
	}
	defer repo.Close()
	out, err := repo.Git.Output(ctx, "rev-list", "--count", l.BranchHead, "^"+since, "--")
	if err != nil {
		return Loss{}, fmt.Errorf("counting the commits of %s: %w", w.Branch, err)
	}
	l.Unpushed, _ = strconv.Atoi(out)
	return l, nil
}

// RemoveOptions say how far Remove goes.
type RemoveOptions struct {
	// Remote is the repository's remote, whose tracking branch says what was pushed.
	Remote string
	// DeleteBranch deletes the worktree's branch too, when it was never pushed.
	DeleteBranch bool
	// Force removes what Loss names (uncommitted files; with DeleteBranch, commits only
	// the branch holds); without it, Remove refuses, saying what would be lost.
	Force bool
}

// Removed says what Remove did.
type Removed struct {
	Loss          Loss // what was there
	Folder        bool // the folder was removed (false when it was gone already)
	BranchDeleted bool
	// BranchKept says why the branch was kept although asked to delete it; "" otherwise.
	BranchKept string
}

// Words say what the removal of the worktree at path, on branch, did, for a person:
// "Removed the worktree P and its branch B." or why the branch is kept when deleteBranch
// asked for it.
func (r Removed) Words(path, branch string, deleteBranch bool) string {
	words := "Removed the worktree " + path
	if !r.Folder {
		words = "The worktree " + path + " was removed already; git forgets it now"
	}
	switch {
	case r.BranchDeleted:
		return fmt.Sprintf("%s and its branch %s.", words, branch)
	case deleteBranch:
		return fmt.Sprintf("%s; its branch %s is kept: %s.", words, branch, r.BranchKept)
	}
	return fmt.Sprintf("%s; its branch %s is kept.", words, branch)
}

// RefusedError is Remove's error when it would lose work the person did not say to lose.
type RefusedError struct {
	Worktree string
	Loss     Loss
	Branch   bool // the loss counts the branch's commits
}

func (e *RefusedError) Error() string {
	return fmt.Sprintf("the worktree %s holds work that removing it would lose: %s; commit or push it first, or remove it anyway (--force, or Remove anyway)", e.Worktree, e.Loss.Words(e.Branch))
}

// Remove removes the worktree w segwi made under root: its folder and its git folder in
// the repository, and with o.DeleteBranch its branch when it was never pushed. It refuses
// a record that does not name a folder segwi made (Owned), a worktree whose git files were
// rewritten unless o.Force (and then leaves their git folder alone), and, unless o.Force,
// one whose removal would lose work (see Loss), with a *RefusedError saying what. A folder
// removed by hand is forgotten (git worktree prune). It returns when done or ctx is done.
func Remove(ctx context.Context, g gitcmd.Git, root string, w Worktree, o RemoveOptions) (Removed, error) {
	if err := Owned(root, w); err != nil {
		return Removed{}, err
	}
	loss, err := Inspect(ctx, g, w, o.Remote)
	moved := errors.Is(err, gitcmd.ErrWorktreeMoved)
	switch {
	case moved && !o.Force:
		return Removed{}, fmt.Errorf("%w; segwi reads nothing there: look at it, and remove it anyway (--force, or Remove anyway) to delete its folder", err)
	case err != nil && !moved:
		return Removed{}, err
	}
	if !o.Force && (len(loss.Changed) > 0 || o.DeleteBranch && !loss.Pushed && loss.Unpushed > 0) {
		return Removed{}, &RefusedError{Worktree: w.Path, Loss: loss, Branch: o.DeleteBranch}
	}
	done := Removed{Loss: loss}
	if !loss.Gone {
		if err := gitcmd.RemoveTree(w.Path); err != nil {
			return done, fmt.Errorf("removing the worktree %s: %w", w.Path, err)
		}
		done.Folder = true
	}
	// Its git folder goes only when it names this folder: one the agent pointed elsewhere
	// is left.
	if err := gitcmd.ForgetWorktree(w.GitDir, w.Path); err != nil && !moved {
		return done, err
	}
	os.Remove(filepath.Dir(w.Path)) // the repository's folder under root, once empty
	if o.DeleteBranch {
		done.BranchDeleted, done.BranchKept = deleteBranch(ctx, g, w, loss)
	}
	return done, nil
}

// deleteBranch deletes the worktree's branch, unless it was pushed, is not segwi's, or
// moved since loss was read.
func deleteBranch(ctx context.Context, g gitcmd.Git, w Worktree, loss Loss) (bool, string) {
	switch {
	case loss.BranchHead == "":
		return false, "it is gone already"
	case loss.Pushed:
		return false, "it was pushed"
	case !strings.HasPrefix(w.Branch, "segwi/"):
		return false, "it is not a branch segwi named"
	}
	c, err := g.Open(ctx, w.Repository)
	if err != nil {
		return false, err.Error()
	}
	if c.Branch == w.Branch {
		return false, "the checkout has it checked out"
	}
	old := loss.BranchHead
	who, _, _ := c.Identity()
	if err := c.UpdateRef(ctx, "refs/heads/"+w.Branch, "", &old, "segwi: worktree removed", who); err != nil {
		return false, err.Error()
	}
	return true, ""
}

// Forget forgets a worktree whose folder was removed by hand (git worktree prune): its
// git folder goes when it names w's folder. It reports whether there was one to forget.
func Forget(w Worktree) (bool, error) {
	if _, err := os.Lstat(w.Path); err == nil {
		return false, nil
	}
	if _, err := os.Lstat(w.GitDir); err != nil {
		return false, nil
	}
	if err := gitcmd.ForgetWorktree(w.GitDir, w.Path); err != nil {
		return false, err
	}
	return true, nil
}
