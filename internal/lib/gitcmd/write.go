package gitcmd

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// ErrRefMoved is wrapped by UpdateRef's error when the ref no longer holds the value the
// caller expected.
var ErrRefMoved = errors.New("the ref moved")

// UpdateRef sets the checkout's ref name (refs/heads/..., refs/remotes/...) to value (""
// deletes it), with git update-ref and its lock, only if it still holds old (when old is
// not nil; "" for a ref that must not exist yet), and logs msg in its reflog as git would,
// by who. git does
// not run in the checkout: it runs in a private folder whose refs, packed-refs and logs
// are the checkout's (symbolic links), with no configuration of the checkout's. It returns
// when git has answered or ctx is done.
func (c *Checkout) UpdateRef(ctx context.Context, name, value string, old *string, msg string, who Ident) error {
	if !validRefName(name) || perWorktree(name) {
		return fmt.Errorf("updating ref %s in %s: not a ref segwi moves", name, c.Top)
	}
	// What git is about to open in the checkout: refused at once unless regular.
	for _, p := range []string{
		filepath.Join(c.Common, filepath.FromSlash(name)), filepath.Join(c.Common, "packed-refs"),
		filepath.Join(c.Common, "logs", filepath.FromSlash(name)), filepath.Join(c.Common, "logs", "HEAD"),
	} {
		if err := regularOrAbsent(p); err != nil {
			return fmt.Errorf("updating ref %s in %s: %w", name, c.Top, err)
		}
	}
	d, err := c.g.newFolder("segwi-ref-", false)
	if err != nil {
		return err
	}
	defer d.remove()
	// HEAD follows the branch, and its reflog too, only in the main worktree, whose HEAD
	// log is the common folder's.
	head := "ref: refs/heads/segwi-none\n"
	if c.HeadRef == name && c.GitDir == c.Common {
		head = "ref: " + name + "\n"
	}
	logs := c.Config.Bool("core.logallrefupdates", true)
	if err := d.mkdir("objects"); err != nil {
		return err
	}
	if err := d.write("HEAD", []byte(head)); err != nil {
		return err
	}
	links := map[string]string{"refs": "refs", "packed-refs": "packed-refs", "logs": "logs"}
	for link, target := range links {
		t := filepath.Join(c.Common, target)
		if _, err := os.Lstat(t); err != nil {
			if link == "logs" {
				logs = false
			}
			if link == "refs" {
				return fmt.Errorf("updating ref %s in %s: %w", name, c.Top, err)
			}
			continue
		}
		if err := os.Symlink(t, d.at(link)); err != nil {
			return err
		}
	}
	if c.Format != "sha1" {
		if err := d.write("config", []byte("[core]\n\trepositoryformatversion = 1\n[extensions]\n\tobjectformat = "+c.Format+"\n")); err != nil {
			return err
		}
	}
	g := c.g.With(append([]string{"GIT_DIR=" + heldGitDir(d), "GIT_ALTERNATE_OBJECT_DIRECTORIES=" + quoteAlternate(c.Objects())}, who.Env("COMMITTER")...)...).
		Config(fmt.Sprintf("core.logAllRefUpdates=%t", logs))
	g.files = []*os.File{d.f}
	g.Dir = string(filepath.Separator)
	args := []string{"update-ref", "-m", msg, name, value}
	if value == "" {
		args = []string{"update-ref", "-m", msg, "-d", name}
	}
	if old != nil {
		o := *old
		if o == "" {
			o = strings.Repeat("0", c.HashLen())
		}
		args = append(args, o)
	}
	if err := g.Run(ctx, nil, nil, args...); err != nil {
		if old != nil && ExitCode(err) > 0 {
			if now, rerr := c.Resolve(name); rerr == nil && now != *old {
				return fmt.Errorf("updating ref %s in %s: %w (from %s to %s)", name, c.Top, ErrRefMoved, Short(*old), Short(now))
			}
		}
		return fmt.Errorf("updating ref %s in %s: %w", name, c.Top, err)
	}
	return nil
}

// heldGitDir is GIT_DIR for a private folder git inherits as descriptor 3.
func heldGitDir(d *folder) string {
	if heldDir(d.f) != d.f.Name() {
		return "/proc/self/fd/3"
	}
	return d.path
}

// UpdateIndex changes the checkout's index with git as update says, under the checkout's
// index.lock: segwi takes the lock, copies the index into the repository, runs update
// with a Git whose GIT_INDEX_FILE is that copy, and puts the result in place as git would
// (write the lock, rename it over the index). git never runs in the checkout. When the lock
// is held by another git, it fails saying so. It returns when update has and ctx is done.
func (r *Repo) UpdateIndex(ctx context.Context, update func(g Git) error) error {
	index := filepath.Join(r.c.GitDir, "index")
	lockPath := index + ".lock"
	lock, err := os.OpenFile(lockPath, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o666)
	if errors.Is(err, fs.ErrExist) {
		return fmt.Errorf("%s exists: another git is working in %s; once it is done, remove it if it is left over", lockPath, r.c.Top)
	}
	if err != nil {
		return fmt.Errorf("locking the index of %s: %w", r.c.Top, err)
	}
	done := false
	defer func() {
		if !done {
			lock.Close()
			os.Remove(lockPath)
		}
	}()
	const copyName = "person-index"
	if err := CopyRegular(index, r.dir.at(copyName), maxIndex); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("copying the index of %s: %w", r.c.Top, err)
	}
	if err := update(r.Git.With("GIT_INDEX_FILE=" + r.gitPath(copyName))); err != nil {
		return err
	}
	in, err := os.Open(r.dir.at(copyName))
	if err != nil {
		return err
	}
	defer in.Close()
	if _, err := io.Copy(lock, in); err != nil {
		return fmt.Errorf("writing the index of %s: %w", r.c.Top, err)
	}
	if err := lock.Sync(); err != nil {
		return fmt.Errorf("writing the index of %s: %w", r.c.Top, err)
	}
	if err := lock.Close(); err != nil {
		return fmt.Errorf("writing the index of %s: %w", r.c.Top, err)
	}
	if err := os.Rename(lockPath, index); err != nil {
		os.Remove(lockPath)
		done = true
		return fmt.Errorf("writing the index of %s: %w", r.c.Top, err)
	}
	done = true
	return nil
}

// WithFiles returns g with files handed to git as inherited descriptors, after those it
// has: a repository's folder is 3, so the first of files is 4 then.
func (g Git) WithFiles(files ...*os.File) Git {
	g.files = append(append([]*os.File{}, g.files...), files...)
	return g
}

// Files is how many descriptors git inherits besides 0, 1 and 2.
func (g Git) Files() int { return len(g.files) }
