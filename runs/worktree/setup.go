package worktree

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"strings"
	"time"

	"github.com/bmatcuk/doublestar/v4"
)

// Copy copies the files the globs patterns match in the checkout top into the worktree
// dir, calling say with a line for each file copied or passed over, and returns how many
// were copied. Nothing outside top is ever copied: a match reached through a link that
// leads out of the checkout is passed over, a link to a file inside it is copied as that
// file, and what is neither a file, a folder nor a link (a FIFO, a device) is passed over.
// Nothing is written through a link in the worktree. A folder matched is copied whole, by
// the same rules. It returns when everything is copied, or on the first error or when ctx
// is done.
func Copy(ctx context.Context, top, dir string, patterns []string, say func(string)) (int, error) {
	realTop, err := filepath.EvalSymlinks(top)
	if err != nil {
		return 0, fmt.Errorf("copying into the worktree: %w", err)
	}
	cp := copier{ctx: ctx, top: realTop, dir: dir, say: say}
	for _, p := range patterns {
		if err := CheckPattern(p); err != nil {
			return cp.n, fmt.Errorf("copying into the worktree: %s", err)
		}
		matches, err := doublestar.Glob(os.DirFS(realTop), p, doublestar.WithNoFollow())
		if err != nil {
			return cp.n, fmt.Errorf("copying %s into the worktree: %w", p, err)
		}
		if len(matches) == 0 {
			say(fmt.Sprintf("%s: no file in the checkout matches it", p))
		}
		for _, m := range matches {
			if err := cp.copy(m); err != nil {
				return cp.n, err
			}
		}
	}
	return cp.n, nil
}

// copier copies files from a checkout into a worktree.
type copier struct {
	ctx      context.Context
	top, dir string
	say      func(string)
	n        int
}

// copy copies the checkout's rel (slash-separated) to the same place in the worktree.
func (c *copier) copy(rel string) error {
	if err := c.ctx.Err(); err != nil {
		return err
	}
	if first, _, _ := strings.Cut(rel, "/"); first == ".git" || rel == "." {
		return nil
	}
	src := filepath.Join(c.top, filepath.FromSlash(rel))
	// The folders on the way may be links (a glob follows a link named before its first
	// wildcard): what they lead to must be in the checkout.
	if parent, err := filepath.EvalSymlinks(filepath.Dir(src)); err != nil || !inside(parent, c.top) {
		c.say(fmt.Sprintf("%s: not copied: its folder leads out of the checkout", rel))
		return nil
	}
	st, err := os.Lstat(src)
	if err != nil {
		return fmt.Errorf("copying %s into the worktree: %w", rel, err)
	}
	if st.Mode()&fs.ModeSymlink != 0 {
		target, err := filepath.EvalSymlinks(src)
		if err != nil || !inside(target, c.top) {
			c.say(fmt.Sprintf("%s: not copied: a link that leads out of the checkout", rel))
			return nil
		}
		if st, err = os.Stat(target); err != nil {
			return fmt.Errorf("copying %s into the worktree: %w", rel, err)
		}
		src = target
	}
	switch {
	case st.Mode().IsRegular():
		return c.file(rel, src, st)
	case st.IsDir():
		return filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
			if err != nil || p == src {
				return err
			}
			sub, _ := filepath.Rel(src, p)
			return c.copy(path.Join(rel, filepath.ToSlash(sub)))
		})
	}
	c.say(fmt.Sprintf("%s: not copied: it is not a file (%s)", rel, st.Mode().Type()))
	return nil
}

// file copies the regular file src to rel in the worktree, never through a link there.
func (c *copier) file(rel, src string, st fs.FileInfo) error {
	dst := filepath.Join(c.dir, filepath.FromSlash(rel))
	if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
		return fmt.Errorf("copying %s into the worktree: %w", rel, err)
	}
	if parent, err := filepath.EvalSymlinks(filepath.Dir(dst)); err != nil || !inside(parent, c.dir) {
		c.say(fmt.Sprintf("%s: not copied: the worktree has a link on its way", rel))
		return nil
	}
	if d, err := os.Lstat(dst); err == nil && !d.Mode().IsRegular() {
		c.say(fmt.Sprintf("%s: not copied: the worktree holds something else there (%s)", rel, d.Mode().Type()))
		return nil
	}
	in, err := os.Open(src)
	if err != nil {
		return fmt.Errorf("copying %s into the worktree: %w", rel, err)
	}
	defer in.Close()
	out, err := os.OpenFile(dst, os.O_WRONLY|os.O_CREATE|os.O_TRUNC|oNoFollow, st.Mode().Perm())
	if err != nil {
		return fmt.Errorf("copying %s into the worktree: %w", rel, err)
	}
	n, err := io.Copy(out, in)
	if cerr := out.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("copying %s into the worktree: %w", rel, err)
	}
	c.n++
	c.say(fmt.Sprintf("copied %s (%s)", rel, Size(n)))
	return nil
}

// inside reports whether p is dir or under it.
func inside(p, dir string) bool {
	rel, err := filepath.Rel(dir, p)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator))
}

// ErrSetupTimeout is wrapped by RunCommand's error when the command did not finish in time.
var ErrSetupTimeout = errors.New("the setup did not finish in time")

// RunCommand runs command with sh -c in the folder dir, with the environment env, its
// output and errors written to out, in a process group of its own, which is killed once
// the command exits (nothing it started in the background stays) or when ctx is done.
// contain, unless nil, is called on the command before it starts: the run puts it in its
// cgroup, so that what left the process group ends with the run.
// Its error says how the command ended when it failed: its exit code, or that ctx ended it
// (wrapping ErrSetupTimeout when ctx's deadline passed). It returns when the command has
// exited and its output is read, or a few seconds after ctx is done.
func RunCommand(ctx context.Context, dir, command string, env []string, out io.Writer, contain func(*exec.Cmd)) error {
	cmd := exec.CommandContext(ctx, "/bin/sh", "-c", command)
	cmd.Dir, cmd.Env, cmd.Stdout, cmd.Stderr = dir, env, out, out
	ownGroup(cmd)
	if contain != nil {
		contain(cmd)
	}
	cmd.WaitDelay = 2 * time.Second
	err := cmd.Run()
	if cmd.Process != nil {
		killGroup(cmd.Process.Pid)
	}
	var ee *exec.ExitError
	switch {
	case err == nil:
		return nil
	case errors.Is(ctx.Err(), context.DeadlineExceeded):
		return fmt.Errorf("%w: it was ended", ErrSetupTimeout)
	case ctx.Err() != nil:
		return fmt.Errorf("it was ended: %w", context.Cause(ctx))
	case errors.As(err, &ee) && ee.ExitCode() >= 0:
		return fmt.Errorf("it exited with code %d", ee.ExitCode())
	case errors.As(err, &ee):
		return fmt.Errorf("it was killed (%s)", ee.ProcessState)
	}
	return fmt.Errorf("it could not run: %w", err)
}
