package record

import (
	"errors"
	"time"
)

// ErrGitHubRefused is matched (errors.Is) by GitHub's answer to a call it refused (a 4xx
// or 5xx status), as opposed to a call that never got an answer.
var ErrGitHubRefused = errors.New("GitHub refused the call")

// AskRunRefusal says why nothing of an ask run is pushed, committed or opened as a pull
// request: the words of ReasonAskRun.
const AskRunRefusal = "the run is an ask run: it was to change nothing, so segwi ships nothing of it; start a build run for changes"

// Outcome is how an attempt ended.
type Outcome string

// Attempt is the record of one push attempt, for the run's events. No field holds the
// token or URL credentials.
type Attempt struct {
	Time      time.Time `json:"time"`
	Remote    string    `json:"remote"`
	URL       string    `json:"url,omitempty"`    // the push URL without user or password
	Branch    string    `json:"branch,omitempty"` // short name, e.g. "segwi/fix-login"
	Commit    string    `json:"commit,omitempty"` // full hash of the pushed commit
	Outcome   Outcome   `json:"outcome"`
	Reason    Reason    `json:"reason,omitempty"`    // set when Outcome is Refused
	Message   string    `json:"message"`             // what happened, for a person
	GitOutput string    `json:"gitOutput,omitempty"` // git push's output, redacted and capped
}

// Reason names why a push was refused, for callers that branch on it (a Push button that
// disables itself, a CLI exit status). The words for a person are in [RefusedError.Msg].
type Reason string

// The outcomes of an attempt.
const (
	Pushed  Outcome = "pushed"  // the branch is on the remote
	Refused Outcome = "refused" // segwi did not push; nothing was sent
	Failed  Outcome = "failed"  // git push ran and did not succeed
)

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
