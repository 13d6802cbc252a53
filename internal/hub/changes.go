package hub

import (
	"context"
	"fmt"

	"github.com/segwi/segwi/control"
	"github.com/segwi/segwi/internal/gitcmd"
	"github.com/segwi/segwi/runs/changes"
)

// changeSet reads what the run id (going or ended) changed since its base, with the diff
// of path ("" for every file), bounded to what the channel carries. It runs git as
// package changes does: nothing the checkout's configuration names.
func (h *Hub) changeSet(ctx context.Context, id, path string) (control.ChangeSet, error) {
	info, err := h.runInfo(id)
	if err != nil {
		return control.ChangeSet{}, err
	}
	var base changes.Base
	if info.Base != nil {
		base = *info.Base
	}
	snap, err := changes.Take(ctx, gitcmd.New("", "", nil), base)
	if err != nil {
		return control.ChangeSet{}, fmt.Errorf("reading the changes of run %s: %w", id, err)
	}
	defer snap.Close()
	patch, err := snap.Diff(ctx, path, control.MaxDiffBytes)
	if err != nil {
		return control.ChangeSet{}, fmt.Errorf("run %s: %w", id, err)
	}
	cs := control.ChangeSet{Base: snap.Base, Branch: snap.Branch, Files: snap.Files, Commits: snap.Commits, Path: path, Diff: patch}
	if n := len(cs.Files); n > control.MaxChangedFiles {
		cs.Files, cs.MoreFiles = cs.Files[:control.MaxChangedFiles], n-control.MaxChangedFiles
	}
	return cs, nil
}
