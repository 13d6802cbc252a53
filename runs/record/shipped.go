package record

import (
	"errors"
	"fmt"
	"strings"
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
var ErrAskRun = errors.New(AskRunRefusal)

// PullRequest is a pull request opened for a run's branch.
type PullRequest struct {
	Number int    `json:"number"`
	URL    string `json:"url"`
	Head   string `json:"head"` // the pushed branch
	Base   string `json:"base"` // the branch it is to be merged into
}

// CommitText says what a commit of a run's changes holds, for a person: "1a2b3c4d5e6f on
// segwi/fix: Fix the login (2 files; left out, changed before the run: notes.txt)".
func CommitText(c Committed) string {
	text := fmt.Sprintf("%s on %s: %s (%s", shortHash(c.Commit), c.Branch, c.Subject, Plural(len(c.Files), "file"))
	if len(c.LeftOut) > 0 {
		text += "; left out, changed before the run: " + strings.Join(c.LeftOut, ", ")
	}
	return text + ")"
}

// shortHash is a commit's hash as segwi shows it, its first 12 digits: gitcmd.Short's cut,
// here so that the words of a record need no git (TestShortHashCutsAsGitDoes holds them
// together).
func shortHash(hash string) string { return hash[:min(len(hash), 12)] }
