package gitcmd

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"strings"
)

// maxIndex bounds the index file segwi copies from a checkout.
const maxIndex = 2 << 30

// maxInfoFile bounds an ignore, attributes or shallow file segwi copies.
const maxInfoFile = 64 << 20

// emptyTree is the empty tree's id in each object format.
var emptyTree = map[string]string{
	"sha1":   "4b825dc642cb6eb9a060e54bf8d69288fbee4904",
	"sha256": "6ef19b41225c5369f1c104d45d8d85efa9b057b53b14b4b9b939dd74decc5321",
}

// RepoOptions say what a repository NewRepo makes holds besides the borrowed objects.
type RepoOptions struct {
	// Prefix starts the name of the repository's private folder: "segwi-changes-".
	Prefix string
	// WorkTree makes the checkout's top folder the repository's work tree, starting from a
	// copy of the checkout's index (Repo.IndexCopied says whether there was one), with the
	// checkout's and the person's ignore and attribute files, copied. Such a repository
	// may hold large files hashed from the work tree: its folder is made in $TMPDIR or
	// /tmp rather than in $XDG_RUNTIME_DIR, which is small and in memory.
	WorkTree bool
	// Seal records the folder once made, so that Repo.Changed sees any later change.
	Seal bool
	// Head, when set, is the commit the repository's HEAD names (detached), so that git
	// compares with it where it compares with HEAD (git status); "" leaves HEAD on a branch
	// with no commit.
	Head string
}

// Repo is a repository segwi makes for one task on a checkout, in a private folder (see
// the package doc): its own git folder, no configuration file but the object format's,
// the checkout's objects borrowed (GIT_ALTERNATE_OBJECT_DIRECTORIES), the checkout's
// shallow file copied. Close removes it.
type Repo struct {
	// Git is git in the repository: GIT_DIR set, and with a work tree, GIT_WORK_TREE and
	// GIT_INDEX_FILE, running in the work tree's top folder.
	Git Git
	// Empty is the empty tree's id in the repository's object format.
	Empty string
	// IndexCopied says the index starts as a copy of the checkout's.
	IndexCopied bool

	c      *Checkout
	dir    *folder
	sealed *seal
}

// NewRepo makes a repository for a task on the checkout c (see Repo).
func NewRepo(ctx context.Context, c *Checkout, opts RepoOptions) (*Repo, error) {
	objects := c.Objects()
	if strings.ContainsAny(objects, "\n\r") {
		return nil, fmt.Errorf("the git folder %q of %s has a name git cannot borrow objects from", c.Common, c.Top)
	}
	// git follows the checkout's own alternates: a FIFO there would hold it up.
	if err := regularOrAbsent(filepath.Join(objects, "info", "alternates")); err != nil {
		return nil, fmt.Errorf("reading the objects of %s: %w", c.Top, err)
	}
	prefix := opts.Prefix
	if prefix == "" {
		prefix = "segwi-git-"
	}
	d, err := c.g.newFolder(prefix, opts.WorkTree)
	if err != nil {
		return nil, err
	}
	if opts.Head != "" && !c.isHash(opts.Head) {
		d.remove()
		return nil, fmt.Errorf("making a repository for %s: HEAD %q is not a commit id", c.Top, opts.Head)
	}
	r := &Repo{c: c, dir: d, Empty: emptyTree[c.Format]}
	if err := r.fill(opts); err != nil {
		r.Close()
		return nil, fmt.Errorf("making a repository for %s in %s: %w", c.Top, d.path, err)
	}
	if opts.Seal {
		s, err := d.seal()
		if err != nil {
			r.Close()
			return nil, err
		}
		r.sealed = &s
	}
	return r, nil
}

