package changes

import (
	"context"
	"maps"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/segwi/segwi/internal/lib/gitcmd"
)

// keptBases bounds the checkouts a Bases keeps a base for: a person's few checkouts and
// the worktrees of their runs.
const keptBases = 64

// keptBytes bounds what the kept bases' paths take in all (Base.Dirty holds up to
// MaxDirty of them): a few MB of a tray that idles at about 20. A base over it is not kept.
const keptBytes = 4 << 20

// Bases reads the bases of runs as ReadBase does, and keeps the last one it read in each
// checkout with a Stamp of the checkout as git read it. A run that starts in a checkout
// where nothing git status reads has changed since (an ask run's checkout, or the next
// run's after a run that changed nothing) gets that base again without git: the
// checkout's HEAD and settings read as data and its work tree walked by the files' stat
// data, as the tray tells whether a run's changes need reading again. A segwi that
// outlives its runs saves a git process and a scratch repository a run that way. The
// zero Bases is ready to use, by several goroutines at once.
type Bases struct {
	mu    sync.Mutex
	kept  map[string]keptBase // by baseKey
	bytes int                 // what the kept bases' paths take, by sizeOf
	clock uint64              // counts the bases kept and given again, for keptBase.used
}

type keptBase struct {
	base  Base
	stamp Stamp  // the work tree, not racy, as it stood when the base was read
	used  uint64 // Bases.clock when it was last kept or given again
	size  int    // sizeOf(base), set by keep
}

// sizeOf is about what b's paths take in memory: their bytes and their strings' headers.
func sizeOf(b Base) int {
	n := 0
	for _, p := range b.Dirty {
		n += len(p) + 16
	}
	return n
}

// Read reads the base of the checkout dir, as ReadBase does: it never fails, what went
// wrong is in Base.Error.
func (bs *Bases) Read(ctx context.Context, g gitcmd.Git, dir string) Base {
	b, err := bs.read(ctx, g, dir)
	if err != nil {
		return Base{Error: err.Error()}
	}
	return b
}

func (bs *Bases) read(ctx context.Context, g gitcmd.Git, dir string) (Base, error) {
	if !canStamp {
		return readBase(ctx, g, dir)
	}
	key := baseKey(g, dir)
	began := time.Now()
	c, err := openCheckout(ctx, g, dir)
	if err != nil {
		bs.keep(key, nil)
		return Base{}, err
	}
	kept, isKept := bs.get(key)
	var now Stamp // the work tree as it stands, walked as the kept stamp was
	walked := false
	if isKept {
		now, err = stampOf(ctx, g, c, began, kept.stamp.prune)
		walked = err == nil
		if walked && now.sum == kept.stamp.sum {
			b := kept.base
			b.Dirty = slices.Clone(b.Dirty)
			return b, nil
		}
	}
	b, ignored, err := readBaseOf(ctx, c)
	if err != nil {
		bs.keep(key, nil)
		return Base{}, err
	}
	// A walk before git read the work tree stamps what git read: what changed after the
	// walk began is racy in it or differs from it in the next walk. Git's folders to
	// leave out must be the same, or the next walk would not compare; else walk again.
	if !walked || !maps.Equal(ignored, kept.stamp.prune) {
		now, err = stampOf(ctx, g, c, began, ignored)
		walked = err == nil
	}
	if walked && !now.racy {
		bs.keep(key, &keptBase{base: b, stamp: now})
	} else {
		bs.keep(key, nil)
	}
	return b, nil
}

// baseKey names a checkout read by g: the base depends on the git and the environment it
// runs with, besides what the stamp holds.
func baseKey(g gitcmd.Git, dir string) string {
	return strings.Join(append([]string{dir, g.Path}, g.Env()...), "\x00")
}

func (bs *Bases) get(key string) (keptBase, bool) {
	bs.mu.Lock()
	defer bs.mu.Unlock()
	k, ok := bs.kept[key]
	if ok {
		bs.clock++
		k.used = bs.clock
		bs.kept[key] = k
	}
	return k, ok
}

// keep keeps k for key, or forgets key's base when k is nil. It forgets others (their
// next runs' bases are read with git again) to stay within keptBases and keptBytes: the
// least recently used while there are too many, the largest while they take too much
// room, so that one big base makes room for another without the small ones going too.
// A base over keptBytes alone is not kept.
func (bs *Bases) keep(key string, k *keptBase) {
	bs.mu.Lock()
	defer bs.mu.Unlock()
	bs.forget(key)
	if k == nil {
		return
	}
	size := sizeOf(k.base)
	if size > keptBytes {
		return
	}
	for len(bs.kept) >= keptBases {
		bs.forget(bs.first(func(a, b keptBase) bool { return a.used < b.used }))
	}
	for bs.bytes+size > keptBytes && len(bs.kept) > 0 {
		bs.forget(bs.first(func(a, b keptBase) bool { return a.size > b.size }))
	}
	if bs.kept == nil {
		bs.kept = map[string]keptBase{}
	}
	bs.clock++
	k.used, k.size = bs.clock, size
	bs.kept[key] = *k
	bs.bytes += size
}

// first returns the key of the kept base that comes first by before; bs.mu is held.
func (bs *Bases) first(before func(a, b keptBase) bool) string {
	var key string
	var found *keptBase
	for k, b := range bs.kept {
		if found == nil || before(b, *found) {
			key, found = k, &b
		}
	}
	return key
}

// forget forgets key's base; bs.mu is held.
func (bs *Bases) forget(key string) {
	if old, ok := bs.kept[key]; ok {
		bs.bytes -= old.size
		delete(bs.kept, key)
	}
}
