package core

import (
	"context"

	"github.com/segwi/segwi/runs"
	"github.com/segwi/segwi/runs/worktree"
)

// RemoveWorktree removes the worktree the ended run id worked in, and its branch too when
// deleteBranch and it was never pushed (runs.Manager.RemoveWorktree); force removes it
// even when that loses uncommitted changes or unpushed commits. It returns what was
// removed and kept, in words for a person.
func (c *Core) RemoveWorktree(ctx context.Context, id string, deleteBranch, force bool) (string, error) {
	done, err := c.mgr.RemoveWorktree(ctx, id, worktree.RemoveOptions{DeleteBranch: deleteBranch, Force: force})
	if err != nil {
		return "", err
	}
	in, err := runs.Load(c.stateDir, id)
	if err != nil || in.Worktree == nil {
		return "Removed the worktree.", nil //nolint:nilerr // removed; only the words are short
	}
	return done.Words(in.Worktree.Path, in.Worktree.Branch, deleteBranch), nil
}

// InspectWorktree says what removing the worktree the run id worked in would lose
// (runs.Manager.InspectWorktree).
func (c *Core) InspectWorktree(ctx context.Context, id string) (worktree.Loss, error) {
	return c.mgr.InspectWorktree(ctx, id)
}
