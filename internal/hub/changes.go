package hub

import (
	"context"
	"fmt"

	"github.com/segwi/segwi/control"
)

// changeSet reads what the run id (going or ended) changed since its base, with the diff
// of path ("" for every file), bounded to what the channel carries (core.Shipper.Changes:
// git runs nothing the checkout's configuration names).
func (h *Hub) changeSet(ctx context.Context, id, path string) (control.ChangeSet, error) {
	snap, info, err := h.shipper().Changes(ctx, id)
	if err != nil {
		return control.ChangeSet{}, err
	}
	defer snap.Close()
	patch, err := snap.Diff(ctx, path, control.MaxDiffBytes)
	if err != nil {
		return control.ChangeSet{}, fmt.Errorf("run %s: %w", info.ID, err)
	}
	cs := control.ChangeSet{Base: snap.Base, Branch: snap.Branch, Files: snap.Files, Commits: snap.Commits, Path: path, Diff: patch}
	if n := len(cs.Files); n > control.MaxChangedFiles {
		cs.Files, cs.MoreFiles = cs.Files[:control.MaxChangedFiles], n-control.MaxChangedFiles
	}
	return cs, nil
}
