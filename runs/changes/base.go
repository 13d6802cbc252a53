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
