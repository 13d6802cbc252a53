package runs

import (
	"errors"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/segwi/segwi/internal/lib/gitcmd"
	"github.com/segwi/segwi/runs/changes"
	"github.com/segwi/segwi/runs/push"
)

// segwi's events for what happens to a run after it ended, besides a push (EventPush).
const (
	// EventCommit is a commit of the run's changes made for the person (Event.Commit).
	EventCommit EventType = "commit"
	// EventPullRequest is a pull request opened for the run's branch (Event.PullRequest).
	EventPullRequest EventType = "pull-request"
	// EventContinued says a later run continues this one (Event.Text names it).
	EventContinued EventType = "continued"
)

// ErrAskRun is wrapped by the errors of what refuses to ship an ask run's work (a commit,
// a pull request): an ask run is to change nothing. A push's refusal is a
// *push.RefusedError with push.ReasonAskRun, in the same words.
var ErrAskRun = errors.New(push.AskRunRefusal)

// PullRequest is a pull request opened for a run's branch.
type PullRequest struct {
	Number int    `json:"number"`
	URL    string `json:"url"`
	Head   string `json:"head"` // the pushed branch
	Base   string `json:"base"` // the branch it is to be merged into
}

// Annotate records what happened to the ended run id (or unique id prefix) under stateDir
// after it ended: it applies change to its run.json (nil: no change) and appends e to its
// events, as AppendEvent does, both under the run folder's lock. It returns the record as
// written. It fails, wrapping ErrRunLive, while a segwi process still owns the run, and
// wraps ErrNotFound for an unknown id.
func Annotate(stateDir, id string, e Event, change func(*Info), secrets ...string) (Info, error) {
	dir, lock, err := lockEnded(stateDir, id)
	if err != nil {
		return Info{}, err
	}
	defer lock.Close()
	id = filepath.Base(dir)
	info, err := readInfo(dir)
	if err != nil {
		return Info{}, fmt.Errorf("recording on run %s: %w", id, err)
	}
	if change != nil {
		change(&info)
		if err := writeInfo(dir, info); err != nil {
			return Info{}, fmt.Errorf("recording on run %s: %w", id, err)
		}
	}
	if _, err := appendLocked(dir, e, secrets...); err != nil {
		return Info{}, err
	}
	return info, nil
}

// CommitText says what a commit of a run's changes holds, for a person: "1a2b3c4d5e6f on
// segwi/fix: Fix the login (2 files; left out, changed before the run: notes.txt)".
func CommitText(c changes.Committed) string {
	text := fmt.Sprintf("%s on %s: %s (%s", gitcmd.Short(c.Commit), c.Branch, c.Subject, plural(len(c.Files), "file"))
	if len(c.LeftOut) > 0 {
		text += "; left out, changed before the run: " + strings.Join(c.LeftOut, ", ")
	}
	return text + ")"
}
