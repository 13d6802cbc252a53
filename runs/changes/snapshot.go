package changes

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/segwi/segwi/internal/lib/gitcmd"
)

// ErrNoBase is wrapped by Take's and Commit's errors for a run whose base is not known: its
// checkout was not a git work tree when it started, or an older segwi recorded it.
var ErrNoBase = errors.New("no base recorded")

// MaxCommits bounds the commits a Snapshot lists.
const MaxCommits = 100

// Snapshot is a run's changes at one moment: everything from its base to the work tree,
// commits included. Close it when done: it holds a scratch repository.
type Snapshot struct {
	Base   Base
	Branch string // the branch HEAD is on now, short name; "" when detached
	Head   string // HEAD's commit now; "" when the branch has no commit yet
	// Files are the files changed since the base, in git's order.
	Files []File
	// Commits are the commits made since the base, newest first, at most MaxCommits;
	// MoreCommits says there were more.
	Commits     []CommitRef
	MoreCommits bool

	g           gitcmd.Git
	c           *gitcmd.Checkout
	s           *scratch
	began       time.Time // when the reading began: a change since may not be in it
	from        string    // the base's commit (the empty tree for an unborn branch)
	now         string    // the work tree's tree, once hashed (workTree); "" before
	uncommitted []string  // the paths that differ between HEAD and the work tree, sorted
}

// Take reads the changes of a run whose base is base (see the package doc): the files
// changed, with their line counts, and the commits made since. It hashes no file into the
// scratch repository: git compares the work tree with the base through a copy of the
// checkout's index, reading a file only where its stat data changed. It returns when git
// has answered or ctx is done. Errors wrap ErrNoBase for an unknown base and ErrNotGit for
// a checkout that is no longer a git work tree.
func Take(ctx context.Context, g gitcmd.Git, base Base) (*Snapshot, error) {
	snap, err := prepare(ctx, g, base)
	if err != nil {
		return nil, err
	}
	if err := snap.list(ctx); err != nil {
		snap.Close()
		return nil, err
	}
	return snap, nil
}

// Diff returns the unified diff of the changes since base, without listing them first:
// of every changed file, or of f alone (a File an earlier Take listed: its path, and
// where it was when renamed). The diff is cut at maxBytes (DefaultMaxDiffBytes when zero
// or less), and git stopped there. It costs git about what git diff costs on the same
// changes; Take and then Snapshot.Diff also count every file's lines. It returns when git
// has answered or ctx is done; its errors are Take's.
func Diff(ctx context.Context, g gitcmd.Git, base Base, f *File, maxBytes int) (Patch, error) {
	snap, err := prepare(ctx, g, base)
	if err != nil {
		return Patch{}, err
	}
	defer snap.Close()
	return snap.diff(ctx, filePaths(f), maxBytes)
}

// WriteDiff is Diff written to w as git prints it, whole: of every changed file, or of f
// alone. An error of w's stops git and is returned (wrapped when it is git's own).
func WriteDiff(ctx context.Context, g gitcmd.Git, base Base, f *File, w io.Writer) error {
	snap, err := prepare(ctx, g, base)
	if err != nil {
		return err
	}
	defer snap.Close()
	return snap.writeDiff(ctx, filePaths(f), w)
}

// filePaths are the paths of the changed file f (nil for every file): where it is, and
// where it was when renamed.
func filePaths(f *File) []string {
	if f == nil {
		return nil
	}
	if f.OldPath != "" {
		return []string{f.Path, f.OldPath}
	}
	return []string{f.Path}
}

// prepare makes the scratch repository for base's checkout, with its index in line with
// the work tree: the untracked files named (addUntracked) and the stat data refreshed.
func prepare(ctx context.Context, g gitcmd.Git, base Base) (*Snapshot, error) {
	if !base.Known() {
		why := base.Error
		if why == "" {
			why = "the run was recorded by a segwi that did not record bases"
		}
		return nil, fmt.Errorf("%w: %s", ErrNoBase, why)
	}
	began := time.Now()
	c, err := openCheckout(ctx, g, base.Repo)
	if err != nil {
		return nil, err
	}
	s, err := newScratch(ctx, c)
	if err != nil {
		return nil, err
	}
	snap := &Snapshot{Base: base, Branch: c.Branch, Head: c.Head, g: g, c: c, s: s, began: began, from: base.Commit}
	if err := snap.prepare(ctx); err != nil {
		s.close()
		return nil, err
	}
	return snap, nil
}

