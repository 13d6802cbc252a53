package control

import (
	"errors"
	"fmt"

	"github.com/segwi/segwi/canary/guard"
	"github.com/segwi/segwi/runs/record"
	"github.com/segwi/segwi/settings/token"
)

// Hello opens a connection, both ways: each side sends one first, then reads the other's.
type Hello struct {
	// Version is the channel version the sender speaks: Version.
	Version int `json:"version"`
	// Program names the sender for messages, e.g. "segwi 0.4.0 tray".
	Program string `json:"program"`
	// Role is set by the tray only: what it lets this client do.
	Role Role `json:"role,omitempty"`
}

// MessageType returns TypeHello.
func (Hello) MessageType() Type { return TypeHello }

func (h Hello) check() error {
	if h.Version <= 0 {
		return fmt.Errorf("version %d: want a positive version", h.Version)
	}
	return nil
}

// VersionError is the error of a connection whose two sides speak different versions.
type VersionError struct {
	Ours, Theirs             int
	OurProgram, TheirProgram string
}

func (e *VersionError) Error() string {
	return fmt.Sprintf("control: version mismatch: this side (%s) speaks channel version %d, the other side (%s) speaks version %d; "+
		"both must come from the same build of segwi: install segwi and segwi-windows together "+
		"(scripts/run.sh builds both; the package installs both), then quit segwi and start it again", e.OurProgram, e.Ours, e.TheirProgram, e.Theirs)
}

// Reply answers one request: its Message.ID is the request's. An empty Error means done.
type Reply struct {
	Error string `json:"error,omitempty"` // what went wrong, for a person to read
	// Code names the error when a caller may branch on it (see Failed); empty otherwise.
	Code  Code         `json:"code,omitempty"`
	Run   string       `json:"run,omitempty"`   // the run a Start started
	Text  string       `json:"text,omitempty"`  // what a Push did, the canary's report, in words
	Token *token.State `json:"token,omitempty"` // TokenStatus: whether a GitHub token is in the keyring, for which host
	// TokenCheck is what GitHub said of the keyring's token (CheckToken).
	TokenCheck *TokenCheck `json:"tokenCheck,omitempty"`
	// Commit is what a Commit committed, and the files it left out.
	Commit *record.Committed `json:"commit,omitempty"`
	// PullRequest is the pull request an OpenPullRequest opened.
	PullRequest *record.PullRequest `json:"pullRequest,omitempty"`
	// Changes is what a run changed (Changes).
	Changes *ChangeSet `json:"changes,omitempty"`
	// Guard is what setting up the guard hook would write (PlanGuard).
	Guard *GuardPlan `json:"guard,omitempty"`
	// Worktree is what removing a run's worktree would lose (InspectWorktree).
	Worktree *record.Loss `json:"worktree,omitempty"`
}

// MessageType returns TypeReply.
func (Reply) MessageType() Type { return TypeReply }

// Err returns the reply's error, or nil when the request was done. The error matches the
// sentinel its Code names with errors.Is.
func (r Reply) Err() error {
	if r.Error == "" {
		return nil
	}
	return &ReplyError{Text: r.Error, Code: r.Code}
}

// Failed returns the reply of a request that failed with err, its Code set when err is
// one of the errors callers branch on (see Codes).
func Failed(err error) Reply {
	if err == nil {
		return Reply{}
	}
	r := Reply{Error: err.Error()}
	for _, c := range codes {
		if errors.Is(err, c.err) {
			r.Code = c.code
			break
		}
	}
	return r
}

// Code names an error a caller may branch on, across the channel.
type Code string

// The codes, each for one sentinel error of segwi's packages.
const (
	CodeRunNotRunning   Code = "run-not-running"   // record.ErrNotRunning
	CodeRunInputClosed  Code = "run-input-closed"  // record.ErrInputClosed
	CodeRunNotFound     Code = "run-not-found"     // record.ErrNotFound
	CodeNoToken         Code = "token-not-found"   // token.ErrNotFound
	CodeNoKeyring       Code = "token-unavailable" // token.ErrUnavailable
	CodeAskRun          Code = "ask-run"           // record.ErrAskRun: nothing of an ask run is shipped
	CodeNoSession       Code = "no-session"        // record.ErrNoSession: the run cannot be continued
	CodeNothingToCommit Code = "nothing-to-commit" // record.ErrNothingToCommit
	CodeNoGuardDeny     Code = "canary-no-guard"   // guard.ErrNoDeny
	CodeLeaving         Code = "windows-leaving"   // ErrLeaving
	CodeGitHubRefused   Code = "github-refused"    // record.ErrGitHubRefused
)

var codes = []struct {
	code Code
	err  error
}{
	{CodeRunNotRunning, record.ErrNotRunning},
	{CodeRunInputClosed, record.ErrInputClosed},
	{CodeRunNotFound, record.ErrNotFound},
	{CodeNoToken, token.ErrNotFound},
	{CodeNoKeyring, token.ErrUnavailable},
	{CodeAskRun, record.ErrAskRun},
	{CodeNoSession, record.ErrNoSession},
	{CodeNothingToCommit, record.ErrNothingToCommit},
	{CodeNoGuardDeny, guard.ErrNoDeny},
	{CodeLeaving, ErrLeaving},
	{CodeGitHubRefused, record.ErrGitHubRefused},
}

// ErrLeaving is the window process's answer to a Show that came once it had decided to
// leave (its last window closed a while ago, or it quits): the window did not open, and
// the tray asks the window process it starts next.
var ErrLeaving = errors.New("the window process is leaving, so it opens no new window")

// ReplyError is a request's error as the other side's reply said it: its words, and the
// sentinel error it stands for, which errors.Is matches.
type ReplyError struct {
	Text string
	Code Code
}

func (e *ReplyError) Error() string { return e.Text }

// Is reports whether target is the sentinel error e's Code names.
func (e *ReplyError) Is(target error) bool {
	for _, c := range codes {
		if c.code == e.Code && c.err == target {
			return true
		}
	}
	return false
}
