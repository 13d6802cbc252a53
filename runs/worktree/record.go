package worktree

import (
	"context"

	"github.com/segwi/segwi/runs/record"
)

// A run's Worktree as its record keeps it, and the Loss its removal would cause, are
// declared in package record, a leaf the window program links without this package's git;
// these are their names here.
type (
	Loss     = record.Loss
	Worktree = record.Worktree
)

// Size is record.Size.
func Size(n int64) string { return record.Size(n) }

// DiskUse is record.DiskUse.
func DiskUse(ctx context.Context, dir string) (int64, error) { return record.DiskUse(ctx, dir) }
