package changes

import (
	"bytes"
	"context"
	"fmt"
	"path/filepath"
	"slices"

	"github.com/segwi/segwi/internal/lib/gitcmd"
)

// MaxDirty bounds the files a Base lists as already changed; Base.DirtyCount says how
// many there were.
const MaxDirty = 10000

// Base is where a checkout stood when a run started: what the run's changes are counted
// from.
type Base struct {
	// Repo is the top folder of the checkout's work tree (the run's checkout, or a folder
	// above it). Paths are relative to it, with forward slashes.
	Repo string `json:"repo,omitempty"`
	// Branch is the branch HEAD was on, short name; "" when HEAD was detached.
	Branch string `json:"branch,omitempty"`
	// Commit is HEAD's commit; "" when the branch had no commit yet (Unborn).
	Commit string `json:"commit,omitempty"`
	// Detached says HEAD was not on a branch.
	Detached bool `json:"detached,omitempty"`
	// Unborn says the branch had no commit yet: every file is the run's or was dirty.
	Unborn bool `json:"unborn,omitempty"`
	// Dirty lists the files already changed: tracked files that differed from HEAD and
	// untracked files that are not ignored, sorted, at most MaxDirty of them.
	Dirty []string `json:"dirty,omitempty"`
	// DirtyCount is how many files were dirty: more than len(Dirty) when the list was cut.
	DirtyCount int `json:"dirtyCount,omitempty"`
	// Error says why no base could be read (not a git checkout, git missing); the other
	// fields are then empty.
	Error string `json:"error,omitempty"`
}

// Known reports whether b was read: its checkout is a git work tree and git answered.
func (b *Base) Known() bool { return b != nil && b.Error == "" && b.Repo != "" }

// DirtyCut reports whether Dirty lists fewer files than were dirty.
func (b *Base) DirtyCut() bool { return b != nil && b.DirtyCount > len(b.Dirty) }

// WasDirty reports whether path was among the files already changed at the base.
func (b *Base) WasDirty(path string) bool {
	if b == nil {
		return false
	}
	_, found := slices.BinarySearch(b.Dirty, path)
	return found
}

// ReadBase reads where the checkout dir stands now, for a run about to start there. It
// never fails: what went wrong is in Base.Error. It runs no program the checkout's or
// the person's git configuration names (see the package doc), and returns when git has
// answered or ctx is done.
func ReadBase(ctx context.Context, g gitcmd.Git, dir string) Base {
	b, err := readBase(ctx, g, dir)
	if err != nil {
		return Base{Error: err.Error()}
	}
	return b
}

func readBase(ctx context.Context, g gitcmd.Git, dir string) (Base, error) {
	c, err := openCheckout(ctx, g, dir)
	if err != nil {
		return Base{}, err
	}
	b := Base{Repo: filepath.Clean(c.Top), Branch: c.Branch, Commit: c.Head, Detached: c.Branch == "", Unborn: c.Head == ""}
	s, err := newScratch(ctx, c)
	if err != nil {
		return Base{}, err
	}
	defer s.close()
	now, err := s.workTree(ctx)
	if err != nil {
		return Base{}, err
	}
	from := c.Head
	if from == "" {
		from = s.empty
	}
	out, err := s.raw(ctx, "diff-tree", "-r", "-z", "--no-renames", "--name-only", from, now)
	if err != nil {
		return Base{}, fmt.Errorf("listing the files already changed in %s: %w", c.Top, err)
	}
	for _, p := range bytes.Split(out, []byte{0}) {
		if len(p) == 0 {
			continue
		}
		b.DirtyCount++
		if len(b.Dirty) < MaxDirty {
			b.Dirty = append(b.Dirty, string(p))
		}
	}
	slices.Sort(b.Dirty)
	return b, nil
}
