package control

import "github.com/segwi/segwi/runs/record"

// MaxDiffBytes is where a diff sent over the channel is cut: far more than a diff of
// 5,000 lines, and, even with every byte escaped in JSON, well within MaxMessageBytes.
const MaxDiffBytes = 512 << 10

// MaxChangedFiles bounds the files a ChangeSet lists; ChangeSet.MoreFiles says how many
// more there were.
const MaxChangedFiles = 2000

// Changes asks what a run changed since its base (see package runs/changes): the changed
// files, and the diff of the file Path, or of every file when Path is empty. The run may
// be going or ended. Its reply carries a ChangeSet in Reply.Changes, or an error saying
// why the changes cannot be read (no base recorded, not a git checkout any more).
type Changes struct {
	Run  string `json:"run"`
	Path string `json:"path,omitempty"`
	// FilesOnly asks for the files and commits without a diff: what a push check needs.
	FilesOnly bool `json:"filesOnly,omitempty"`
	// Since is the Stamp of the ChangeSet of the same Path the asker shows: when the
	// checkout has not changed since that reading, the reply says Unchanged, and the
	// changes are not read again.
	Since string `json:"since,omitempty"`
}

// MessageType returns TypeChanges.
func (Changes) MessageType() Type { return TypeChanges }

func (c Changes) check() error { return needRun(c.Run) }

// ChangeSet is a run's changes at one moment, as the reply to Changes carries them.
type ChangeSet struct {
	// Base is where the checkout stood when the run started.
	Base record.Base `json:"base"`
	// Runs is how many runs the conversation whose changes these are holds: 1 for a run
	// alone. A conversation's changes count from its first run's base, so a file changed
	// before that run is "changed before the first run".
	Runs int `json:"runs,omitempty"`
	// Branch is the branch HEAD is on now; "" when detached.
	Branch string `json:"branch,omitempty"`
	// Files are the files changed since the base, at most MaxChangedFiles of them.
	Files []record.File `json:"files,omitempty"`
	// MoreFiles is how many changed files Files leaves out.
	MoreFiles int `json:"moreFiles,omitempty"`
	// Commits are the commits made since the base, newest first.
	Commits []record.CommitRef `json:"commits,omitempty"`
	// Path is the file Diff is of; "" for every file.
	Path string `json:"path,omitempty"`
	// Diff is the unified diff, cut at MaxDiffBytes.
	Diff record.Patch `json:"diff"`
	// Stamp names this reading, for a later Changes.Since; "" when the tray cannot tell
	// whether the checkout changed without reading the changes again.
	Stamp string `json:"stamp,omitempty"`
	// Unchanged says that the checkout has not changed since the reading Changes.Since
	// named, so that what the asker shows still holds; the other fields are then empty
	// but Stamp.
	Unchanged bool `json:"unchanged,omitempty"`
}

// Uncommitted reports whether any changed file is not committed yet.
func (c ChangeSet) Uncommitted() bool {
	for _, f := range c.Files {
		if f.Uncommitted {
			return true
		}
	}
	return false
}

// BeforeNote is how a file changed before the run (record.File.DirtyAtBase) is marked:
// before the run, or, in a conversation of several runs, before its first run.
func (c ChangeSet) BeforeNote() string {
	return ChangedBefore(c.Runs)
}

// ChangedBefore is the mark of a file already changed when the first of a conversation's
// n runs started.
func ChangedBefore(n int) string {
	if n > 1 {
		return "changed before the first run"
	}
	return "changed before the run"
}
