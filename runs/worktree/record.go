package worktree

import (
	"context"

	"github.com/segwi/segwi/runs/record"
)

// A run's Worktree as its record keeps it, the Loss its removal would cause and the Setup a
// new one gets are declared in package record, a leaf the window program links without
// this package's git; these are their names here.
type (
	Loss     = record.Loss
	Worktree = record.Worktree
	Setup    = record.Setup
)

// DefaultTimeout bounds a setup whose Timeout is zero (record.DefaultSetupTimeout).
const DefaultTimeout = record.DefaultSetupTimeout

// Size is record.Size.
func Size(n int64) string { return record.Size(n) }

// DiskUse is record.DiskUse.
func DiskUse(ctx context.Context, dir string) (int64, error) { return record.DiskUse(ctx, dir) }

// CheckPattern is record.CheckPattern.
func CheckPattern(p string) error { return record.CheckPattern(p) }
