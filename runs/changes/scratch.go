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
	"strings"

	"github.com/segwi/segwi/internal/gitcmd"
)

// MaxTextBytes is the size from which a file is treated as binary: named among the
// changes, its lines neither counted nor shown (core.bigFileThreshold in the scratch
// repository).
const MaxTextBytes = 4 << 20

// scratchConfig is the whole configuration of a scratch repository, besides the plain
// settings copied from the checkout (repo.settings). %s is the object format's part.
const scratchConfig = `[core]
	repositoryformatversion = %d
	bare = false
	fsmonitor = false
	hooksPath = %s
	untrackedCache = false
	splitIndex = false
	safecrlf = false
	logAllRefUpdates = false
	bigFileThreshold = %d
[index]
	sparse = false
[commit]
	gpgSign = false
[gc]
	auto = 0
[maintenance]
	auto = false
%s`

// scratch is a repository segwi makes for one look at a checkout: its own git folder and
// configuration, the checkout's objects borrowed, the checkout as its work tree. See the
// package doc.
type scratch struct {
	dir    string     // the temp folder; removed by close
	gitDir string     // the scratch repository's git folder
	g      gitcmd.Git // git with GIT_DIR, GIT_WORK_TREE and GIT_INDEX_FILE set, in the work tree
	opts   []string   // the -c options of every command: the checkout's plain settings
	empty  string     // the empty tree's id in this object format
}

// newScratch makes the scratch repository for r, its index a copy of the checkout's (or,
// when that cannot be used, HEAD's tree), every entry's assume-unchanged bit cleared, and
// so its skip-worktree bit when the file is in the work tree: neither may hide a change.
func newScratch(ctx context.Context, r repo) (*scratch, error) {
	if strings.ContainsAny(r.common, "\n\r") {
		return nil, fmt.Errorf("the git folder %q of %s has a name git cannot borrow objects from", r.common, r.top)
	}
	dir, err := os.MkdirTemp("", "segwi-changes-")
	if err != nil {
		return nil, fmt.Errorf("making a scratch repository: %w", err)
	}
	s := &scratch{dir: dir, gitDir: filepath.Join(dir, "git"), opts: r.settings}
	if err := s.fill(ctx, r); err != nil {
		s.close()
		return nil, fmt.Errorf("making a scratch repository for %s: %w", r.top, err)
	}
	return s, nil
}

func (s *scratch) fill(ctx context.Context, r repo) error {
	for _, d := range []string{"objects/info", "objects/pack", "refs/heads", "refs/tags", "info"} {
		if err := os.MkdirAll(filepath.Join(s.gitDir, d), 0o700); err != nil {
			return err
		}
	}
	version, ext := 0, ""
	if r.format != "" && r.format != "sha1" {
		version, ext = 1, "[extensions]\n\tobjectFormat = "+r.format+"\n"
	}
	files := map[string]string{
		"HEAD":                    "ref: refs/heads/segwi-scratch\n",
		"config":                  fmt.Sprintf(scratchConfig, version, os.DevNull, MaxTextBytes, ext),
		"objects/info/alternates": filepath.Join(r.common, "objects") + "\n",
	}
	for name, content := range files {
		if err := os.WriteFile(filepath.Join(s.gitDir, name), []byte(content), 0o600); err != nil {
			return err
		}
	}
	// Files git reads from the checkout's git folder: what it ignores, what attributes it
	// gives, where a shallow history ends.
	for _, name := range []string{"info/exclude", "info/attributes", "shallow"} {
		if err := copyFile(filepath.Join(r.common, name), filepath.Join(s.gitDir, name)); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return err
		}
	}
	index := filepath.Join(s.dir, "index")
	s.g = r.g.With("GIT_DIR="+s.gitDir, "GIT_WORK_TREE="+r.top, "GIT_INDEX_FILE="+index,
		"GIT_CONFIG_GLOBAL="+os.DevNull, "GIT_CONFIG_NOSYSTEM=1", "GIT_LITERAL_PATHSPECS=1",
		"GIT_OPTIONAL_LOCKS=0", "LC_ALL=C")
	empty, err := s.output(ctx, "hash-object", "-t", "tree", os.DevNull)
	if err != nil {
		return err
	}
	s.empty = empty
	if err := s.loadIndex(ctx, r, index); err != nil {
		return err
	}
	return nil
}

