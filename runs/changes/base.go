package changes

import (
	"bytes"
	"context"
	"fmt"
	"path/filepath"
	"slices"
	"strings"

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
//
// It copies no file: git status, in a scratch repository whose index is a copy of the
// checkout's, compares the work tree with it by the files' stat data, and hashes only a
// file whose stat data changed but not its size.
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
	// The scratch repository's HEAD is the checkout's commit (none for an unborn branch):
	// status lists what differs from it in the index or the work tree, and the untracked
	// files one by one (a nested repository as its folder, which git does not enter).
	out, err := s.raw(ctx, "status", "--porcelain=v2", "-z", "--untracked-files=all", "--no-renames", "--ignore-submodules=dirty")
	if err != nil {
		return Base{}, fmt.Errorf("listing the files already changed in %s: %w", c.Top, err)
	}
	for _, p := range statusPaths(out) {
		b.DirtyCount++
		if len(b.Dirty) < MaxDirty {
			b.Dirty = append(b.Dirty, p)
		}
	}
	slices.Sort(b.Dirty)
	return b, nil
}

// statusPaths returns the paths git status --porcelain=v2 -z lists: changed, in conflict or
// untracked; a nested repository without its trailing slash.
func statusPaths(out []byte) []string {
	var paths []string
	recs := bytes.Split(out, []byte{0})
	for i := 0; i < len(recs); i++ {
		rec := recs[i]
		if len(rec) < 2 {
			continue
		}
		// The fields before the path: "1 XY sub mH mI mW hH hI", "2 ... Xscore" (its
		// original path follows as the next record), "u XY sub m1 m2 m3 mW h1 h2 h3", "?".
		before := map[byte]int{'1': 8, '2': 9, 'u': 10, '?': 1}[rec[0]]
		if before == 0 {
			continue // "#" headers, "!" ignored files
		}
		f := bytes.SplitN(rec, []byte{' '}, before+1)
		if len(f) != before+1 {
			continue
		}
		paths = append(paths, strings.TrimSuffix(string(f[before]), "/"))
		if rec[0] == '2' && i+1 < len(recs) {
			i++ // a rename (--no-renames gives none): its original path changed too
			paths = append(paths, string(recs[i]))
		}
	}
	return paths
}
