package record

import (
	"time"

	"github.com/segwi/segwi/internal/lib/visible"
)

// Summary is a run as a list of runs shows it: its record (Info) without what only the
// run's own window reads (its command line, its base, its whole task). The runs index
// keeps one for each run (see Summaries), so that a list of thousands of runs reads one
// file rather than every run.json.
//
// A field a list needs is added here, from Info (SummaryOf), with indexVersion raised: an
// index of another version is rebuilt from the records.
type Summary struct {
	ID       string `json:"id"`
	Kind     Kind   `json:"kind"`
	Checkout string `json:"checkout"`
	// Repository is the checkout the run was started in (Info.Repository): its checkout,
	// or the repository its worktree was made from.
	Repository string `json:"repository,omitempty"`
	// Worktree and Branch are the folder and branch of the run's worktree (Info.Worktree);
	// "" for a run in its checkout.
	Worktree string `json:"worktree,omitempty"`
	Branch   string `json:"branch,omitempty"`
	// Task is the first line of the run's task (Info.Prompt), cut at SummaryTaskRunes
	// runes, with an ellipsis when anything was left out.
	Task    string     `json:"task,omitempty"`
	Model   string     `json:"model,omitempty"`
	State   State      `json:"state"`
	Waiting WaitReason `json:"waiting,omitempty"`
	Created time.Time  `json:"created"`
	Start   time.Time  `json:"start,omitzero"`
	End     time.Time  `json:"end,omitzero"`
	CostUSD float64    `json:"costUSD,omitempty"`
	Turns   int        `json:"turns,omitempty"`
	// Usage is what the run used in all (Info.Usage without its models): what `segwi
	// usage` and the Usage window sum.
	Usage *Usage `json:"usage,omitempty"`
	// PullRequest is the URL of the last pull request opened for the run's branch.
	PullRequest string `json:"pullRequest,omitempty"`
	// Pushed is the branch last pushed for the run (Info.Pushed).
	Pushed string `json:"pushed,omitempty"`
	// ContinuedFrom is the run this one continues: runs that continue one another are a
	// conversation.
	ContinuedFrom string `json:"continuedFrom,omitempty"`
	// Runtime is the runtime the run's agent ran on (Info.Runtime); "" for Claude Code.
	Runtime string `json:"runtime,omitempty"`
	// Cgroup is the cgroup that held the run's processes (Info.Cgroup): an ended run's is
	// looked at again when segwi starts, in case it could not be removed.
	Cgroup string `json:"cgroup,omitempty"`
	Dir    string `json:"-"` // the run's folder
}

// SummaryTaskRunes is how much of a run's task its Summary keeps: the first line, cut at
// this many runes.
const SummaryTaskRunes = 200

// SummaryOf returns the summary of the run info records.
func SummaryOf(info Info) Summary {
	var usage *Usage
	if info.Usage != nil {
		usage = &info.Usage.Usage
	}
	s := Summary{
		ID: info.ID, Kind: info.Kind, Checkout: info.Checkout, Task: visible.FirstLine(info.Prompt, SummaryTaskRunes),
		Model: info.Model, State: info.State, Waiting: info.Waiting,
		Created: info.Created, Start: info.Start, End: info.End, CostUSD: info.CostUSD, Turns: info.Turns, Usage: usage,
		PullRequest: info.PullRequest, Pushed: info.Pushed, ContinuedFrom: info.ContinuedFrom, Cgroup: info.Cgroup, Dir: info.Dir,
		Repository: info.Repository(),
		Runtime:    info.Runtime,
	}
	if w := info.Worktree; w != nil {
		s.Worktree, s.Branch = w.Path, w.Branch
	}
	return s
}

// StateText is the run's state as a list shows it, as Info.StateText says.
func (s Summary) StateText() string { return stateText(s.State, s.Waiting) }
