package hub

import (
	"context"
	"crypto/rand"
	"fmt"
	"slices"
	"sync"

	"github.com/segwi/segwi/control"
	"github.com/segwi/segwi/runs/changes"
)

// changeSet reads what the run (going or ended) changed since its base, with the diff of
// cmd.Path ("" for every file) unless cmd.FilesOnly, bounded to what the channel carries
// (core.Shipper.Changes: git runs nothing the checkout's configuration names). When
// cmd.Since names the last reading of the run's changes and the checkout has not changed
// since (changes.Stamp), it says so without reading them again: the Changes tab asks at
// every turn's end, and a turn often changes no file.
func (h *Hub) changeSet(ctx context.Context, cmd control.Changes) (control.ChangeSet, error) {
	if cmd.Since != "" && !cmd.FilesOnly {
		if st, ok := h.readings.stamp(cmd.Run, cmd.Since); ok {
			if same, err := st.Unchanged(ctx); err == nil && same {
				return control.ChangeSet{Stamp: cmd.Since, Unchanged: true}, nil
			}
		}
	}
	snap, conv, err := h.shipper().Changes(ctx, cmd.Run)
	if err != nil {
		return control.ChangeSet{}, err
	}
	defer snap.Close()
	cs := control.ChangeSet{Base: snap.Base, Runs: len(conv.Runs), Branch: snap.Branch, Files: snap.Files, Commits: snap.Commits, Path: cmd.Path}
	if !cmd.FilesOnly {
		if cs.Diff, err = snap.Diff(ctx, cmd.Path, control.MaxDiffBytes); err != nil {
			return control.ChangeSet{}, fmt.Errorf("run %s: %w", conv.Name(), err)
		}
		// Taken after the reading: a change made while it was under way makes the stamp
		// racy, and the next ask reads the changes again.
		if st, err := snap.Stamp(ctx); err == nil {
			cs.Stamp = h.readings.keep(cmd.Run, st)
		}
	}
	if n := len(cs.Files); n > control.MaxChangedFiles {
		cs.Files, cs.MoreFiles = cs.Files[:control.MaxChangedFiles], n-control.MaxChangedFiles
	}
	return cs, nil
}

// maxReadings bounds the runs whose last reading readings keeps a stamp of: the run
// windows a person keeps open, and more.
const maxReadings = 32

// readings keeps the stamp of the last reading of each run's changes, with the token a
// ChangeSet carries for it, for the most recently read runs. A stamp holds no file's
// content: a hash of the stat data, the folders git ignores.
type readings struct {
	mu    sync.Mutex
	byRun map[string]reading
	order []string // the runs, least recently read first
}

type reading struct {
	token string
	stamp changes.Stamp
}

// keep records st as the last reading of run's changes, and returns its token.
func (r *readings) keep(run string, st changes.Stamp) string {
	token := rand.Text()
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.byRun == nil {
		r.byRun = map[string]reading{}
	}
	r.order = slices.DeleteFunc(r.order, func(id string) bool { return id == run })
	r.order = append(r.order, run)
	r.byRun[run] = reading{token: token, stamp: st}
	if len(r.order) > maxReadings {
		delete(r.byRun, r.order[0])
		r.order = r.order[1:]
	}
	return token
}

// stamp returns the stamp of the last reading of run's changes when its token is token.
func (r *readings) stamp(run, token string) (changes.Stamp, bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	got, ok := r.byRun[run]
	if !ok || got.token != token {
		return changes.Stamp{}, false
	}
	return got.stamp, true
}
