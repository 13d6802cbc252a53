package canary

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/segwi/segwi/internal/gitcmd"
)

// snapshot is what the canary compares before and after the run to see that the
// checkout did not change.
type snapshot struct {
	Head   string // the commit HEAD names, or "" in a repository without commits
	Status string // git status --porcelain --untracked-files=all
}

// git runs git with args in dir and returns its standard output, through segwi's one git
// seam (internal/gitcmd): an environment that points git at another repository
// (GIT_DIR, GIT_WORK_TREE) or reconfigures it is cleaned away. It takes no optional locks,
// so that looking at the checkout does not rewrite its index.
func git(ctx context.Context, dir string, args ...string) (string, error) {
	var out bytes.Buffer
	if err := gitcmd.New("", dir, nil).Run(ctx, nil, &out, append([]string{"--no-optional-locks"}, args...)...); err != nil {
		return out.String(), fmt.Errorf("in %s: %w", dir, err)
	}
	return out.String(), nil
}

// takeSnapshot records dir's HEAD and status. It fails when dir is not a git checkout.
func takeSnapshot(ctx context.Context, dir string) (snapshot, error) {
	status, err := git(ctx, dir, "status", "--porcelain", "--untracked-files=all")
	if err != nil {
		return snapshot{}, fmt.Errorf("%s is not a git checkout the canary can compare before and after: %w", dir, err)
	}
	head, err := git(ctx, dir, "rev-parse", "--verify", "--quiet", "HEAD")
	if err != nil {
		head = "" // no commit yet: git status alone tells a change
	}
	return snapshot{Head: strings.TrimSpace(head), Status: status}, nil
}

// readFile picks the file the agent is asked to read: README.md when the checkout has
// one, else the first file git tracks. It returns an absolute path.
func readFile(ctx context.Context, dir string) (string, error) {
	for _, name := range []string{"README.md", "README"} {
		p := filepath.Join(dir, name)
		if info, err := os.Stat(p); err == nil && info.Mode().IsRegular() {
			return p, nil
		}
	}
	out, err := git(ctx, dir, "ls-files", "-z")
	if err != nil {
		return "", err
	}
	for name := range strings.SplitSeq(out, "\x00") {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if info, err := os.Stat(p); name != "" && err == nil && info.Mode().IsRegular() {
			return p, nil
		}
	}
	return "", fmt.Errorf("%s has no committed file for the canary's agent to read: commit one (a README.md), or choose another checkout", dir)
}

// cloneTemp clones the repository at src into a new temporary folder, without a remote,
// and returns it with a function that removes it.
func cloneTemp(ctx context.Context, src string) (dir string, remove func(), err error) {
	parent, err := os.MkdirTemp("", "segwi-canary-")
	if err != nil {
		return "", nil, fmt.Errorf("making a folder for the canary's clone: %w", err)
	}
	remove = func() { os.RemoveAll(parent) }
	dir = filepath.Join(parent, filepath.Base(src))
	if _, err := git(ctx, parent, "clone", "--quiet", "--local", "--", src, dir); err != nil {
		remove()
		return "", nil, fmt.Errorf("cloning %s for the canary: %w", src, err)
	}
	// Nothing the agent runs in the clone can push back to the repository.
	if _, err := git(ctx, dir, "remote", "remove", "origin"); err != nil {
		remove()
		return "", nil, fmt.Errorf("cutting the canary's clone of %s from it: %w", src, err)
	}
	return dir, remove, nil
}
