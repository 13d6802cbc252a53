package canary

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/segwi/segwi/internal/lib/gitcmd"
	"github.com/segwi/segwi/runs/changes"
)

// snapshot is what the canary compares before and after the run to see that the
// checkout did not change.
type snapshot struct {
	Head   string // the commit HEAD names, or "" in a repository without commits
	Tree   string // the work tree's tree: the same when no file changed
	Status string // the files that differ from HEAD, as git status --porcelain lines
}

// takeSnapshot records dir's HEAD and work tree, as segwi reads a run's changes
// (changes.LookAt): through segwi's one git seam, running nothing the checkout's
// configuration names, whatever GIT_DIR or GIT_WORK_TREE segwi's environment holds. It
// fails when dir is not a git checkout.
func takeSnapshot(ctx context.Context, dir string) (snapshot, error) {
	l, err := changes.LookAt(ctx, gitcmd.New("", "", nil), dir)
	if err != nil {
		return snapshot{}, fmt.Errorf("%s is not a git checkout the canary can compare before and after: %w", dir, err)
	}
	return snapshot{Head: l.Head, Tree: l.Tree, Status: l.Status}, nil
}

// readFile picks the file the agent is asked to read: README.md when the checkout has
// one, else the first file HEAD holds. It returns an absolute path.
func readFile(ctx context.Context, dir string) (string, error) {
	for _, name := range []string{"README.md", "README"} {
		p := filepath.Join(dir, name)
		if info, err := os.Stat(p); err == nil && info.Mode().IsRegular() {
			return p, nil
		}
	}
	l, err := changes.LookAt(ctx, gitcmd.New("", "", nil), dir)
	if err != nil {
		return "", err
	}
	for _, name := range l.Files {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if info, err := os.Stat(p); err == nil && info.Mode().IsRegular() {
			return p, nil
		}
	}
	return "", fmt.Errorf("%s has no committed file for the canary's agent to read: commit one (a README.md), or choose another checkout", dir)
}

// cloneTemp makes a clone of the repository at src in a new temporary folder, without a
// remote, and returns it with a function that removes it. It is made without git clone,
// which would run git in src and read its configuration: a new repository borrows src's
// objects (objects/info/alternates), its branch is set to src's HEAD commit, and its work
// tree is checked out from it.
func cloneTemp(ctx context.Context, src string) (dir string, remove func(), err error) {
	g := gitcmd.New("", "", nil)
	c, err := g.Open(ctx, src)
	if err != nil {
		return "", nil, fmt.Errorf("cloning %s for the canary: %w", src, err)
	}
	if c.Head == "" {
		return "", nil, fmt.Errorf("cloning %s for the canary: its branch has no commit yet", src)
	}
	parent, err := os.MkdirTemp("", "segwi-canary-")
	if err != nil {
		return "", nil, fmt.Errorf("making a folder for the canary's clone: %w", err)
	}
	remove = func() { os.RemoveAll(parent) }
	dir = filepath.Join(parent, filepath.Base(c.Top))
	if err := fillClone(ctx, g, c, dir); err != nil {
		remove()
		return "", nil, fmt.Errorf("cloning %s for the canary: %w", src, err)
	}
	return dir, remove, nil
}

func fillClone(ctx context.Context, g gitcmd.Git, c *gitcmd.Checkout, dir string) error {
	if strings.ContainsAny(c.Objects(), "\n\r") {
		return errors.New("its object folder has a name git cannot borrow objects from")
	}
	args := []string{"init", "--quiet", "--template=", "--object-format=" + c.Format}
	if c.Branch != "" {
		args = append(args, "--initial-branch="+c.Branch)
	}
	if _, err := g.In(filepath.Dir(dir)).Output(ctx, append(args, dir)...); err != nil {
		return err
	}
	gitDir := filepath.Join(dir, ".git")
	if err := os.WriteFile(filepath.Join(gitDir, "objects", "info", "alternates"), []byte(c.Objects()+"\n"), 0o644); err != nil {
		return err
	}
	// git runs in the new repository only, whose configuration git init just wrote.
	clone := g.In(dir).With("GIT_DIR="+gitDir, "GIT_WORK_TREE="+dir)
	ref := "HEAD"
	if c.Branch != "" {
		ref = "refs/heads/" + c.Branch
	}
	if _, err := clone.Output(ctx, "update-ref", "--no-deref", ref, c.Head); err != nil {
		return err
	}
	_, err := clone.Output(ctx, "read-tree", "-u", "--reset", c.Head)
	return err
}
