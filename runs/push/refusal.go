package push

import "fmt"

// Reason names why a push was refused, for callers that branch on it (a Push button that
// disables itself, a CLI exit status). The words for a person are in [RefusedError.Msg].
type Reason string

// The reasons a push is refused. Each is decided before any network call.
const (
	ReasonRunActive     Reason = "run-active"     // the run has not ended
	ReasonAskRun        Reason = "ask-run"        // the run was an ask run, which is to change nothing
	ReasonCheckoutGone  Reason = "checkout-gone"  // the folder is gone or not a git checkout
	ReasonDetachedHead  Reason = "detached-head"  // HEAD is not on a branch
	ReasonNoCommits     Reason = "no-commits"     // the branch has no commit yet
	ReasonDefaultBranch Reason = "default-branch" // the branch is the remote's default branch
	ReasonNoRemote      Reason = "no-remote"      // the remote is not configured
	ReasonRemoteSetup   Reason = "remote-setup"   // several push URLs, or a foreign vcs helper
	ReasonNotHTTPS      Reason = "not-https"      // the remote is ssh, git, a path, or plain http
	ReasonTokenHost     Reason = "token-host"     // the remote's host is not one the token is for
	ReasonNoToken       Reason = "no-token"       // no GitHub token is set
	ReasonKeyring       Reason = "keyring"        // the keyring could not be read
	ReasonUnsupported   Reason = "unsupported"    // this system cannot run the credential channel
)

// RefusedError is returned when segwi will not push, before it reads the token (except for
// the token reasons themselves) and before any network call.
type RefusedError struct {
	Reason Reason // why, for code
	Msg    string // what happened and what to do, for a person
}

// Error returns the words for a person, prefixed by the operation.
func (e *RefusedError) Error() string { return "push refused: " + e.Msg }

func refuse(reason Reason, format string, args ...any) *RefusedError {
	return &RefusedError{Reason: reason, Msg: fmt.Sprintf(format, args...)}
}
