package control

import (
	"context"
	"errors"

	"github.com/segwi/segwi/runs/record"
)

// RemoveWorktree removes the git worktree an ended run worked in (runs.Manager.RemoveWorktree):
// its folder, and its branch when DeleteBranch and it was never pushed. Without Force it
// refuses, saying what would be lost, a worktree with uncommitted changes (or, with
// DeleteBranch, commits never pushed); it always refuses one a live run works in. Its
// reply's Text says what was removed and kept.
type RemoveWorktree struct {
	Run          string `json:"run"`
	DeleteBranch bool   `json:"deleteBranch,omitempty"`
	Force        bool   `json:"force,omitempty"`
}

// MessageType returns TypeRemoveWorktree.
func (RemoveWorktree) MessageType() Type { return TypeRemoveWorktree }

func (r RemoveWorktree) check() error { return needRun(r.Run) }

// RemoveWorktree removes the worktree an ended run worked in; see RemoveWorktree. It
// returns what was done, in words.
func (c *Client) RemoveWorktree(ctx context.Context, cmd RemoveWorktree) (string, error) {
	r, err := c.do(ctx, cmd)
	if err != nil {
		return "", err
	}
	return r.Text, nil
}

// InspectWorktree asks what removing the worktree the run worked in would lose
// (runs.Manager.InspectWorktree): its reply's Worktree says, and nothing is removed. The
// run window asks it before it offers to remove the worktree.
type InspectWorktree struct {
	Run string `json:"run"`
}

// MessageType returns TypeInspectWorktree.
func (InspectWorktree) MessageType() Type { return TypeInspectWorktree }

func (r InspectWorktree) check() error { return needRun(r.Run) }

// InspectWorktree says what removing the worktree the run id worked in would lose.
func (c *Client) InspectWorktree(ctx context.Context, id string) (record.Loss, error) {
	r, err := c.do(ctx, InspectWorktree{Run: id})
	if err != nil {
		return record.Loss{}, err
	}
	if r.Worktree == nil {
		return record.Loss{}, errors.New("inspecting the worktree: the tray's reply says nothing of it")
	}
	return *r.Worktree, nil
}