func (r *Repo) fill(opts RepoOptions) error {
	d, c := r.dir, r.c
	if err := d.mkdir("objects", "refs", "info"); err != nil {
		return err
	}
	head := "ref: refs/heads/segwi\n"
	if opts.Head != "" {
		head = opts.Head + "\n"
	}
	if err := d.write("HEAD", []byte(head)); err != nil {
		return err
	}
	if c.Format != "sha1" {
		// The object format is the one setting git takes only from the repository's file.
		if err := d.write("config", []byte("[core]\n\trepositoryformatversion = 1\n[extensions]\n\tobjectformat = "+c.Format+"\n")); err != nil {
			return err
		}
	}
	// Files git reads from the checkout's git folder: where a shallow history ends, and
	// with a work tree, what it ignores and what attributes it gives.
	copies := map[string]string{filepath.Join(c.Common, "shallow"): "shallow"}
	g := c.g.With("GIT_DIR="+r.gitPath(""), "GIT_ALTERNATE_OBJECT_DIRECTORIES="+quoteAlternate(c.Objects()))
	g.files = []*os.File{d.f}
	g.Dir = string(filepath.Separator)
	if opts.WorkTree {
		copies[filepath.Join(c.Common, "info", "exclude")] = "info/exclude"
		copies[filepath.Join(c.Common, "info", "attributes")] = "info/attributes"
		excludes, attributes := c.IgnoreFiles()
		if excludes != "" {
			copies[excludes] = "person-excludes"
		}
		if attributes != "" {
			copies[attributes] = "person-attributes"
		}
	}
	for src, rel := range copies {
		err := CopyRegular(src, d.at(rel), maxInfoFile)
		switch {
		case err == nil:
			if rel == "person-excludes" {
				g = g.Config("core.excludesFile=" + r.gitPath(rel))
			}
			if rel == "person-attributes" {
				g = g.Config("core.attributesFile=" + r.gitPath(rel))
			}
		case errors.Is(err, fs.ErrNotExist):
		default:
			return fmt.Errorf("copying %s: %w", src, err)
		}
	}
	if opts.WorkTree {
		err := CopyRegular(filepath.Join(c.GitDir, "index"), d.at("index"), maxIndex)
		switch {
		case err == nil:
			r.IndexCopied = true
		case errors.Is(err, fs.ErrNotExist):
		default:
			return fmt.Errorf("copying the index of %s: %w", c.Top, err)
		}
		// git keeps GIT_DIR as it is given only when it starts in the work tree's top.
		g = g.With("GIT_WORK_TREE="+c.Top, "GIT_INDEX_FILE="+r.gitPath("index")).Config(c.Settings()...)
		g.Dir = c.Top
	}
	r.Git = g
	return nil
}

// gitPath is the name git is given for rel in the repository: through the descriptor git
// inherits as 3 on Linux, the folder's path elsewhere.
func (r *Repo) gitPath(rel string) string {
	base := r.dir.path
	if runtime.GOOS == "linux" {
		base = "/proc/self/fd/3"
	}
	if rel == "" {
		return base
	}
	return base + "/" + rel
}

// GitPath is the name to give git for the file rel in the repository's folder (an index
// of its own: GIT_INDEX_FILE=GitPath("commit-index")).
func (r *Repo) GitPath(rel string) string { return r.gitPath(rel) }

// Path is the name for this process of the file rel in the repository's folder, through
// the descriptor held open on it.
func (r *Repo) Path(rel string) string { return r.dir.at(rel) }

// Index reads the entries of the repository's index (RepoOptions.WorkTree), the copy of
// the checkout's, as data (ParseIndex), without git; its error wraps ErrIndexUnread for an
// index that only git reads.
func (r *Repo) Index() ([]IndexEntry, error) {
	if !r.IndexCopied {
		return nil, fmt.Errorf("%w: the repository has no copy of the index of %s", ErrIndexUnread, r.c.Top)
	}
	b, err := ReadRegular(r.dir.at("index"), maxIndex)
	if err != nil {
		return nil, fmt.Errorf("reading the index of %s: %w", r.c.Top, err)
	}
	return ParseIndex(b, r.c.Format)
}

// Changed reports, as an error saying what changed, whether anything has altered the
// repository's folder since it was sealed (RepoOptions.Seal); nil when nothing did.
func (r *Repo) Changed() error {
	if r.sealed == nil {
		return errors.New("the repository was not sealed")
	}
	return r.dir.check(*r.sealed)
}

// Close removes the repository.
func (r *Repo) Close() {
	if r != nil {
		r.dir.remove()
	}
}

// quoteAlternate quotes a folder for GIT_ALTERNATE_OBJECT_DIRECTORIES, whose entries a
// colon separates: one holding a colon or starting with a quote is written C-quoted.
func quoteAlternate(p string) string {
	if !strings.ContainsAny(p, ":\"\\") {
		return p
	}
	return `"` + strings.NewReplacer(`\`, `\\`, `"`, `\"`).Replace(p) + `"`
}
