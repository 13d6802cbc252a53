package gitcmd

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// maxPackedRefs bounds the packed-refs file segwi scans.
const maxPackedRefs = 1 << 30

// maxSymrefDepth is how many symbolic refs Resolve follows, as git does.
const maxSymrefDepth = 5

// Resolve returns the object a ref ("refs/heads/main", "HEAD") names, following symbolic
// refs, read from the checkout's loose refs and packed-refs: "" when there is no such ref
// (an unborn branch).
func (c *Checkout) Resolve(name string) (string, error) {
	for range maxSymrefDepth {
		target, value, err := c.readRef(name)
		if err != nil || value != "" || target == "" {
			return value, err
		}
		name = target
	}
	return "", fmt.Errorf("reading ref %s in %s: symbolic refs nest deeper than %d", name, c.Top, maxSymrefDepth)
}

// Symref returns the ref that the symbolic ref name points at ("refs/remotes/origin/main"
// for "refs/remotes/origin/HEAD"), "" when name is no symbolic ref.
func (c *Checkout) Symref(name string) (string, error) {
	target, _, err := c.readRef(name)
	return target, err
}

// readRef reads one ref: the ref it points at when it is symbolic, else its value; both
// "" when it does not exist.
func (c *Checkout) readRef(name string) (target, value string, err error) {
	if name != "HEAD" && !validRefName(name) {
		return "", "", fmt.Errorf("reading ref %q in %s: not a ref name", name, c.Top)
	}
	dir := c.Common
	if perWorktree(name) {
		dir = c.GitDir
	}
	b, err := ReadRegular(filepath.Join(dir, filepath.FromSlash(name)), maxSmallFile)
	switch {
	case err == nil:
		s := strings.TrimSpace(string(b))
		if t, ok := strings.CutPrefix(s, "ref:"); ok {
			t = strings.TrimSpace(t)
			if !validRefName(t) {
				return "", "", fmt.Errorf("ref %s in %s points at %q, which is not a ref name", name, c.Top, t)
			}
			return t, "", nil
		}
		if !c.isHash(s) {
			return "", "", fmt.Errorf("ref %s in %s holds %q, which is not an object id", name, c.Top, s)
		}
		return "", s, nil
	case errors.Is(err, fs.ErrNotExist) || errors.Is(err, errNotDir):
	default:
		// A folder where a ref would be (refs/heads/a when refs/heads/a/b exists) is no
		// ref; anything else that is not a regular file is refused.
		if st, serr := os.Stat(filepath.Join(dir, filepath.FromSlash(name))); serr != nil || !st.IsDir() {
			return "", "", fmt.Errorf("reading ref %s in %s: %w", name, c.Top, err)
		}
	}
	if perWorktree(name) {
		return "", "", nil
	}
	value, err = c.packedRef(name)
	return "", value, err
}

// packedRef looks name up in the checkout's packed-refs file.
func (c *Checkout) packedRef(name string) (string, error) {
	path := filepath.Join(c.Common, "packed-refs")
	f, _, err := openRegular(path, maxPackedRefs)
	if errors.Is(err, fs.ErrNotExist) {
		return "", nil
	}
	if err != nil {
		return "", fmt.Errorf("reading the refs of %s: %w", c.Top, err)
	}
	defer f.Close()
	r := bufio.NewReader(io.LimitReader(f, maxPackedRefs))
	for {
		line, err := r.ReadString('\n')
		if hash, ref, ok := strings.Cut(strings.TrimRight(line, "\r\n"), " "); ok && ref == name && c.isHash(hash) {
			return hash, nil
		}
		if err == io.EOF {
			return "", nil
		}
		if err != nil {
			return "", fmt.Errorf("reading the refs of %s: %w", c.Top, err)
		}
	}
}

// perWorktree reports whether a ref lives in a worktree's own git folder, not the common
// one.
func perWorktree(name string) bool {
	if name == "HEAD" {
		return true
	}
	for _, p := range []string{"refs/bisect/", "refs/worktree/", "refs/rewritten/"} {
		if strings.HasPrefix(name, p) {
			return true
		}
	}
	return false
}

// validRefName reports whether name is a full ref name git would accept
// (git check-ref-format), which also keeps it inside the git folder.
func validRefName(name string) bool {
	if !strings.HasPrefix(name, "refs/") || strings.HasSuffix(name, "/") || strings.HasSuffix(name, ".") ||
		strings.Contains(name, "..") || strings.Contains(name, "//") || strings.Contains(name, "@{") || name == "@" {
		return false
	}
	for _, part := range strings.Split(name, "/") {
		if part == "" || strings.HasPrefix(part, ".") || strings.HasSuffix(part, ".lock") {
			return false
		}
	}
	for _, r := range name {
		if r < 0x20 || r == 0x7f || strings.ContainsRune(" ~^:?*[\\", r) {
			return false
		}
	}
	return true
}

// GitlinkHead reads the commit a nested repository or submodule at dir has checked out,
// from its files, as an opaque gitlink: no git runs there, none of its configuration is
// read. isRepo is false when dir holds no repository; commit is "" when its HEAD has no
// commit yet.
func GitlinkHead(dir, format string) (commit string, isRepo bool, err error) {
	gitDir, err := gitDirAt(dir)
	if err != nil || gitDir == "" {
		if errors.Is(err, ErrNotGit) {
			err = nil
		}
		return "", false, err
	}
	c := &Checkout{Top: dir, GitDir: gitDir, Common: gitDir, Format: format}
	if b, err := ReadRegular(filepath.Join(gitDir, "commondir"), maxSmallFile); err == nil {
		common := strings.TrimSpace(string(b))
		if !filepath.IsAbs(common) {
			common = filepath.Join(gitDir, common)
		}
		c.Common = filepath.Clean(common)
	}
	if err := c.readHead(); err != nil {
		return "", true, err
	}
	return c.Head, true, nil
}
