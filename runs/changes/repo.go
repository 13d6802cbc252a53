package changes

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"

	"github.com/segwi/segwi/internal/gitcmd"
)

// ErrNotGit is wrapped by the errors about a folder that is not in a git work tree.
var ErrNotGit = errors.New("not a git checkout")

// readOnly are the options of every git command run in the checkout itself: no fsmonitor
// and no hooks, whatever its configuration says. The commands that run there only read
// (rev-parse, symbolic-ref, config, var) or write a ref or the index without hashing a
// file (update-ref, reset --no-refresh).
var readOnly = []string{"-c", "core.fsmonitor=false", "-c", "core.hooksPath=" + os.DevNull}

// repo is where a checkout stands, as git reads it there.
type repo struct {
	g        gitcmd.Git // git in the checkout's top folder
	top      string     // the work tree's top folder, absolute
	gitDir   string     // its git folder (a linked worktree has its own), absolute
	common   string     // the git folder holding the objects and refs, absolute
	format   string     // the object format: sha1 or sha256
	branch   string     // the branch HEAD is on, short name; "" when detached
	head     string     // HEAD's commit; "" when the branch has no commit yet
	settings []string   // -c options for the scratch repository: the plain settings copied
}

// copiedSettings are the checkout's settings the scratch repository takes: values git
// reads (ignore and attribute files, line endings, file modes, case), never a program.
var copiedSettings = `^core\.(autocrlf|eol|excludesfile|attributesfile|ignorecase|precomposeunicode|filemode|symlinks)$`

// git runs a command in the checkout with the readOnly options.
func (r repo) git(ctx context.Context, args ...string) (string, error) {
	return r.g.Output(ctx, append(append([]string{}, readOnly...), args...)...)
}

// readRepo asks the checkout dir where it stands. It wraps ErrNotGit when dir is not in a
// git work tree.
func readRepo(ctx context.Context, g gitcmd.Git, dir string) (repo, error) {
	r := repo{g: g.In(dir)}
	out, err := r.git(ctx, "rev-parse", "--path-format=absolute", "--show-toplevel", "--git-dir", "--git-common-dir", "--show-object-format")
	if err != nil {
		if gitcmd.ExitCode(err) > 0 {
			return repo{}, fmt.Errorf("%s is %w: %v", dir, ErrNotGit, lastLine(err))
		}
		return repo{}, fmt.Errorf("reading the checkout %s: %w", dir, err)
	}
	lines := strings.Split(out, "\n")
	if len(lines) != 4 {
		return repo{}, fmt.Errorf("reading the checkout %s: git rev-parse printed %q", dir, out)
	}
	r.top, r.gitDir, r.common, r.format = lines[0], lines[1], lines[2], lines[3]
	r.g = r.g.In(r.top)

	ref, err := r.git(ctx, "symbolic-ref", "--quiet", "HEAD")
	switch {
	case err == nil:
		r.branch = strings.TrimPrefix(ref, "refs/heads/")
	case gitcmd.ExitCode(err) != 1:
		return repo{}, fmt.Errorf("reading HEAD in %s: %w", r.top, err)
	}
	r.head, err = r.git(ctx, "rev-parse", "--quiet", "--verify", "HEAD^{commit}")
	if err != nil && gitcmd.ExitCode(err) != 1 {
		return repo{}, fmt.Errorf("reading HEAD's commit in %s: %w", r.top, err)
	}
	set, err := r.git(ctx, "config", "-z", "--get-regexp", copiedSettings)
	if err != nil && gitcmd.ExitCode(err) != 1 {
		return repo{}, fmt.Errorf("reading the settings of %s: %w", r.top, err)
	}
	for _, kv := range strings.Split(set, "\x00") {
		if key, value, ok := strings.Cut(kv, "\n"); ok {
			r.settings = append(r.settings, "-c", key+"="+value)
		}
	}
	return r, nil
}

// lastLine is the last non-empty line of err's words: what git says went wrong.
func lastLine(err error) string {
	lines := strings.Split(strings.TrimSpace(err.Error()), "\n")
	return strings.TrimSpace(lines[len(lines)-1])
}
