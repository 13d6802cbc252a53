package runs

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/segwi/segwi/internal/lib/gitcmd"
	"github.com/segwi/segwi/runs/changes"
)

// EventBase is segwi's event for a run's base, recorded before the agent gets its prompt:
// where the checkout stood (Event.Base), what the run's changes are counted from.
const EventBase EventType = "base"

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

// recordBase reads where the run's checkout stands (changes.ReadBase) and records it on
// the run's summary and as an event.
func (r *Run) recordBase(cfg Config) {
	ctx, cancel := context.WithTimeout(context.Background(), baseWait)
	defer cancel()
	b := changes.ReadBase(ctx, gitcmd.New("", "", cfg.Env), r.checkout)
	// git's own words may hold a remote's URL with its password; the names (branch, files)
	// are kept as they are, since a commit leaves out exactly the files named here.
	b.Error = r.m.red.String(b.Error)
	r.emit(Event{Type: EventBase, Base: &b}, false)
}

// BaseText says where a run started, for a person: "main at 1a2b3c4d5e6f, clean",
// "main at 1a2b3c4d5e6f, 2 files already changed: a.txt, b.txt".
func BaseText(b *changes.Base) string {
	switch {
	case b == nil:
		return "not recorded"
	case b.Error != "":
		return "not known: " + b.Error
	}
	var where string
	switch {
	case b.Detached:
		where = "detached HEAD at " + gitcmd.Short(b.Commit)
	case b.Unborn:
		where = b.Branch + ", no commit yet"
	default:
		where = b.Branch + " at " + gitcmd.Short(b.Commit)
	}
	if b.DirtyCount == 0 {
		return where + ", clean"
	}
	const shown = 5
	names := b.Dirty[:min(len(b.Dirty), shown)]
	more := ""
	if b.DirtyCount > len(names) {
		more = fmt.Sprintf(" and %d more", b.DirtyCount-len(names))
	}
	return fmt.Sprintf("%s, %s already changed: %s%s", where, plural(b.DirtyCount, "file"), strings.Join(names, ", "), more)
}
