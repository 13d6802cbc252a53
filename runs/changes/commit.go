package changes

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/segwi/segwi/internal/lib/gitcmd"
)

// RefusalReason names why Commit made no commit, for callers that branch on it.
type RefusalReason string

// The reasons Commit refuses. Each is decided before anything is written.
const (
	NothingToCommit RefusalReason = "nothing-to-commit" // no uncommitted change of the run's
	NotDirty        RefusalReason = "not-dirty"         // Include names a file that is not among the uncommitted changes
	DirtyCut        RefusalReason = "dirty-cut"         // too many files were dirty before the run to tell them apart
	DetachedHead    RefusalReason = "detached-head"     // HEAD is not on a branch
	NoIdentity      RefusalReason = "no-identity"       // git does not know the person's name and email
	Filtered        RefusalReason = "filtered"          // a file to commit goes through a filter (git-lfs)
	NoMessage       RefusalReason = "no-message"        // the message is empty
	BranchMoved     RefusalReason = "branch-moved"      // the branch moved while segwi committed
)

// RefusedError is Commit's error when it made no commit for a reason a person can act on.
type RefusedError struct {
	Reason RefusalReason
	Msg    string // what happened and what to do
}

func (e *RefusedError) Error() string { return "commit refused: " + e.Msg }

// Is reports whether target is ErrNothingToCommit and e refuses for that reason.
func (e *RefusedError) Is(target error) bool {
	return target == ErrNothingToCommit && e.Reason == NothingToCommit
}

func refuse(reason RefusalReason, format string, args ...any) *RefusedError {
	return &RefusedError{Reason: reason, Msg: fmt.Sprintf(format, args...)}
}

// Commit commits the run's uncommitted changes since base as the person, on the branch
// HEAD is on: every file that differs between HEAD and the work tree (untracked files
// included, ignored ones not), except the files already changed before the run that
// opts.Include does not name. The person's index keeps what they staged for other files.
// It runs no hook and no program the git configuration names, and does not sign (see the
// package doc). It returns a *RefusedError when it commits nothing for a reason the person
// can act on, other errors when git failed; it returns when git has answered or ctx is done.
func Commit(ctx context.Context, g gitcmd.Git, base Base, opts CommitOptions) (Committed, error) {
	msg := cleanMessage(opts.Message)
	if msg == "" {
		return Committed{}, refuse(NoMessage, "the commit message is empty; write one")
	}
	snap, err := Take(ctx, g, base)
	if err != nil {
		return Committed{}, err
	}
	defer snap.Close()
	return snap.commit(ctx, msg, opts)
}

