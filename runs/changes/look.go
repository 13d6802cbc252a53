package changes

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/segwi/segwi/internal/lib/gitcmd"
)

// MaxLookFiles bounds the files a Look lists from HEAD.
const MaxLookFiles = 1000

// Look is how a checkout stands at one moment, to compare with another: what `git status`
// and `git rev-parse HEAD` would tell, read the way segwi reads a run's changes (see the
// package doc), so that looking runs nothing the checkout's or the person's git
// configuration names.
type Look struct {
	Head string // HEAD's commit; "" when its branch has no commit yet
	// Tree is the tree of the work tree (tracked and untracked files, ignored ones left
	// out): equal in two looks when no such file changed.
	Tree string
	// Status lists the files that differ from HEAD, one line each as git status
	// --porcelain shows a change not staged: " M PATH", " D PATH", " T PATH", and
	// "?? PATH" for a file HEAD does not hold.
	Status string
	// Files are paths HEAD holds, in git's order, at most MaxLookFiles.
	Files []string
}

// LookAt reads how the checkout dir stands. Its errors wrap ErrNotGit when dir is not a
// git work tree. It returns when git has answered or ctx is done.
func LookAt(ctx context.Context, g gitcmd.Git, dir string) (Look, error) {
	c, err := openCheckout(ctx, g, dir)
	if err != nil {
		return Look{}, err
	}
	s, err := newScratch(ctx, c)
	if err != nil {
		return Look{}, err
	}
	defer s.close()
	l := Look{Head: c.Head}
	if l.Tree, err = s.workTree(ctx); err != nil {
		return Look{}, err
	}
	from := c.Head
	if from == "" {
		from = s.empty
	}
	out, err := s.raw(ctx, "diff-tree", "-r", "-z", "--no-renames", "--name-status", from, l.Tree)
	if err != nil {
		return Look{}, fmt.Errorf("comparing %s with HEAD: %w", c.Top, err)
	}
	var status strings.Builder
	f := fields(out)
	for i := 0; i+1 < len(f); i += 2 {
		code := " " + f[i][:1]
		if code == " A" {
			code = "??"
		}
		fmt.Fprintf(&status, "%s %s\n", code, f[i+1])
	}
	l.Status = status.String()
	if c.Head != "" {
		w := &capWriter{max: 1 << 20}
		err := s.run(ctx, nil, w, "ls-tree", "-r", "-z", "--name-only", c.Head)
		if err != nil && !errors.Is(err, errFull) {
			return Look{}, fmt.Errorf("listing the files of %s: %w", c.Top, err)
		}
		names := fields(w.buf.Bytes())
		if w.cut && len(names) > 0 {
			names = names[:len(names)-1] // cut in the middle
		}
		l.Files = names[:min(len(names), MaxLookFiles)]
	}
	return l, nil
}
