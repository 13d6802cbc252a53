package gitcmd

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// ErrNotGit is wrapped by the errors about a folder that is not in a git work tree.
var ErrNotGit = errors.New("not a git checkout")

// maxSmallFile bounds the small files of a git folder segwi reads: HEAD, a loose ref, a
// .git file, commondir.
const maxSmallFile = 64 << 10

// Checkout is a git work tree as segwi reads it: by reading its files as data, never by
// running git there. See the package doc.
type Checkout struct {
	Top    string // the work tree's top folder, absolute, symbolic links resolved
	GitDir string // its git folder (a linked worktree has its own), absolute
	Common string // the git folder holding the objects and refs, absolute
	Format string // the object format: sha1 or sha256
	// HeadRef is the ref HEAD points at ("refs/heads/main"); "" when HEAD is detached.
	HeadRef string
	// Branch is HeadRef's short name when it is a branch; "" otherwise.
	Branch string
	// Head is HEAD's commit; "" when its branch has no commit yet.
	Head string
	// Config is the configuration that applies in the checkout: the system's, the
	// person's, the checkout's own, in that order, includes followed, read as data.
	Config Config

	g Git
}

// Open reads where the checkout that holds dir stands, from its files: git does not run
// there, and no program its configuration names runs. Its errors wrap ErrNotGit when dir
// is not in a git work tree. It returns when the configuration files have been parsed or
// ctx is done.
func (g Git) Open(ctx context.Context, dir string) (*Checkout, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, fmt.Errorf("reading the checkout %s: %w", dir, err)
	}
	real, err := filepath.EvalSymlinks(abs)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil, fmt.Errorf("%s is %w: it does not exist", dir, ErrNotGit)
		}
		return nil, fmt.Errorf("reading the checkout %s: %w", dir, err)
	}
	c := &Checkout{g: g}
	if err := c.discover(real); err != nil {
		return nil, err
	}
	if err := c.readConfig(ctx); err != nil {
		return nil, err
	}
	if err := c.readHead(); err != nil {
		return nil, err
	}
	return c, nil
}

// discover finds the work tree holding dir as git does: the nearest folder upwards that
// has a .git folder, or a .git file naming one, holding a HEAD.
func (c *Checkout) discover(dir string) error {
	start, err := os.Stat(dir)
	if err != nil {
		return fmt.Errorf("reading the checkout %s: %w", dir, err)
	}
	for d := dir; ; {
		gitDir, err := gitDirAt(d)
		if err != nil {
			return err
		}
		if gitDir != "" {
			if inside(dir, gitDir) {
				return fmt.Errorf("%s is %w: it is inside the git folder %s, not in a work tree", dir, ErrNotGit, gitDir)
			}
			c.Top, c.GitDir = d, gitDir
			break
		}
		parent := filepath.Dir(d)
		if parent == d {
			return fmt.Errorf("%s is %w: no folder above it holds a .git", dir, ErrNotGit)
		}
		// git stops at a file system's edge, as segwi does.
		if st, err := os.Stat(parent); err != nil || !sameDevice(st, start) {
			return fmt.Errorf("%s is %w: no folder above it on its file system holds a .git", dir, ErrNotGit)
		}
		d = parent
	}
	c.Common = c.GitDir
	b, err := ReadRegular(filepath.Join(c.GitDir, "commondir"), maxSmallFile)
	switch {
	case err == nil:
		common := strings.TrimSpace(string(b))
		if !filepath.IsAbs(common) {
			common = filepath.Join(c.GitDir, common)
		}
		c.Common = filepath.Clean(common)
	case !errors.Is(err, fs.ErrNotExist):
		return fmt.Errorf("reading the git folder of %s: %w", c.Top, err)
	}
	return nil
}

// gitDirAt returns the git folder d/.git is or names, "" when d has none.
func gitDirAt(d string) (string, error) {
	dotGit := filepath.Join(d, ".git")
	st, err := os.Stat(dotGit)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return "", nil
	case err != nil:
		return "", fmt.Errorf("reading %s: %w", dotGit, err)
	case st.IsDir():
		if isGitDir(dotGit) {
			return dotGit, nil
		}
		return "", nil
	}
	b, err := ReadRegular(dotGit, maxSmallFile)
	if err != nil {
		return "", fmt.Errorf("reading %s: %w", dotGit, err)
	}
	target, ok := strings.CutPrefix(strings.TrimSpace(string(b)), "gitdir:")
	if !ok {
		return "", fmt.Errorf("%s is %w: its .git file does not name a git folder", d, ErrNotGit)
	}
	target = strings.TrimSpace(target)
	if !filepath.IsAbs(target) {
		target = filepath.Join(d, target)
	}
	if !isGitDir(target) {
		return "", fmt.Errorf("%s is %w: its .git file names %s, which is not a git folder", d, ErrNotGit, target)
	}
	return filepath.Clean(target), nil
}

