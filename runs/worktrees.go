package runs

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"

	"github.com/segwi/segwi/internal/lib/gitcmd"
	"github.com/segwi/segwi/runs/worktree"
)

// WorktreeEntry is a worktree segwi made for a run, as segwi worktrees lists it.
type WorktreeEntry struct {
	// Run is the run that made it.
	Run Info
	// Worktree is its record.
	Worktree worktree.Worktree
	// Runs are the runs that worked in it, oldest first: the one that made it and those
	// that continued it.
	Runs []string
	// Live names a run that works in it now, as its record says; "" when none does.
	Live string
	// Exists says its folder is still there; Disk is how much it holds then, in bytes.
	Exists bool
	Disk   int64
}

// Worktrees returns the worktrees segwi made for the runs recorded under stateDir, oldest
// first, with the disk each holds (measured when disk is set: it reads every file). It
// returns when done or ctx is done.
func Worktrees(ctx context.Context, stateDir string, disk bool) ([]WorktreeEntry, error) {
	infos, _, err := List(stateDir)
	if err != nil {
		return nil, err
	}
	var out []WorktreeEntry
	byPath := map[string]int{}
	for _, in := range infos {
		w := in.Worktree
		if w == nil {
			continue
		}
		i, seen := byPath[w.Path]
		if !seen {
			i = len(out)
			byPath[w.Path] = i
			e := WorktreeEntry{Run: in, Worktree: *w}
			if st, err := os.Lstat(w.Path); err == nil && st.IsDir() {
				e.Exists = true
				if disk {
					e.Disk, _ = worktree.DiskUse(ctx, w.Path) //nolint:errcheck // what was counted is shown
				}
			}
			out = append(out, e)
		}
		out[i].Runs = append(out[i].Runs, in.ID)
		if !in.State.Final() {
			out[i].Live = in.ID
		}
	}
	return out, ctx.Err()
}

// RemoveWorktree removes the worktree the run id (or unique id prefix) worked in, as
// worktree.Remove does with o, under root (where segwi keeps worktrees), with g (segwi's
// git, sealed as everywhere). It refuses a run that worked in its checkout, and a
// worktree a live run works in; it holds the folder locks of the runs that worked in it
// meanwhile, so none of them is continued, and records the removal on the run that made
// it. It returns when done or ctx is done.
func RemoveWorktree(ctx context.Context, g gitcmd.Git, stateDir, root, id string, o worktree.RemoveOptions) (worktree.Removed, error) {
	in, err := Load(stateDir, id)
	if err != nil {
		return worktree.Removed{}, fmt.Errorf("removing the worktree of run %s: %w", id, err)
	}
	if in.Worktree == nil {
		return worktree.Removed{}, fmt.Errorf("removing the worktree of run %s: it worked in the checkout %s, not in a worktree of its own", in.ID, in.Checkout)
	}
	w := *in.Worktree
	entries, err := Worktrees(ctx, stateDir, false)
	if err != nil {
		return worktree.Removed{}, err
	}
	var users []string
	for _, e := range entries {
		if e.Worktree.Path == w.Path {
			users = e.Runs
		}
	}
	var held []*os.File
	defer func() {
		for _, f := range held {
			f.Close()
		}
	}()
	var maker string
	for _, u := range users {
		dir, lock, err := lockEnded(stateDir, u)
		if errors.Is(err, ErrRunLive) {
			return worktree.Removed{}, fmt.Errorf("removing the worktree %s: run %s works in it now; stop it first, or wait for it to end", w.Path, u)
		}
		if err != nil {
			return worktree.Removed{}, err
		}
		held = append(held, lock)
		if u == w.MadeBy {
			maker = dir
		}
	}
	done, err := worktree.Remove(ctx, g, root, w, o)
	if err != nil {
		return done, fmt.Errorf("removing the worktree of run %s: %w", in.ID, err)
	}
	if maker != "" {
		text := "removed " + w.Path
		switch {
		case done.BranchDeleted:
			text += " and its branch " + w.Branch
		case o.DeleteBranch && done.BranchKept != "":
			text += "; its branch " + w.Branch + " is kept: " + done.BranchKept
		default:
			text += "; its branch " + w.Branch + " is kept"
		}
		if lost := done.Loss.Words(o.DeleteBranch); lost != "" && o.Force {
			text += "; lost: " + lost
		}
		if _, err := appendLocked(maker, Event{Type: EventWorktree, Subtype: "removed", Text: strings.TrimSpace(text)}); err != nil {
			return done, err
		}
	}
	return done, nil
}

// Prune forgets the worktrees of the runs under stateDir whose folders were removed by
// hand (git worktree prune, for segwi's own worktrees only), and returns their folders.
func Prune(ctx context.Context, stateDir string) ([]string, error) {
	entries, err := Worktrees(ctx, stateDir, false)
	if err != nil {
		return nil, err
	}
	var forgot []string
	var errs []error
	for _, e := range entries {
		if e.Exists {
			continue
		}
		ok, err := worktree.Forget(e.Worktree)
		if err != nil {
			errs = append(errs, err)
		}
		if ok {
			forgot = append(forgot, e.Worktree.Path)
		}
	}
	return forgot, errors.Join(errs...)
}

// RemoveWorktree removes the worktree the ended run id worked in, as RemoveWorktree does,
// with the Manager's settings: segwi's worktree folder, the environment its git runs in,
// and, unless o names one, the remote of the run's repository (origin when it is not
// configured), whose tracking branches say what was pushed.
func (m *Manager) RemoveWorktree(ctx context.Context, id string, o worktree.RemoveOptions) (worktree.Removed, error) {
	cfg := m.config()
	in, err := Load(cfg.StateDir, id)
	if err != nil {
		return worktree.Removed{}, fmt.Errorf("removing the worktree of run %s: %w", id, err)
	}
	if o.Remote == "" && in.Worktree != nil {
		o.Remote = RemoteOf(cfg.Repositories, in.Worktree.Repository)
	}
	root := cfg.WorktreeRoot
	if root == "" {
		if root, err = worktree.Root(cfg.Env); err != nil {
			return worktree.Removed{}, err
		}
	}
	return RemoveWorktree(ctx, gitcmd.New("", "", cfg.Env), cfg.StateDir, root, in.ID, o)
}

// InspectWorktree says what removing the worktree the run id worked in would lose
// (worktree.Inspect), with the Manager's settings as RemoveWorktree has them: the run
// window asks before it removes. It refuses a run that worked in its checkout. It returns
// when git has answered or ctx is done.
func (m *Manager) InspectWorktree(ctx context.Context, id string) (worktree.Loss, error) {
	cfg := m.config()
	in, err := Load(cfg.StateDir, id)
	if err != nil {
		return worktree.Loss{}, fmt.Errorf("reading the worktree of run %s: %w", id, err)
	}
	if in.Worktree == nil {
		return worktree.Loss{}, fmt.Errorf("reading the worktree of run %s: it worked in the checkout %s, not in a worktree of its own", in.ID, in.Checkout)
	}
	remote := RemoteOf(cfg.Repositories, in.Worktree.Repository)
	loss, err := worktree.Inspect(ctx, gitcmd.New("", "", cfg.Env), *in.Worktree, remote)
	if err != nil {
		return worktree.Loss{}, fmt.Errorf("reading the worktree of run %s: %w", in.ID, err)
	}
	return loss, nil
}
