package changes

import (
	"context"
	"crypto/sha256"
	"encoding/binary"
	"errors"
	"fmt"
	"hash"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/segwi/segwi/internal/lib/gitcmd"
)

// Stamp is how a checkout stood when a Snapshot read it, kept to tell cheaply, without
// git, whether what a reading of its changes sees has changed since: HEAD, the settings and
// ignore files segwi gives git, the stat data (identity, size, modification and change
// times, mode) of the index and of every file and folder of the work tree, except what is
// inside a folder git ignores whole (node_modules/, build/), and the commit of each nested
// repository. A file's change time is set by the kernel on every change and no program
// can set it back, so a change of content shows even when size and modification time are
// kept.
//
// A change made while the snapshot was read, or so little before that the file system's
// clock had not moved since, cannot be told from a later one: the stamp is then racy, and
// Unchanged says false (the next reading takes a new snapshot and a new stamp).
type Stamp struct {
	g     gitcmd.Git
	top   string
	since time.Time       // when the snapshot began reading
	prune map[string]bool // the folders git ignores whole, relative, not walked
	sum   [sha256.Size]byte
	racy  bool
}

// racyWindow is how long before a reading a change makes the stamp racy: more than the
// tick of the kernel's coarse clock, which stamps changes on Linux file systems (1 to
// 10 ms). A file system whose times have no fraction of a second (FAT, some network ones)
// gets racyWindowCoarse.
const (
	racyWindow       = 50 * time.Millisecond
	racyWindowCoarse = 2 * time.Second
)

// ErrNoStamp is returned by Snapshot.Stamp on a system that gives no change time to stamp
// a checkout with: every look at the changes reads them with git.
var ErrNoStamp = errors.New("this system gives no change time to stamp a checkout with")

// Stamp stamps the checkout as it stands now (see Stamp): git lists the folders it ignores
// whole, then the work tree is walked. Taken after the snapshot's reading, it is racy when
// anything changed since the reading began. It returns when git has answered and the work
// tree has been walked, or ctx is done.
func (snap *Snapshot) Stamp(ctx context.Context) (Stamp, error) {
	if !canStamp {
		return Stamp{}, ErrNoStamp
	}
	if snap.s == nil {
		return Stamp{}, errors.New("changes: Stamp of a closed snapshot")
	}
	out, err := snap.s.raw(ctx, "ls-files", "-z", "--others", "--ignored", "--exclude-standard", "--directory")
	if err != nil {
		return Stamp{}, fmt.Errorf("listing the folders git ignores in %s: %w", snap.c.Top, err)
	}
	prune := map[string]bool{}
	for _, p := range fields(out) {
		if dir, ok := strings.CutSuffix(p, "/"); ok {
			prune[dir] = true
		}
	}
	return stampOf(ctx, snap.g, snap.c, snap.began, prune)
}

// stampOf stamps the checkout c as it stands now, a reading of it having begun at since,
// not walking the folders in prune (relative paths), which git ignores whole.
func stampOf(ctx context.Context, g gitcmd.Git, c *gitcmd.Checkout, since time.Time, prune map[string]bool) (Stamp, error) {
	st := Stamp{g: g, top: c.Top, since: since, prune: prune}
	w, err := st.walk(ctx, c)
	if err != nil {
		return Stamp{}, err
	}
	st.sum, st.racy = w.sum(), w.racy
	return st, nil
}

// Unchanged reports whether the checkout still stands as it did when s was taken, so that
// a reading of its changes now would see what the snapshot saw: false when anything it
// sees may have changed, when s is racy, or when s is the zero Stamp. It runs no git:
// HEAD and the git settings are read as data, the work tree by its stat data. It returns
// once the work tree has been walked or ctx is done.
func (s Stamp) Unchanged(ctx context.Context) (bool, error) {
	if s.top == "" || s.racy {
		return false, nil
	}
	c, err := openCheckout(ctx, s.g, s.top)
	if err != nil {
		return false, err
	}
	w, err := s.walk(ctx, c)
	if err != nil {
		return false, err
	}
	return w.sum() == s.sum, nil
}

