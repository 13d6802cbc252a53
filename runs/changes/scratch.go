package changes

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/segwi/segwi/internal/lib/gitcmd"
)

// ErrNotGit is wrapped by the errors about a folder that is not in a git work tree.
var ErrNotGit = gitcmd.ErrNotGit

// scratch is a repository segwi makes for one look at a checkout (gitcmd.NewRepo): its own
// git folder, the checkout's objects borrowed, the checkout as its work tree. See the
// package doc.
type scratch struct {
	c     *gitcmd.Checkout
	repo  *gitcmd.Repo
	g     gitcmd.Git // git in the scratch repository, in the work tree
	empty string     // the empty tree's id in this object format
}

// openCheckout reads where the checkout dir stands, wrapping ErrNotGit when it is not a
// git work tree.
func openCheckout(ctx context.Context, g gitcmd.Git, dir string) (*gitcmd.Checkout, error) {
	c, err := g.Open(ctx, dir)
	if err != nil && !errors.Is(err, ErrNotGit) {
		return nil, fmt.Errorf("reading the checkout %s: %w", dir, err)
	}
	return c, err
}

// newScratch makes the scratch repository for c, its HEAD the checkout's commit, its index
// a copy of the checkout's (or, when that cannot be used, HEAD's tree), every entry's
// assume-unchanged bit cleared, and so its skip-worktree bit when the file is in the work
// tree: neither may hide a change. Gitlinks (nested repositories, submodules) are set to
// the commit their HEAD names and then marked skip-worktree, so that git never looks
// inside them. A conflict the index holds is resolved as the work tree has the file.
func newScratch(ctx context.Context, c *gitcmd.Checkout) (*scratch, error) {
	repo, err := gitcmd.NewRepo(ctx, c, gitcmd.RepoOptions{Prefix: "segwi-changes-", WorkTree: true, Head: c.Head})
	if err != nil {
		return nil, err
	}
	s := &scratch{c: c, repo: repo, empty: repo.Empty,
		g: repo.Git.With("GIT_LITERAL_PATHSPECS=1", "LC_ALL=C").Config("core.bigFileThreshold=" + strconv.Itoa(MaxTextBytes))}
	if err := s.loadIndex(ctx); err != nil {
		s.close()
		return nil, fmt.Errorf("making a scratch repository for %s: %w", c.Top, err)
	}
	return s, nil
}

