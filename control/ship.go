package control

import (
	"errors"
	"strings"
)

// Commit commits what an ended run changed, as the person (core.Shipper.Commit): the
// uncommitted files of the run, those already changed before it only when Include names
// them (paths relative to the repository's top folder). An empty Message is the run's
// task's first line. Its reply's Commit says what was committed and left out; its error
// says why nothing was.
type Commit struct {
	Run     string   `json:"run"`
	Message string   `json:"message,omitempty"`
	Include []string `json:"include,omitempty"`
}

// MessageType returns TypeCommit.
func (Commit) MessageType() Type { return TypeCommit }

func (c Commit) check() error { return needRun(c.Run) }

// OpenPullRequest opens a pull request for the branch last pushed for an ended run
// (core.Shipper.OpenPullRequest) and records its URL on the run (record.Info.PullRequest).
// Empty fields take the defaults: the repository's default branch as Base, the run's task
// as Title, a body naming the run, its task and its result. Its reply's PullRequest is
// the one opened.
type OpenPullRequest struct {
	Run   string `json:"run"`
	Base  string `json:"base,omitempty"`
	Title string `json:"title,omitempty"`
	Body  string `json:"body,omitempty"`
	Draft bool   `json:"draft,omitempty"`
}

// MessageType returns TypeOpenPullRequest.
func (OpenPullRequest) MessageType() Type { return TypeOpenPullRequest }

func (o OpenPullRequest) check() error { return needRun(o.Run) }

// Continue starts a run that continues an ended one (runs.Manager.Continue): the same
// checkout, kind and model, its Claude Code session resumed, Prompt its next message.
// Its reply's Run is the new run.
type Continue struct {
	Run      string `json:"run"`
	Prompt   string `json:"prompt"`
	KeepOpen bool   `json:"keepOpen,omitempty"`
}

// MessageType returns TypeContinue.
func (Continue) MessageType() Type { return TypeContinue }

func (c Continue) check() error {
	if strings.TrimSpace(c.Prompt) == "" {
		return errors.New("no prompt to continue the run with")
	}
	return needRun(c.Run)
}