// loadIndex starts the scratch index from a copy of the checkout's, which keeps git from
// hashing every file again, and falls back to HEAD's tree when the copy cannot be read (a
// split index, a format this git does not know).
func (s *scratch) loadIndex(ctx context.Context, r repo, index string) error {
	copied := copyFile(filepath.Join(r.gitDir, "index"), index) == nil
	var listing []byte
	if copied {
		var err error
		listing, err = s.raw(ctx, "ls-files", "-z", "-v")
		copied = err == nil
	}
	if !copied {
		os.Remove(index)
		tree := r.head
		if tree == "" {
			tree = s.empty
		}
		_, err := s.output(ctx, "read-tree", tree)
		return err
	}
	// ls-files -v tags an assume-unchanged entry in lower case, a skip-worktree one S (s
	// with both). update-index takes one of the two flags per command.
	var assumed, skipped []byte
	for _, rec := range bytes.Split(listing, []byte{0}) {
		if len(rec) < 3 {
			continue
		}
		tag, path := rec[0], rec[2:]
		if tag >= 'a' && tag <= 'z' {
			assumed = append(append(assumed, path...), 0)
		}
		if tag == 'S' || tag == 's' {
			// A sparse checkout leaves such files out of the work tree on purpose.
			if _, err := os.Lstat(filepath.Join(r.top, filepath.FromSlash(string(path)))); err == nil {
				skipped = append(append(skipped, path...), 0)
			}
		}
	}
	for _, clear := range []struct {
		flag  string
		paths []byte
	}{{"--no-assume-unchanged", assumed}, {"--no-skip-worktree", skipped}} {
		if len(clear.paths) == 0 {
			continue
		}
		if err := s.run(ctx, bytes.NewReader(clear.paths), nil, "update-index", "-z", clear.flag, "--stdin"); err != nil {
			return err
		}
	}
	return nil
}

// workTree hashes the work tree as it is now (tracked and untracked files, ignored ones
// left out) into the scratch repository and returns its tree.
func (s *scratch) workTree(ctx context.Context) (string, error) {
	if _, err := s.output(ctx, "add", "--all"); err != nil {
		return "", fmt.Errorf("reading the work tree: %w", err)
	}
	tree, err := s.output(ctx, "write-tree")
	if err != nil {
		return "", fmt.Errorf("reading the work tree: %w", err)
	}
	return tree, nil
}

// run runs git in the scratch repository with its options.
func (s *scratch) run(ctx context.Context, stdin io.Reader, stdout io.Writer, args ...string) error {
	return s.runIn(ctx, s.g, stdin, stdout, args...)
}

// runIn is run with git's environment g: the scratch's, or one with an index of its own.
func (s *scratch) runIn(ctx context.Context, g gitcmd.Git, stdin io.Reader, stdout io.Writer, args ...string) error {
	return g.Run(ctx, stdin, stdout, append(append([]string{}, s.opts...), args...)...)
}

// output is run for a command whose trimmed output is wanted.
func (s *scratch) output(ctx context.Context, args ...string) (string, error) {
	b, err := s.raw(ctx, args...)
	return strings.TrimSpace(string(b)), err
}

// raw is run for a command whose output is wanted as it is (NUL-separated paths).
func (s *scratch) raw(ctx context.Context, args ...string) ([]byte, error) {
	var out bytes.Buffer
	err := s.run(ctx, nil, &out, args...)
	return out.Bytes(), err
}

// close removes the scratch repository.
func (s *scratch) close() {
	if s != nil && s.dir != "" {
		os.RemoveAll(s.dir)
	}
}

// copyFile copies src to dst (0600), keeping src's modification time: git's check of a
// racily clean index entry compares with the index file's time.
func copyFile(src, dst string) error {
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	st, err := in.Stat()
	if err != nil {
		return err
	}
	if !st.Mode().IsRegular() {
		return fmt.Errorf("%s is not a regular file", src)
	}
	out, err := os.OpenFile(dst, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o600)
	if err != nil {
		return err
	}
	_, err = io.Copy(out, in)
	if cerr := out.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return err
	}
	return os.Chtimes(dst, st.ModTime(), st.ModTime())
}