func (snap *Snapshot) commit(ctx context.Context, msg string, opts CommitOptions) (Committed, error) {
	c, s := snap.c, snap.s
	if c.Branch == "" {
		return Committed{}, refuse(DetachedHead, "HEAD in %s is detached (at %s), not on a branch; create one with git switch -c NAME, then commit", c.Top, gitcmd.Short(c.Head))
	}
	if snap.Base.DirtyCut() {
		return Committed{}, refuse(DirtyCut, "%d files were already changed in %s before the run, too many to tell the run's changes apart; commit them yourself with git", snap.Base.DirtyCount, c.Top)
	}
	paths, leftOut, err := snap.toCommit(opts.Include)
	if err != nil {
		return Committed{}, err
	}
	author, committer, err := c.Identity()
	if err != nil {
		return Committed{}, refuse(NoIdentity, "git does not know who you are in %s: no user.name and user.email in your git settings; set them with git config --global user.name \"Your Name\" and git config --global user.email you@example.com, then commit again", c.Top)
	}
	if err := snap.checkFilters(ctx, paths); err != nil {
		return Committed{}, err
	}

	tree, err := snap.treeWith(ctx, paths)
	if err != nil {
		return Committed{}, err
	}
	args := []string{"commit-tree", tree, "-m", msg}
	if c.Head != "" {
		args = append(args, "-p", c.Head)
	}
	var out bytes.Buffer
	if err := s.g.With(append(author.Env("AUTHOR"), committer.Env("COMMITTER")...)...).Run(ctx, nil, &out, args...); err != nil {
		return Committed{}, fmt.Errorf("making the commit: %w", err)
	}
	commit := strings.TrimSpace(out.String())
	// Only the objects the new commit needs, none the checkout has: packed in the scratch
	// repository, then copied into a pack of the checkout's own. (git renames its pack
	// into place from a temporary file in the repository it runs in, which fails across
	// file systems: a checkout on /home, the scratch on a tmpfs /tmp.)
	revs := commit + "\n"
	if c.Head != "" {
		revs += "^" + c.Head + "\n"
	}
	out.Reset()
	if err := s.run(ctx, strings.NewReader(revs), &out, "pack-objects", "--revs", "--local", "-q", s.repo.GitPath("objects/pack/pack")); err != nil {
		return Committed{}, fmt.Errorf("packing the commit's objects: %w", err)
	}
	if err := s.copyPack(strings.TrimSpace(out.String()), filepath.Join(c.Common, "objects", "pack")); err != nil {
		return Committed{}, fmt.Errorf("writing the commit's objects into %s: %w", c.Common, err)
	}
	reflog := opts.Reflog
	if reflog == "" {
		reflog = "segwi: commit"
	}
	reflog += ": " + subject(msg)
	// The branch moves only if it is still where it was read: a commit made meanwhile is
	// not lost.
	old := c.Head
	if err := c.UpdateRef(ctx, "refs/heads/"+c.Branch, commit, &old, reflog, committer); err != nil {
		if errors.Is(err, gitcmd.ErrRefMoved) {
			now, _ := c.Resolve("refs/heads/" + c.Branch)
			return Committed{}, refuse(BranchMoved, "branch %s in %s moved while segwi committed (from %s to %s), so segwi left it alone; commit again", c.Branch, c.Top, gitcmd.Short(c.Head), gitcmd.Short(now))
		}
		return Committed{}, fmt.Errorf("moving branch %s in %s to the new commit: %w", c.Branch, c.Top, err)
	}
	result := Committed{Commit: commit, Parent: c.Head, Branch: c.Branch, Subject: subject(msg), Author: author.String(), Files: paths, LeftOut: leftOut}
	// The person's index: the committed files as the new commit has them, the rest as
	// they were. No refresh: that would hash files through the configured filters.
	spec := []byte(strings.Join(paths, "\x00") + "\x00")
	if err := s.repo.UpdateIndex(ctx, func(g gitcmd.Git) error {
		return g.With("GIT_LITERAL_PATHSPECS=1").Run(ctx, bytes.NewReader(spec), nil, "reset", "--quiet", "--no-refresh", commit, "--pathspec-from-file=-", "--pathspec-file-nul")
	}); err != nil {
		result.IndexNote = fmt.Sprintf("the commit is made, but your index in %s still holds the old content of the committed files (%v); run git reset -q -- FILE... for them", c.Top, lastLine(err))
	}
	return result, nil
}

// toCommit returns the uncommitted paths to commit and those left out, or a refusal.
func (snap *Snapshot) toCommit(include []string) (paths, leftOut []string, err error) {
	for _, name := range include {
		name = filepath.ToSlash(filepath.Clean(name))
		if !slices.Contains(snap.uncommitted, name) {
			return nil, nil, refuse(NotDirty, "%s is not among the run's uncommitted changes in %s; name only files listed as already changed before the run", name, snap.c.Top)
		}
	}
	for _, p := range snap.uncommitted {
		if snap.Base.WasDirty(p) && !slices.Contains(include, p) {
			leftOut = append(leftOut, p)
			continue
		}
		paths = append(paths, p)
	}
	if len(paths) == 0 {
		if len(leftOut) > 0 {
			return nil, nil, refuse(NothingToCommit, "the only uncommitted changes in %s are to files that were already changed before the run (%s); name those you want committed", snap.c.Top, strings.Join(leftOut, ", "))
		}
		return nil, nil, refuse(NothingToCommit, "nothing to commit in %s: the run's changes are all committed", snap.c.Top)
	}
	return paths, leftOut, nil
}

// checkFilters refuses paths that .gitattributes sends through a filter: the scratch
// repository would commit them unfiltered (a git-lfs file whole instead of its pointer).
func (snap *Snapshot) checkFilters(ctx context.Context, paths []string) error {
	in := strings.Join(paths, "\x00") + "\x00"
	var out bytes.Buffer
	if err := snap.s.run(ctx, strings.NewReader(in), &out, "check-attr", "-z", "--stdin", "filter"); err != nil {
		return fmt.Errorf("reading the attributes of the files to commit: %w", err)
	}
	var filtered []string
	f := fields(out.Bytes()) // path, attribute, value, ...
	for i := 0; i+2 < len(f); i += 3 {
		if v := f[i+2]; v != "unspecified" && v != "unset" {
			filtered = append(filtered, fmt.Sprintf("%s (filter %s)", f[i], v))
		}
	}
	if len(filtered) > 0 {
		return refuse(Filtered, "%s go through a filter that .gitattributes names, which segwi does not run; commit with git yourself", strings.Join(filtered, ", "))
	}
	return nil
}