// walk reads what the stamp of the checkout c holds.
func (s Stamp) walk(ctx context.Context, c *gitcmd.Checkout) (*stamper, error) {
	w := &stamper{h: newHash(), since: s.since, prune: s.prune, format: c.Format}
	// What decides how git reads the work tree: HEAD, the settings segwi passes on, the
	// ignore and attribute files segwi copies, the index it starts from.
	w.text("top", c.Top, "format", c.Format, "head", c.HeadRef, c.Head)
	w.text(c.Settings()...)
	excludes, attributes := c.IgnoreFiles()
	for _, f := range []string{
		filepath.Join(c.GitDir, "index"), filepath.Join(c.Common, "info", "exclude"),
		filepath.Join(c.Common, "info", "attributes"), filepath.Join(c.Common, "shallow"), excludes, attributes,
	} {
		if f != "" {
			w.text("file", f)
			w.file(f)
		}
	}
	if err := w.tree(ctx, c.Top, ""); err != nil {
		return nil, fmt.Errorf("reading the work tree of %s: %w", c.Top, err)
	}
	return w, nil
}

// stamper hashes what a walk reads, and sees whether any of it changed too recently to be
// told from a later change.
type stamper struct {
	h      hash.Hash
	since  time.Time
	prune  map[string]bool
	format string
	racy   bool
	buf    []byte
}

func (w *stamper) sum() (s [sha256.Size]byte) {
	copy(s[:], w.h.Sum(nil))
	return s
}

// text hashes words, each ended by a NUL.
func (w *stamper) text(words ...string) {
	for _, s := range words {
		w.h.Write([]byte(s))
		w.h.Write([]byte{0})
	}
}

// stat hashes a file's stat data, and notes whether it changed too recently.
func (w *stamper) stat(st fileStat) {
	w.buf = binary.LittleEndian.AppendUint64(w.buf[:0], st.dev)
	w.buf = binary.LittleEndian.AppendUint64(w.buf, st.ino)
	w.buf = binary.LittleEndian.AppendUint32(w.buf, st.mode)
	w.buf = binary.LittleEndian.AppendUint64(w.buf, uint64(st.size))
	w.buf = binary.LittleEndian.AppendUint64(w.buf, uint64(st.mtime))
	w.buf = binary.LittleEndian.AppendUint64(w.buf, uint64(st.ctime))
	w.h.Write(w.buf)
	for _, t := range []int64{st.mtime, st.ctime} {
		window := racyWindow
		if t%int64(time.Second) == 0 {
			window = racyWindowCoarse
		}
		if t >= w.since.Add(-window).UnixNano() {
			w.racy = true
		}
	}
}

// file hashes the stat data of the file at path, or that it is missing.
func (w *stamper) file(path string) {
	st, err := lstatFile(path)
	if err != nil {
		w.text("missing")
		return
	}
	w.stat(st)
}

// tree hashes the folder dir (rel, relative to the top; "" for the top) and what it
// holds: each entry's name and stat data, then the folders in it, in name order. It does
// not enter .git, a folder git ignores whole, or a nested repository, whose commit it
// hashes instead.
func (w *stamper) tree(ctx context.Context, dir, rel string) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	entries, err := readDirStats(dir)
	if err != nil {
		return err
	}
	if rel != "" && slices.ContainsFunc(entries, func(e dirEntry) bool { return e.name == ".git" }) {
		commit, isRepo, err := gitcmd.GitlinkHead(dir, w.format)
		if err != nil {
			return err
		}
		if isRepo {
			w.text("repository", rel, commit)
			return nil
		}
	}
	var folders []string
	for _, e := range entries {
		if e.name == ".git" {
			continue
		}
		path := e.name
		if rel != "" {
			path = rel + "/" + e.name
		}
		if e.isDir() && w.prune[path] {
			w.text("ignored", path) // what it holds git does not see
			continue
		}
		w.text(path)
		w.stat(e.st)
		if e.isDir() {
			folders = append(folders, e.name)
		}
	}
	for _, name := range folders {
		sub := name
		if rel != "" {
			sub = rel + "/" + name
		}
		if err := w.tree(ctx, filepath.Join(dir, name), sub); err != nil {
			return err
		}
	}
	return nil
}

func newHash() hash.Hash { return sha256.New() }