// isGitDir reports whether dir looks like a git folder: a HEAD, and objects or a
// commondir.
func isGitDir(dir string) bool {
	if st, err := os.Stat(filepath.Join(dir, "HEAD")); err != nil || st.IsDir() {
		return false
	}
	if _, err := os.Stat(filepath.Join(dir, "commondir")); err == nil {
		return true
	}
	st, err := os.Stat(filepath.Join(dir, "objects"))
	return err == nil && st.IsDir()
}

// inside reports whether path is dir or under it.
func inside(path, dir string) bool {
	rel, err := filepath.Rel(dir, path)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator))
}

// readConfig reads the configuration that applies in the checkout, as git would read it,
// and the repository format it declares.
func (c *Checkout) readConfig(ctx context.Context) error {
	home := c.g.Person("HOME")
	ic := includeContext{gitDir: c.GitDir, home: home}
	// The branch decides onbranch: includes; HEAD is read once more after.
	if b, err := ReadRegular(filepath.Join(c.GitDir, "HEAD"), maxSmallFile); err == nil {
		if ref, ok := strings.CutPrefix(strings.TrimSpace(string(b)), "ref:"); ok {
			ic.branch = strings.TrimPrefix(strings.TrimSpace(ref), "refs/heads/")
		}
	}
	var files []string
	if v := c.g.Person("GIT_CONFIG_NOSYSTEM"); v == "" || v == "0" || strings.EqualFold(v, "false") {
		system := c.g.Person("GIT_CONFIG_SYSTEM")
		if system == "" {
			system = "/etc/gitconfig"
		}
		files = append(files, system)
	}
	if global := c.g.Person("GIT_CONFIG_GLOBAL"); global != "" {
		files = append(files, global)
	} else {
		xdg := c.g.Person("XDG_CONFIG_HOME")
		if xdg == "" && home != "" {
			xdg = filepath.Join(home, ".config")
		}
		if xdg != "" {
			files = append(files, filepath.Join(xdg, "git", "config"))
		}
		if home != "" {
			files = append(files, filepath.Join(home, ".gitconfig"))
		}
	}
	for _, f := range files {
		if f == os.DevNull {
			continue
		}
		if err := c.g.readConfigFile(ctx, &c.Config, f, ic, 0); err != nil {
			return fmt.Errorf("reading the git settings of %s: %w", c.Top, err)
		}
	}
	// Only the person's own settings may say that a folder of someone else's is safe.
	safe := c.Config.All("safe.directory")
	for _, p := range []string{c.Top, c.GitDir, c.Common} {
		if err := checkOwner(p, safe, home); err != nil {
			return err
		}
	}
	if err := c.g.readConfigFile(ctx, &c.Config, filepath.Join(c.Common, "config"), ic, 0); err != nil {
		return fmt.Errorf("reading the git settings of %s: %w", c.Top, err)
	}
	// The repository's own settings decide its format, and a worktree's own file.
	var local Config
	if err := c.g.readConfigFile(ctx, &local, filepath.Join(c.Common, "config"), includeContext{skip: true}, 0); err != nil {
		return fmt.Errorf("reading the git settings of %s: %w", c.Top, err)
	}
	c.Format = "sha1"
	if v, _ := local.Get("core.repositoryformatversion"); v == "1" {
		if f, ok := local.Get("extensions.objectformat"); ok {
			c.Format = strings.ToLower(f)
		}
		if s, ok := local.Get("extensions.refstorage"); ok && !strings.EqualFold(s, "files") {
			return fmt.Errorf("the refs of %s are stored as %s, which segwi cannot read yet; commit and push with git yourself", c.Top, s)
		}
		if local.Bool("extensions.worktreeconfig", false) {
			if err := c.g.readConfigFile(ctx, &c.Config, filepath.Join(c.GitDir, "config.worktree"), ic, 0); err != nil {
				return fmt.Errorf("reading the git settings of %s: %w", c.Top, err)
			}
		}
	}
	if c.Format != "sha1" && c.Format != "sha256" {
		return fmt.Errorf("%s uses the object format %q, which segwi does not know", c.Top, c.Format)
	}
	if c.Config.Bool("core.bare", false) {
		return fmt.Errorf("%s is %w: its repository is bare (core.bare), with no work tree", c.Top, ErrNotGit)
	}
	if wt, ok := c.Config.Get("core.worktree"); ok && wt != "" {
		wt = expandPath(wt, c.GitDir, home)
		if real, err := filepath.EvalSymlinks(wt); err != nil || real != c.Top {
			return fmt.Errorf("the git folder of %s sets its work tree elsewhere (core.worktree = %s), which segwi does not follow; work in that folder", c.Top, wt)
		}
	}
	return nil
}

