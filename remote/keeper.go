package remote

import (
	"context"
	"slices"
	"sync"

	"github.com/segwi/segwi/internal/lib/logger"
	"github.com/segwi/segwi/settings"
)

// Keeper keeps the approval page served as the settings in force say: no Server while
// segwi.remote.enabled is off, one as soon as it is on, and a new one when its port,
// owners or socket change on a reload. (A Server itself follows tailscaled: a change of
// this machine's addresses moves it.) It is safe for concurrent use.
type Keeper struct {
	hub     Hub
	logf    logger.Logf
	changed func()

	mu      sync.Mutex
	applied settings.Remote // what Apply was last given
	srv     *Server
	stop    context.CancelFunc
	done    chan struct{} // closed once srv's Run has returned
	err     error         // why no Server could be made for applied
}

// NewKeeper returns a Keeper of pages that are clients of hub and write to logf. changed,
// when not nil, is called (without blocking for long) each time Status may have changed.
func NewKeeper(hub Hub, logf logger.Logf, changed func()) *Keeper {
	if changed == nil {
		changed = func() {}
	}
	return &Keeper{hub: hub, logf: logf, changed: changed}
}

// Apply serves the page as r says, until ctx is done or the next Apply or Stop: it stops
// the page when r is off, and starts it again when r differs from what it serves. It
// returns once the old page, if any, has stopped.
func (k *Keeper) Apply(ctx context.Context, r settings.Remote) {
	k.mu.Lock()
	defer k.mu.Unlock()
	if k.done != nil && sameRemote(k.applied, r) {
		return
	}
	k.stopLocked()
	k.applied, k.err = r, nil
	if r.Enabled {
		k.startLocked(ctx)
	}
	go k.changed()
}

func (k *Keeper) startLocked(ctx context.Context) {
	srv, err := New(Config{Port: k.applied.Port, Owners: k.applied.Owners, Socket: k.applied.Socket, Hub: k.hub,
		Logf: k.logf, OnState: func(State) { k.changed() }})
	if err != nil {
		k.err = err
		k.logf.Printf("remote: the approval page is not served: %v", err)
		return
	}
	ctx, stop := context.WithCancel(ctx)
	done := make(chan struct{})
	k.srv, k.stop, k.done = srv, stop, done
	go func() {
		defer close(done)
		srv.Run(ctx) //nolint:errcheck // it fails only when run twice
	}()
}

// Stop stops the page, and returns once it has stopped listening.
func (k *Keeper) Stop() {
	k.mu.Lock()
	defer k.mu.Unlock()
	k.stopLocked()
	k.applied = settings.Remote{}
}

func (k *Keeper) stopLocked() {
	if k.done == nil {
		return
	}
	k.stop()
	<-k.done
	k.srv, k.stop, k.done = nil, nil, nil
}

// Status says whether the page is on (segwi.remote.enabled), and where it is served or
// why it is not.
func (k *Keeper) Status() (on bool, st State) {
	k.mu.Lock()
	defer k.mu.Unlock()
	switch {
	case !k.applied.Enabled:
		return false, State{}
	case k.srv == nil:
		return true, State{Err: k.err}
	}
	return true, k.srv.State()
}

func sameRemote(a, b settings.Remote) bool {
	return a.Enabled == b.Enabled && a.Port == b.Port && a.Socket == b.Socket && slices.Equal(a.Owners, b.Owners)
}
