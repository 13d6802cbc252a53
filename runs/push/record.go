package push

import "github.com/segwi/segwi/runs/record"

// What a push leaves in a run's record (an Attempt, its Outcome and the Reason of a
// refusal) is declared in package record, a leaf the window program links without this
// package's git and network; these are its names here.
type (
	Outcome = record.Outcome
	Attempt = record.Attempt
	Reason  = record.Reason
)

const (
	AskRunRefusal       = record.AskRunRefusal
	Pushed              = record.Pushed
	Refused             = record.Refused
	Failed              = record.Failed
	ReasonRunActive     = record.ReasonRunActive
	ReasonAskRun        = record.ReasonAskRun
	ReasonCheckoutGone  = record.ReasonCheckoutGone
	ReasonDetachedHead  = record.ReasonDetachedHead
	ReasonNoCommits     = record.ReasonNoCommits
	ReasonDefaultBranch = record.ReasonDefaultBranch
	ReasonNoRemote      = record.ReasonNoRemote
	ReasonRemoteSetup   = record.ReasonRemoteSetup
	ReasonNotHTTPS      = record.ReasonNotHTTPS
	ReasonTokenHost     = record.ReasonTokenHost
	ReasonNoToken       = record.ReasonNoToken
	ReasonKeyring       = record.ReasonKeyring
	ReasonUnsupported   = record.ReasonUnsupported
)

var (
	ErrGitHubRefused = record.ErrGitHubRefused
)