func (snap *Snapshot) prepare(ctx context.Context) error {
	s := snap.s
	if snap.from == "" {
		snap.from = s.empty
	} else if _, err := s.output(ctx, "cat-file", "-e", snap.from+"^{commit}"); err != nil {
		return fmt.Errorf("the run's base commit %s is no longer in %s (was its history rewritten?): %w", gitcmd.Short(snap.from), snap.c.Top, err)
	}
	if err := s.addUntracked(ctx); err != nil {
		return err
	}
	return s.refresh(ctx)
}

// Close removes the snapshot's scratch repository. Its fields stay readable.
func (snap *Snapshot) Close() {
	snap.s.close()
	snap.s = nil
}

// list reads the changed files, their line counts, what of them is not committed, and the
// commits made since the base.
func (snap *Snapshot) list(ctx context.Context) error {
	s := snap.s
	out, err := s.raw(ctx, "diff-index", "-z", "-M", "--raw", "--numstat", "--no-ext-diff", "--no-textconv", snap.from)
	if err != nil {
		return fmt.Errorf("comparing %s with the run's base: %w", snap.c.Top, err)
	}
	if snap.Files, err = parseListing(out); err != nil {
		return fmt.Errorf("reading git's list of changes in %s: %w", snap.c.Top, err)
	}
	if snap.Head == snap.Base.Commit {
		// Nothing committed since the base: every change is in the work tree.
		for _, f := range snap.Files {
			snap.uncommitted = append(snap.uncommitted, f.Path)
			if f.OldPath != "" {
				snap.uncommitted = append(snap.uncommitted, f.OldPath)
			}
		}
		slices.Sort(snap.uncommitted)
	} else {
		head := snap.Head
		if head == "" {
			head = s.empty
		}
		open, err := s.raw(ctx, "diff-index", "-z", "--no-renames", "--name-only", head)
		if err != nil {
			return fmt.Errorf("listing the uncommitted changes in %s: %w", snap.c.Top, err)
		}
		snap.uncommitted = fields(open)
	}
	for i := range snap.Files {
		f := &snap.Files[i]
		f.Uncommitted = snap.isUncommitted(f.Path) || (f.OldPath != "" && snap.isUncommitted(f.OldPath))
		f.DirtyAtBase = snap.Base.WasDirty(f.Path) || (f.OldPath != "" && snap.Base.WasDirty(f.OldPath))
	}
	return snap.readCommits(ctx)
}

// isUncommitted reports whether path differs between HEAD and the work tree.
func (snap *Snapshot) isUncommitted(path string) bool {
	_, found := slices.BinarySearch(snap.uncommitted, path)
	return found
}

// workTree returns the tree of the work tree as it is now, hashing its changed files into
// the scratch repository the first time: what a commit is made of.
func (snap *Snapshot) workTree(ctx context.Context) (string, error) {
	if snap.now == "" {
		now, err := snap.s.workTree(ctx)
		if err != nil {
			return "", err
		}
		snap.now = now
	}
	return snap.now, nil
}

// readCommits lists the commits made since the base.
func (snap *Snapshot) readCommits(ctx context.Context) error {
	if snap.Head == "" || snap.Head == snap.Base.Commit {
		return nil
	}
	args := []string{"log", "-z", "--no-show-signature", "--format=%H %s", "--max-count=" + strconv.Itoa(MaxCommits+1), snap.Head}
	if snap.Base.Commit != "" {
		args = append(args, "^"+snap.Base.Commit)
	}
	out, err := snap.s.raw(ctx, args...)
	if err != nil {
		return fmt.Errorf("listing the commits made since the run's base in %s: %w", snap.c.Top, err)
	}
	for _, rec := range fields(out) {
		hash, subject, _ := strings.Cut(rec, " ")
		if len(snap.Commits) == MaxCommits {
			snap.MoreCommits = true
			break
		}
		snap.Commits = append(snap.Commits, CommitRef{Hash: strings.TrimSpace(hash), Subject: subject})
	}
	return nil
}

