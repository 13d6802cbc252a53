package runs

import (
	"context"
	"time"

	"github.com/segwi/segwi/internal/lib/gitcmd"
	"github.com/segwi/segwi/runs/changes"
)

// baseWait bounds the reading of a run's base: a very large work tree must not hold up the
// run's prompt for long; the run goes on without a known base then.
const baseWait = time.Minute

// startBase reads where the run's checkout stands and records it (recordBase) on a
// goroutine of its own, while the agent starts: however many files the checkout holds,
// no git runs between the run's start and the agent's. The channel it returns is closed
// once the base is recorded; the run's start waits for it before its prompt goes. Until
// its first message the agent changes no file, so the base is where the checkout stood
// before the run. (A SessionStart hook of the person's, which runs as the agent starts,
// may: what it changes while the base is read counts as already changed or as the
// run's, depending on which git read first.)
func (r *Run) startBase(cfg Config) <-chan struct{} {
	done := make(chan struct{})
	go func() {
		defer close(done)
		r.recordBase(cfg)
	}()
	return done
}

// recordBase reads where the run's checkout stands (changes.ReadBase; with
// Config.KeepBases through the manager's changes.Bases, so that a checkout unchanged since
// the last run's base gives that base again, without git) and records it on the run's
// summary and as an event.
func (r *Run) recordBase(cfg Config) {
	ctx, cancel := context.WithTimeout(context.Background(), baseWait)
	defer cancel()
	read := changes.ReadBase
	if cfg.KeepBases {
		read = r.m.bases.Read
	}
	b := read(ctx, gitcmd.New("", "", cfg.Env), r.checkout)
	// git's own words may hold a remote's URL with its password; the names (branch, files)
	// are kept as they are, since a commit leaves out exactly the files named here.
	b.Error = r.m.red.String(b.Error)
	r.emit(Event{Type: EventBase, Base: &b}, toFile)
}
