package record

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"strings"
	"time"

	"github.com/bmatcuk/doublestar/v4"
)

// Loss is what removing a worktree (and perhaps its branch) would lose.
type Loss struct {
	// Gone says the worktree's folder is gone already (removed by hand): nothing in it is
	// lost any more.
	Gone bool
	// Changed are the files whose changes are not committed (git status's short lines: " M
	// a.txt", "?? new.txt"): lost with the folder. Ignored files (a copied .env, build
	// output) go too and are not listed.
	Changed []string
	// Pushed says the branch is on the remote (it has a remote-tracking branch).
	Pushed bool
	// Unpushed is how many commits of the branch the remote does not have: lost only if
	// the branch is deleted.
	Unpushed int
	// BranchHead is the branch's commit now; "" when the branch is gone.
	BranchHead string
}

// Words says what would be lost, for a person: "2 uncommitted files ( M a.txt, ?? b.txt)".
// withBranch counts the commits only the branch holds.
func (l Loss) Words(withBranch bool) string {
	var parts []string
	if n := len(l.Changed); n > 0 {
		shown := l.Changed[:min(n, 5)]
		more := ""
		if n > len(shown) {
			more = fmt.Sprintf(" and %d more", n-len(shown))
		}
		parts = append(parts, fmt.Sprintf("%s not committed (%s%s)", Plural(n, "changed file"), strings.Join(shown, ", "), more))
	}
	if withBranch && l.Unpushed > 0 {
		parts = append(parts, fmt.Sprintf("%s only its branch holds, never pushed", Plural(l.Unpushed, "commit")))
	}
	return strings.Join(parts, "; ")
}

// Size says how large n bytes are, for a person: "120 bytes", "3.4 MiB".
func Size(n int64) string {
	switch {
	case n < 1<<10:
		return fmt.Sprintf("%d bytes", n)
	case n < 1<<20:
		return fmt.Sprintf("%.1f KiB", float64(n)/(1<<10))
	case n < 1<<30:
		return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20))
	}
	return fmt.Sprintf("%.1f GiB", float64(n)/(1<<30))
}

// Worktree is a run's git worktree, as its record keeps it.
type Worktree struct {
	// Path is the worktree's folder: Root/<repository>/<run id of MadeBy>.
	Path string `json:"path"`
	// Repository is the top folder of the checkout it was made from.
	Repository string `json:"repository"`
	// Branch is the branch it was made on, short name ("segwi/fix-login-ab12cd").
	Branch string `json:"branch"`
	// Commit is the commit it was made from: the checkout's HEAD then.
	Commit string `json:"commit"`
	// GitDir is its git folder in the repository: COMMON/worktrees/<run id>.
	GitDir string `json:"gitDir"`
	// Common is the repository's git folder that holds its objects and refs.
	Common string `json:"common"`
	// MadeBy is the run that made it; runs that continue that run work in it too.
	MadeBy string `json:"madeBy"`
}

// DiskUse returns how much disk the folder dir holds, in bytes: the blocks its files
// take, links not followed, each folder once. It stops when ctx is done.
func DiskUse(ctx context.Context, dir string) (int64, error) {
	var total int64
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			if p == dir {
				return err
			}
			return nil // a file gone meanwhile, a folder it cannot read
		}
		if err := ctx.Err(); err != nil {
			return err
		}
		info, err := d.Info()
		if err != nil {
			return nil
		}
		total += onDisk(info)
		return nil
	})
	return total, err
}

// Setup is what a repository's new worktree gets before the run's agent starts there
// (segwi.repositories[].setup): files copied from the checkout, then a command.
type Setup struct {
	// Copy are globs of files to copy from the checkout into the worktree, relative to the
	// checkout's top folder ("**" matches any number of folders): typically the ignored
	// files a checkout needs and git does not hold, such as .env.
	Copy []string
	// Run is a command run with sh -c in the worktree, as the person, with the run's
	// environment, once the files are copied; "" runs none.
	Run string
	// Timeout bounds the whole setup, copying and command; zero is DefaultSetupTimeout.
	Timeout time.Duration
}

// DefaultSetupTimeout bounds a setup whose Timeout is zero.
const DefaultSetupTimeout = 10 * time.Minute

// Empty reports whether s does nothing.
func (s Setup) Empty() bool { return len(s.Copy) == 0 && strings.TrimSpace(s.Run) == "" }

// CheckPattern says why p cannot be a copy glob, or nil: it must be a valid glob, relative
// to the checkout and never leaving it (no "..", no leading "/"), and not reach into .git.
func CheckPattern(p string) error {
	switch {
	case strings.TrimSpace(p) == "":
		return errors.New("is empty: write a file or a glob relative to the checkout, e.g. .env or config/*.local.yaml")
	case strings.HasPrefix(p, "/") || filepath.IsAbs(p) || strings.HasPrefix(p, "~"):
		return fmt.Errorf("%q is not relative to the checkout: write it from the checkout's top folder, e.g. .env", p)
	case !doublestar.ValidatePattern(p):
		return fmt.Errorf("%q is not a valid glob", p)
	}
	for _, part := range strings.Split(p, "/") {
		switch part {
		case "..":
			return fmt.Errorf("%q leaves the checkout (..): only files inside it are copied", p)
		case ".git":
			return fmt.Errorf("%q reaches into .git, which segwi never copies", p)
		}
	}
	return nil
}
