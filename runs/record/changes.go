package record

import (
	"errors"
	"fmt"
	"slices"
)

// MaxDirty bounds the files a Base lists as already changed; Base.DirtyCount says how
// many there were.
const MaxDirty = 10000

// Base is where a checkout stood when a run started: what the run's changes are counted
// from.
type Base struct {
	// Repo is the top folder of the checkout's work tree (the run's checkout, or a folder
	// above it). Paths are relative to it, with forward slashes.
	Repo string `json:"repo,omitempty"`
	// Branch is the branch HEAD was on, short name; "" when HEAD was detached.
	Branch string `json:"branch,omitempty"`
	// Commit is HEAD's commit; "" when the branch had no commit yet (Unborn).
	Commit string `json:"commit,omitempty"`
	// Detached says HEAD was not on a branch.
	Detached bool `json:"detached,omitempty"`
	// Unborn says the branch had no commit yet: every file is the run's or was dirty.
	Unborn bool `json:"unborn,omitempty"`
	// Dirty lists the files already changed: tracked files that differed from HEAD and
	// untracked files that are not ignored, sorted, at most MaxDirty of them.
	Dirty []string `json:"dirty,omitempty"`
	// DirtyCount is how many files were dirty: more than len(Dirty) when the list was cut.
	DirtyCount int `json:"dirtyCount,omitempty"`
	// Error says why no base could be read (not a git checkout, git missing); the other
	// fields are then empty.
	Error string `json:"error,omitempty"`
}

// Known reports whether b was read: its checkout is a git work tree and git answered.
func (b *Base) Known() bool { return b != nil && b.Error == "" && b.Repo != "" }

// DirtyCut reports whether Dirty lists fewer files than were dirty.
func (b *Base) DirtyCut() bool { return b != nil && b.DirtyCount > len(b.Dirty) }

// WasDirty reports whether path was among the files already changed at the base.
func (b *Base) WasDirty(path string) bool {
	if b == nil {
		return false
	}
	_, found := slices.BinarySearch(b.Dirty, path)
	return found
}

// CommitOptions say what to commit.
type CommitOptions struct {
	// Message is the commit message; required. Front ends prefill it from the run's task.
	Message string
	// Include names files that were already changed before the run (Base.Dirty) to
	// commit too; Commit leaves those out otherwise.
	Include []string
	// Reflog is the reason recorded in the branch's reflog, e.g. "segwi: commit of run ID".
	Reflog string
}

// Committed is a commit Commit made.
type Committed struct {
	Commit  string   `json:"commit"`            // the new commit
	Parent  string   `json:"parent,omitempty"`  // the commit it follows; "" for a first commit
	Branch  string   `json:"branch"`            // the branch it is on, short name
	Subject string   `json:"subject"`           // the message's first line
	Author  string   `json:"author"`            // "Name <email>", from the person's git configuration
	Files   []string `json:"files"`             // the files it holds changes of
	LeftOut []string `json:"leftOut,omitempty"` // uncommitted files it left out: changed before the run, not named
	// IndexNote says, when not empty, that the person's index could not be brought in line
	// with the new commit, and what to do; the commit itself is made.
	IndexNote string `json:"indexNote,omitempty"`
}

// ErrNothingToCommit is matched (errors.Is) by the RefusedError of a Commit that found no
// uncommitted change of the run's: what a caller shows as "nothing to commit", not as a
// failure.
var ErrNothingToCommit = errors.New("nothing to commit")

// Patch is a unified diff of a run's changes.
type Patch struct {
	// Text is the diff as git prints it (a binary file is named, never dumped), whole
	// lines only. When Cut, it ends where the limit was reached.
	Text string
	// Cut says the diff was longer than the limit; CutNote says so in words.
	Cut bool
	// Limit is the limit it was cut at, in bytes.
	Limit int
}

// CutNote says, for a person, that the diff was cut and where: "" when it was not.
func (p Patch) CutNote() string {
	if !p.Cut {
		return ""
	}
	return fmt.Sprintf("[segwi: the diff is cut here: it is longer than %s; look at one file at a time]", sizeText(p.Limit))
}

// sizeText is n bytes for a person: "512 bytes", "4 MiB", "1.5 KiB".
func sizeText(n int) string {
	switch {
	case n >= 1<<20:
		return trimZero(fmt.Sprintf("%.1f", float64(n)/(1<<20))) + " MiB"
	case n >= 1<<10:
		return trimZero(fmt.Sprintf("%.1f", float64(n)/(1<<10))) + " KiB"
	}
	return fmt.Sprintf("%d bytes", n)
}

func trimZero(s string) string {
	if len(s) > 2 && s[len(s)-2:] == ".0" {
		return s[:len(s)-2]
	}
	return s
}

// MaxTextBytes is the size from which a file is treated as binary: named among the
// changes, its lines neither counted nor shown (core.bigFileThreshold in the scratch
// repository).
const MaxTextBytes = 4 << 20

// Status is how a file changed since the base.
type Status string

// File is one file the run changed.
type File struct {
	Path    string `json:"path"`              // relative to Base.Repo, with forward slashes
	OldPath string `json:"oldPath,omitempty"` // where a renamed file was
	Status  Status `json:"status"`
	Added   int    `json:"added,omitempty"`   // lines added; none counted for a binary file
	Deleted int    `json:"deleted,omitempty"` // lines deleted
	// Binary says git shows no lines of it: its content is binary, or it is larger than
	// MaxTextBytes.
	Binary bool `json:"binary,omitempty"`
	// Uncommitted says the work tree holds changes to it that no commit does: what Commit
	// takes.
	Uncommitted bool `json:"uncommitted,omitempty"`
	// DirtyAtBase says it (or, renamed, its old path) was already changed before the run:
	// its changes may be the person's, and Commit leaves it out unless it is named.
	DirtyAtBase bool `json:"dirtyAtBase,omitempty"`
}

// Name is the file as a person reads it in a list: its path, or "old → new" when renamed.
func (f File) Name() string {
	if f.OldPath != "" {
		return f.OldPath + " → " + f.Path
	}
	return f.Path
}

// Lines is what changed in it, in a list: "+12 -3", or "binary".
func (f File) Lines() string {
	if f.Binary {
		return "binary"
	}
	return fmt.Sprintf("+%d -%d", f.Added, f.Deleted)
}

// CommitRef is a commit made since the base.
type CommitRef struct {
	Hash    string `json:"hash"`
	Subject string `json:"subject"`
}

// The statuses of a changed file.
const (
	Added       Status = "added"
	Modified    Status = "modified"
	Deleted     Status = "deleted"
	Renamed     Status = "renamed"      // moved, perhaps changed too; File.OldPath is where it was
	TypeChanged Status = "type-changed" // a file became a symlink, a submodule, or back
)