// File returns the changed file at path (its new path, or a renamed file's old one).
func (snap *Snapshot) File(path string) (File, bool) {
	for _, f := range snap.Files {
		if f.Path == path || f.OldPath == path {
			return f, true
		}
	}
	return File{}, false
}

// Stat returns how many files changed and how many lines were added and deleted in all.
func (snap *Snapshot) Stat() (files, added, deleted int) {
	for _, f := range snap.Files {
		added += f.Added
		deleted += f.Deleted
	}
	return len(snap.Files), added, deleted
}

// parseListing reads git diff's -z --raw --numstat output: every raw record
// (":MODE MODE OBJECT OBJECT STATUS\0PATH\0", a rename or copy with a second path), then
// the line counts in the same order.
func parseListing(out []byte) ([]File, error) {
	tok := fields(out)
	var statuses []string
	i := 0
	for i < len(tok) && strings.HasPrefix(tok[i], ":") {
		meta := strings.Fields(tok[i])
		if len(meta) != 5 || i+1 >= len(tok) {
			return nil, fmt.Errorf("a change without a path: %q", tok[i])
		}
		statuses = append(statuses, meta[4], tok[i+1])
		i += 2
		if c := meta[4][0]; c == 'R' || c == 'C' {
			if i >= len(tok) {
				return nil, fmt.Errorf("a rename without its new path: %q", tok[i-1])
			}
			statuses = append(statuses, tok[i])
			i++
		}
	}
	return parseFiles(statuses, tok[i:])
}

// parseFiles reads the statuses and paths of git's -z --name-status output and its
// -z --numstat output, in the same order, as fields.
func parseFiles(st, nc []string) ([]File, error) {
	var files []File
	for i := 0; i < len(st); i++ {
		code := st[i]
		if code == "" || i+1 >= len(st) {
			return nil, fmt.Errorf("a status without a path: %q", code)
		}
		f := File{Path: st[i+1]}
		i++
		switch code[0] {
		case 'A':
			f.Status = Added
		case 'D':
			f.Status = Deleted
		case 'T':
			f.Status = TypeChanged
		case 'R', 'C':
			if i+1 >= len(st) {
				return nil, fmt.Errorf("a rename without its new path: %q", f.Path)
			}
			f.OldPath, f.Path, f.Status = f.Path, st[i+1], Renamed
			i++
			if code[0] == 'C' {
				f.OldPath, f.Status = "", Added // a copy is a new file
			}
		default:
			f.Status = Modified
		}
		files = append(files, f)
	}
	// --numstat -z: "ADDED\tDELETED\tPATH\0", or for a rename "ADDED\tDELETED\t\0OLD\0NEW\0";
	// a file that turned out unchanged (touched since the index was refreshed) has none.
	at := make(map[string]int, len(files))
	for k, f := range files {
		at[f.Path] = k
	}
	for i := 0; i < len(nc); i++ {
		parts := strings.SplitN(nc[i], "\t", 3)
		if len(parts) != 3 {
			return nil, fmt.Errorf("a line count %q", nc[i])
		}
		path := parts[2]
		if path == "" { // a rename: the old path, then the new
			if i+2 >= len(nc) {
				return nil, fmt.Errorf("a line count of a rename without its paths: %q", nc[i])
			}
			path = nc[i+2]
			i += 2
		}
		k, ok := at[path]
		if !ok {
			return nil, fmt.Errorf("a line count of %q, which is not among the changes", path)
		}
		if parts[0] == "-" {
			files[k].Binary = true
			continue
		}
		files[k].Added, _ = strconv.Atoi(parts[0])
		files[k].Deleted, _ = strconv.Atoi(parts[1])
	}
	return files, nil
}

// fields splits git's NUL-separated output.
func fields(b []byte) []string {
	var out []string
	for _, f := range bytes.Split(b, []byte{0}) {
		if len(f) > 0 {
			out = append(out, string(f))
		}
	}
	return out
}