// loadIndex starts the scratch index from the checkout's copy, which keeps git from
// hashing every file again, and falls back to HEAD's tree when the copy cannot be read (a
// split index, a format this git does not know). segwi reads the copy's entries itself
// when it can (gitcmd.ParseIndex), else git lists them.
func (s *scratch) loadIndex(ctx context.Context) error {
	var entries []gitcmd.IndexEntry
	copied := s.repo.IndexCopied
	if copied {
		var err error
		if entries, err = s.repo.Index(); err != nil {
			entries, err = s.listIndex(ctx)
			copied = err == nil
		}
	}
	if !copied {
		s.g = s.g.With("GIT_INDEX_FILE=" + s.repo.GitPath("head-index"))
		tree := s.c.Head
		if tree == "" {
			tree = s.empty
		}
		if _, err := s.output(ctx, "read-tree", tree); err != nil {
			return err
		}
		var err error
		if entries, err = s.listIndex(ctx); err != nil {
			return err
		}
	}
	// update-index takes one of the flags per command.
	var assumed, skipped, unmerged []byte
	var gitlinks []string
	lastUnmerged := ""
	for _, e := range entries {
		if e.Stage != 0 {
			// A conflict: its stages 1 to 3 come one after the other.
			if e.Path != lastUnmerged {
				lastUnmerged = e.Path
				unmerged = append(append(unmerged, e.Path...), 0)
			}
			continue
		}
		if e.Mode == gitcmd.ModeGitlink {
			gitlinks = append(gitlinks, e.Path)
			continue
		}
		if e.AssumeUnchanged {
			assumed = append(append(assumed, e.Path...), 0)
		}
		if e.SkipWorktree {
			// A sparse checkout leaves such files out of the work tree on purpose.
			if _, err := lstat(s.c.Top, e.Path); err == nil {
				skipped = append(append(skipped, e.Path...), 0)
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
	if len(unmerged) > 0 {
		// git diff would show a conflict as "unmerged", without its content.
		if err := s.run(ctx, bytes.NewReader(unmerged), nil, "add", "--all", "--pathspec-from-file=-", "--pathspec-file-nul"); err != nil {
			return fmt.Errorf("reading the files in conflict: %w", err)
		}
	}
	return s.sealGitlinks(ctx, gitlinks, true)
}

// listIndex has git list the scratch index's entries (git ls-files -s -v), for an index
// segwi does not read itself.
func (s *scratch) listIndex(ctx context.Context) ([]gitcmd.IndexEntry, error) {
	listing, err := s.raw(ctx, "ls-files", "-z", "-v", "-s")
	if err != nil {
		return nil, err
	}
	// ls-files -v -s: "T MODE OBJECT STAGE\tPATH". -v tags an assume-unchanged entry in
	// lower case, a skip-worktree one S (s with both).
	var entries []gitcmd.IndexEntry
	for _, rec := range bytes.Split(listing, []byte{0}) {
		meta, path, ok := bytes.Cut(rec, []byte{'\t'})
		f := strings.Fields(string(meta))
		if !ok || len(f) != 4 || len(f[0]) != 1 {
			continue
		}
		mode, err := strconv.ParseUint(f[1], 8, 32)
		if err != nil {
			return nil, fmt.Errorf("git ls-files listed %q: %w", rec, err)
		}
		stage, err := strconv.Atoi(f[3])
		if err != nil {
			return nil, fmt.Errorf("git ls-files listed %q: %w", rec, err)
		}
		tag := f[0][0]
		entries = append(entries, gitcmd.IndexEntry{Path: string(path), Mode: uint32(mode), Stage: stage,
			AssumeUnchanged: tag >= 'a' && tag <= 'z', SkipWorktree: tag == 'S' || tag == 's'})
	}
	return entries, nil
}

// sealGitlinks brings the index's gitlinks (tracked) or the work tree's untracked nested
// repositories in line with the work tree without git looking inside them: each is set to
// the commit its repository's HEAD names, read as data. A tracked one whose folder is gone
// is removed, as is one whose folder no longer holds a repository (its files are then the
// work tree's like any other); an untracked one with no commit yet is left out, as git
// add would not take it. The rest are marked skip-worktree, which keeps git add and git
// status from running git status inside them: that git would read their configuration and
// run what it names.
func (s *scratch) sealGitlinks(ctx context.Context, gitlinks []string, tracked bool) error {
	if len(gitlinks) == 0 {
		return nil
	}
	var info bytes.Buffer
	var kept []byte
	zero := strings.Repeat("0", len(s.empty))
	for _, p := range gitlinks {
		dir := filepath.Join(s.c.Top, filepath.FromSlash(p))
		st, err := lstat(s.c.Top, p)
		if err != nil || !st.IsDir() {
			if tracked {
				fmt.Fprintf(&info, "0 %s\t%s\x00", zero, p)
			}
			continue
		}
		commit, isRepo, err := gitcmd.GitlinkHead(dir, s.c.Format)
		if err != nil {
			return fmt.Errorf("reading the nested repository %s: %w", p, err)
		}
		switch {
		case !isRepo && tracked:
			fmt.Fprintf(&info, "0 %s\t%s\x00", zero, p)
			continue
		case !isRepo || commit == "" && !tracked:
			continue
		case commit != "":
			fmt.Fprintf(&info, "160000 %s\t%s\x00", commit, p)
		}
		kept = append(append(kept, p...), 0)
	}
	if info.Len() > 0 {
		if err := s.run(ctx, &info, nil, "update-index", "-z", "--index-info"); err != nil {
			return fmt.Errorf("reading the nested repositories: %w", err)
		}
	}
	if len(kept) > 0 {
		if err := s.run(ctx, bytes.NewReader(kept), nil, "update-index", "-z", "--skip-worktree", "--stdin"); err != nil {
			return fmt.Errorf("reading the nested repositories: %w", err)
		}
	}
	return nil
}

// addUntracked names the work tree's untracked files (ignored ones left out) in the scratch
// index as intent-to-add entries (git add -N), which hash nothing: git diff then reads such
// a file from the work tree, as it does a changed tracked file. An untracked nested
// repository becomes a gitlink to the commit its HEAD names (sealGitlinks).
func (s *scratch) addUntracked(ctx context.Context) error {
	out, err := s.raw(ctx, "ls-files", "-z", "--others", "--exclude-standard")
	if err != nil {
		return fmt.Errorf("listing the untracked files: %w", err)
	}
	var files []byte
	var repos []string
	for _, p := range bytes.Split(out, []byte{0}) {
		switch {
		case len(p) == 0:
		case p[len(p)-1] == '/': // a nested repository, which git does not enter
			repos = append(repos, string(p[:len(p)-1]))
		default:
			files = append(append(files, p...), 0)
		}
	}
	if len(files) > 0 {
		if err := s.run(ctx, bytes.NewReader(files), nil, "add", "--intent-to-add", "--pathspec-from-file=-", "--pathspec-file-nul"); err != nil {
			return fmt.Errorf("naming the untracked files: %w", err)
		}
	}
	return s.sealGitlinks(ctx, repos, false)
}

// refresh has git compare the work tree's files with the scratch index by their stat data,
// and hash those whose data changed but not their size, so that a file touched but not
// changed is not taken for a change. It writes nothing but the scratch index.
func (s *scratch) refresh(ctx context.Context) error {
	if err := s.run(ctx, nil, nil, "update-index", "-q", "--refresh"); err != nil {
		return fmt.Errorf("reading the work tree: %w", err)
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

// run runs git in the scratch repository.
func (s *scratch) run(ctx context.Context, stdin io.Reader, stdout io.Writer, args ...string) error {
	return s.g.Run(ctx, stdin, stdout, args...)
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
	if s != nil {
		s.repo.Close()
	}
}