// treeWith returns the tree of HEAD with paths as the work tree has them (deleted when
// the work tree has no such file), built in an index of its own.
func (snap *Snapshot) treeWith(ctx context.Context, paths []string) (string, error) {
	s := snap.s
	g := s.g.With("GIT_INDEX_FILE=" + s.repo.GitPath("commit-index"))
	head := snap.Head
	if head == "" {
		head = s.empty
	}
	if err := g.Run(ctx, nil, nil, "read-tree", head); err != nil {
		return "", fmt.Errorf("starting the commit from HEAD: %w", err)
	}
	// The entries of paths in the work tree's tree; a path missing there is a deletion.
	now, err := snap.workTree(ctx)
	if err != nil {
		return "", err
	}
	listing, err := s.raw(ctx, "ls-tree", "-r", "-z", "--full-tree", now)
	if err != nil {
		return "", fmt.Errorf("listing the files to commit: %w", err)
	}
	present := map[string]string{}
	for _, rec := range fields(listing) {
		if meta, path, ok := strings.Cut(rec, "\t"); ok {
			present[path] = meta
		}
	}
	zero := strings.Repeat("0", len(s.empty))
	var info bytes.Buffer
	for _, p := range paths {
		if meta, ok := present[p]; ok {
			fmt.Fprintf(&info, "%s\t%s\x00", meta, p)
		} else {
			fmt.Fprintf(&info, "0 %s\t%s\x00", zero, p)
		}
	}
	if err := g.Run(ctx, &info, nil, "update-index", "-z", "--index-info"); err != nil {
		return "", fmt.Errorf("putting the files to commit in place: %w", err)
	}
	var tree bytes.Buffer
	if err := g.Run(ctx, nil, &tree, "write-tree"); err != nil {
		return "", fmt.Errorf("writing the commit's tree: %w", err)
	}
	return strings.TrimSpace(tree.String()), nil
}

// cleanMessage trims the message's trailing white space on each line and blank lines
// around it.
func cleanMessage(msg string) string {
	lines := strings.Split(strings.ReplaceAll(msg, "\r\n", "\n"), "\n")
	for i, l := range lines {
		lines[i] = strings.TrimRight(l, " \t\r")
	}
	return strings.Trim(strings.Join(lines, "\n"), "\n")
}

// subject is a message's first line.
func subject(msg string) string {
	first, _, _ := strings.Cut(msg, "\n")
	return first
}

// lastLine is the last non-empty line of err's words: what git says went wrong.
func lastLine(err error) string {
	lines := strings.Split(strings.TrimSpace(err.Error()), "\n")
	return strings.TrimSpace(lines[len(lines)-1])
}

// copyPack copies the scratch repository's pack named hash (pack-objects' output) into
// the folder to, each file through a temporary file there and a rename, the index last:
// git finds a pack by its index, which must not name a pack not whole yet.
func (s *scratch) copyPack(hash, to string) error {
	if hash == "" || strings.ContainsAny(hash, "/\\.") {
		return fmt.Errorf("git pack-objects named no pack (%q)", hash)
	}
	for _, ext := range []string{".pack", ".rev", ".idx"} {
		name := "pack-" + hash + ext
		src, err := os.Open(s.repo.Path("objects/pack/" + name))
		if errors.Is(err, fs.ErrNotExist) && ext == ".rev" {
			continue // written only where pack.writeReverseIndex is on
		}
		if err != nil {
			return err
		}
		err = copyInto(src, to, name)
		src.Close()
		if err != nil {
			return err
		}
	}
	return nil
}

// copyInto writes what src holds to the file name in the folder dir, through a temporary
// file there, read-only as git writes its packs.
func copyInto(src io.Reader, dir, name string) error {
	tmp, err := os.CreateTemp(dir, "tmp_segwi_"+name+"_")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name()) // once renamed, this removes nothing
	if _, err := io.Copy(tmp, src); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Chmod(0o444); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), filepath.Join(dir, name))
}
