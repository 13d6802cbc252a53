package hub

import (
	"context"
	"fmt"

	"github.com/segwi/segwi/control"
)

// changeSet reads what the run (going or ended) changed since its base, with the diff of
// cmd.Path ("" for every file) unless cmd.FilesOnly, bounded to what the channel carries
// (core.Shipper.Changes: git runs nothing the checkout's configuration names).
func (h *Hub) changeSet(ctx context.Context, cmd control.Changes) (control.ChangeSet, error) {
	snap, info, err := h.shipper().Changes(ctx, cmd.Run)
	if err != nil {
		return control.ChangeSet{}, err
	}
	defer snap.Close()
	cs := control.ChangeSet{Base: snap.Base, Branch: snap.Branch, Files: snap.Files, Commits: snap.Commits, Path: cmd.Path}
	if !cmd.FilesOnly {
		if cs.Diff, err = snap.Diff(ctx, cmd.Path, control.MaxDiffBytes); err != nil {
			return control.ChangeSet{}, fmt.Errorf("run %s: %w", info.ID, err)
		}
	}
	if n := len(cs.Files); n > control.MaxChangedFiles {
		cs.Files, cs.MoreFiles = cs.Files[:control.MaxChangedFiles], n-control.MaxChangedFiles
	}
	return cs, nil
}