// readHead reads HEAD: the branch it points at and that branch's commit.
func (c *Checkout) readHead() error {
	b, err := ReadRegular(filepath.Join(c.GitDir, "HEAD"), maxSmallFile)
	if err != nil {
		return fmt.Errorf("reading HEAD of %s: %w", c.Top, err)
	}
	head := strings.TrimSpace(string(b))
	if ref, ok := strings.CutPrefix(head, "ref:"); ok {
		c.HeadRef = strings.TrimSpace(ref)
		if !validRefName(c.HeadRef) {
			return fmt.Errorf("HEAD of %s points at %q, which is not a ref name", c.Top, c.HeadRef)
		}
		if b, ok := strings.CutPrefix(c.HeadRef, "refs/heads/"); ok {
			c.Branch = b
		}
		c.Head, err = c.Resolve(c.HeadRef)
		if err != nil {
			return err
		}
		return nil
	}
	if !c.isHash(head) {
		return fmt.Errorf("HEAD of %s holds %q, which is neither a ref nor a commit", c.Top, head)
	}
	c.Head = head
	return nil
}

// Objects is the folder of the checkout's objects.
func (c *Checkout) Objects() string { return filepath.Join(c.Common, "objects") }

// HashLen is the length of an object id in hex in the checkout's format.
func (c *Checkout) HashLen() int {
	if c.Format == "sha256" {
		return 64
	}
	return 40
}

func (c *Checkout) isHash(s string) bool {
	if len(s) != c.HashLen() {
		return false
	}
	for _, r := range s {
		if !('0' <= r && r <= '9' || 'a' <= r && r <= 'f') {
			return false
		}
	}
	return true
}

// Settings returns the plain settings of the checkout that decide what git sees in its
// work tree (line endings, file modes, case, its ignore and attribute files), as
// "key=value" for Git.Config. None names a program. The files named by
// core.excludesFile and core.attributesFile are left out: NewRepo copies them.
func (c *Checkout) Settings() []string {
	var out []string
	for _, key := range []string{"core.autocrlf", "core.eol", "core.ignorecase", "core.precomposeunicode", "core.filemode", "core.symlinks", "core.checkroundtripencoding"} {
		if v, ok := c.Config.Get(key); ok {
			out = append(out, key+"="+v)
		}
	}
	return out
}

// IgnoreFiles returns the person's ignore and attributes files, as git would find them
// (core.excludesFile, core.attributesFile, or ~/.config/git/ignore and attributes).
func (c *Checkout) IgnoreFiles() (excludes, attributes string) {
	home := c.g.Person("HOME")
	xdg := c.g.Person("XDG_CONFIG_HOME")
	if xdg == "" && home != "" {
		xdg = filepath.Join(home, ".config")
	}
	pick := func(key, name string) string {
		if v, ok := c.Config.Get(key); ok {
			if v == "" {
				return ""
			}
			return expandPath(v, c.Top, home)
		}
		if xdg == "" {
			return ""
		}
		return filepath.Join(xdg, "git", name)
	}
	return pick("core.excludesfile", "ignore"), pick("core.attributesfile", "attributes")
}

// checkOwner refuses a folder owned by someone else, as git does (CVE-2022-24765), unless
// the person's own configuration lists it in safe.directory (safe, in order; an empty
// value clears the list, * allows every folder).
func checkOwner(path string, safe []string, home string) error {
	if ownedBySelf(path) {
		return nil
	}
	allowed := false
	for _, s := range safe {
		switch {
		case s == "":
			allowed = false
		case s == "*":
			allowed = true
		case strings.HasSuffix(s, "/*"):
			allowed = allowed || inside(path, expandPath(strings.TrimSuffix(s, "/*"), "/", home))
		default:
			allowed = allowed || filepath.Clean(expandPath(s, "/", home)) == path
		}
	}
	if allowed {
		return nil
	}
	return fmt.Errorf("%s is owned by another user, so segwi does not read it as your checkout; if it is yours to use, add it to safe.directory in your git settings", path)
}
