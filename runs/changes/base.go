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
	b, _, err := readBaseOf(ctx, c)
	return b, err
}

// readBaseOf reads the base of the checkout c, and the folders git ignores whole there
// (relative, without their trailing slash), which git status does not enter.
func readBaseOf(ctx context.Context, c *gitcmd.Checkout) (Base, map[string]bool, error) {
	b := Base{Repo: filepath.Clean(c.Top), Branch: c.Branch, Commit: c.Head, Detached: c.Branch == "", Unborn: c.Head == ""}
	s, err := newScratch(ctx, c)
	if err != nil {
		return Base{}, nil, err
	}
	defer s.close()
	// The scratch repository's HEAD is the checkout's commit (none for an unborn branch):
	// status lists what differs from it in the index or the work tree, and the untracked
	// files one by one (a nested repository as its folder, which git does not enter), and
	// the ignored ones as it found them: a folder that matches an ignore pattern and holds
	// no tracked file as the folder, without looking inside.
	out, err := s.raw(ctx, "status", "--porcelain=v2", "-z", "--untracked-files=all", "--ignored=matching", "--no-renames", "--ignore-submodules=dirty")
	if err != nil {
		return Base{}, nil, fmt.Errorf("listing the files already changed in %s: %w", c.Top, err)
	}
	paths, ignored := statusPaths(out)
	for _, p := range paths {
		b.DirtyCount++
		if len(b.Dirty) < MaxDirty {
			b.Dirty = append(b.Dirty, p)
		}
	}
	slices.Sort(b.Dirty)
	return b, ignored, nil
}

// statusPaths returns the paths git status --porcelain=v2 -z lists: changed, in conflict or
// untracked, a nested repository without its trailing slash; and the ignored folders it
// lists (--ignored), without theirs.
func statusPaths(out []byte) (paths []string, ignoredFolders map[string]bool) {
	ignoredFolders = map[string]bool{}
	recs := bytes.Split(out, []byte{0})
	for i := 0; i < len(recs); i++ {
		rec := recs[i]
		if len(rec) < 2 {
			continue
		}
		if dir, ok := bytes.CutPrefix(rec, []byte("! ")); ok {
			if dir, ok := bytes.CutSuffix(dir, []byte("/")); ok {
				ignoredFolders[string(dir)] = true
			}
			continue
		}
		// The fields before the path: "1 XY sub mH mI mW hH hI", "2 ... Xscore" (its
		// original path follows as the next record), "u XY sub m1 m2 m3 mW h1 h2 h3", "?".
		before := map[byte]int{'1': 8, '2': 9, 'u': 10, '?': 1}[rec[0]]
		if before == 0 {
			continue // "#" headers
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
	return paths, ignoredFolders
}
