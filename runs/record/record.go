package record

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"time"

	fastjson "github.com/segmentio/encoding/json"
	"github.com/segwi/segwi/runs/ports"
)

// Note keeps in the run's summary what e says of the run: its session, its cost and
// turns so far, its usage, its base, its exit code. Whoever emits an event, the summary that a
// subscriber reads on it is up to date.
func (in *Info) Note(e *Event) {
	switch e.Type {
	case EventInit:
		in.SessionID = e.SessionID
	case EventResult:
		if e.Result != nil {
			in.CostUSD = e.Result.CostUSD // total_cost_usd is the session's total so far
			in.Turns = e.Result.NumTurns
		}
		if e.SessionID != "" {
			in.SessionID = e.SessionID
		}
	case EventUsage:
		if e.Usage != nil {
			// A new RunUsage, not a change to the old one: copies of the Info handed out
			// share its pointer.
			u := RunUsage{}
			if in.Usage != nil {
				u = *in.Usage
				u.Models = slices.Clone(u.Models)
			}
			u.add(*e.Usage)
			in.Usage = &u
		}
	case EventBase:
		in.Base = e.Base
	case EventWorktree:
		if e.Worktree != nil {
			in.Worktree = e.Worktree
		}
	case EventPorts:
		in.Ports = e.Ports
	case EventExit:
		if e.Exit != nil {
			code := e.Exit.Code
			in.ExitCode = &code
		}
	}
}

// Info is a run's summary: what run.json holds, and what Run.Info returns for a live run.
type Info struct {
	ID       string   `json:"id"`
	Kind     Kind     `json:"kind"`
	Checkout string   `json:"checkout"`
	Prompt   string   `json:"prompt"` // what the person typed (redacted), before the kind's prefix
	Model    string   `json:"model,omitempty"`
	Argv     []string `json:"argv,omitempty"`
	State    State    `json:"state"`
	Reason   string   `json:"reason,omitempty"` // why it is in its state, for a person to read
	// Waiting says what a waiting run waits for: an approval, or the person's reply.
	Waiting   WaitReason `json:"waiting,omitempty"`
	Created   time.Time  `json:"created"`
	Start     time.Time  `json:"start,omitzero"` // when the process started
	End       time.Time  `json:"end,omitzero"`
	ExitCode  *int       `json:"exitCode,omitempty"`
	CostUSD   float64    `json:"costUSD"`
	Turns     int        `json:"turns,omitempty"`
	SessionID string     `json:"session,omitempty"`
	// Usage is what the run's agent used, the sum of its usage events (usage.go); nil
	// before its first turn ended, and for a run recorded by an older segwi.
	Usage *RunUsage `json:"usage,omitempty"`
	// Budget is what the run may use before it waits for the person, as last raised; nil
	// for none. BudgetRaises are its raises, oldest first.
	Budget       *Budget       `json:"budget,omitempty"`
	BudgetRaises []BudgetRaise `json:"budgetRaises,omitempty"`
	PID          int           `json:"pid,omitempty"` // the process (and process group) id while it runs
	// Cgroup is the cgroup (its folder) that held the run's processes, made for the run
	// alone; NoCgroup says why it had none, and segwi found its processes at its end by
	// reading /proc instead (see cgroup.go). A run recorded by an older segwi has neither.
	Cgroup   string `json:"cgroup,omitempty"`
	NoCgroup string `json:"noCgroup,omitempty"`
	// Worktree is the git worktree the run worked in, made for it (Spec.Where) or for the
	// run it continues; nil for a run in its checkout. Checkout is then the worktree's
	// folder.
	Worktree *Worktree `json:"worktree,omitempty"`
	// Ports are the TCP ports the run had in its environment (SEGWI_PORT,
	// SEGWI_PORT_COUNT); nil when it had none.
	Ports *ports.Range `json:"ports,omitempty"`
	// Base is where the checkout stood when the run started: its changes are counted from
	// there (see package changes). A run recorded by an older segwi has none.
	Base *Base `json:"base,omitempty"`
	// PullRequest is the URL of the last pull request opened for the run's branch (segwi
	// push --pr, the run window), set after the run ended.
	PullRequest string `json:"pullRequest,omitempty"`
	// Pushed is the branch last pushed for the run (segwi push, the run window), set after
	// the run ended; "" when it was never pushed, or when a segwi that did not record it
	// here pushed it (its events hold every attempt).
	Pushed string `json:"pushed,omitempty"`
	// ContinuedFrom is the run this one continues (Spec.Continue): the same checkout, its
	// Claude Code session resumed.
	ContinuedFrom string `json:"continuedFrom,omitempty"`
	// Runtime is the runtime the run's agent ran on (Spec.Runtime); "" for segwi's default,
	// Claude Code.
	Runtime string `json:"runtime,omitempty"`
	// ContinuedBy are the runs that continue this one, oldest first, set on this record when
	// each starts.
	ContinuedBy []string `json:"continuedBy,omitempty"`
	Dir         string   `json:"-"` // the run's folder
}

// Repository returns the checkout the run was started in: the repository its worktree was
// made from, else its checkout. It names the run for a person, and picks its entry in the
// settings.
func (in *Info) Repository() string {
	if in.Worktree != nil && in.Worktree.Repository != "" {
		return in.Worktree.Repository
	}
	return in.Checkout
}

// The files of a run's folder.
const (
	InfoFile   = "run.json"
	EventsFile = "events.jsonl"
	OutputFile = "output.log"
	LockFile   = "run.lock"
)

// ErrNotFound is wrapped by the errors of Load and ReadEvents for a run id that names no run.
var ErrNotFound = errors.New("run not found")

// RunsDir returns the folder that holds the run folders of stateDir.
func RunsDir(stateDir string) string { return filepath.Join(stateDir, "runs") }

// AppendJSON appends in's JSON to b, indented, as run.json and `segwi runs show --json`
// hold it: no HTML escaping, no zero times.
func (in *Info) AppendJSON(b []byte) ([]byte, error) {
	return appendPlainJSON(b, in, "  ")
}

// appendPlainJSON appends v's JSON to b as encoding/json writes it (omitzero honoured),
// without HTML escaping and without a final newline; indent "" writes it on one line.
func appendPlainJSON(b []byte, v any, indent string) ([]byte, error) {
	buf := bytes.NewBuffer(b)
	enc := json.NewEncoder(buf)
	enc.SetEscapeHTML(false)
	if indent != "" {
		enc.SetIndent("", indent)
	}
	if err := enc.Encode(v); err != nil {
		return b, err
	}
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n")), nil
}

// ReadInfo reads the record of the run in dir. Its error is fs.ErrNotExist's for a folder
// without a run.json (one being created, or not a run's), else a Damaged.
func ReadInfo(dir string) (Info, error) {
	info, _, err := ReadInfoStat(dir)
	return info, err
}

// ReadInfoStat is ReadInfo, with what stat says of the file it read (for the runs index:
// the version of the record it summarises).
func ReadInfoStat(dir string) (Info, fs.FileInfo, error) {
	path := filepath.Join(dir, InfoFile)
	damaged := func(err error) (Info, fs.FileInfo, error) {
		return Info{}, nil, Damaged{Dir: dir, File: path, Err: UnwrapPath(err)}
	}
	f, err := os.Open(path)
	if errors.Is(err, fs.ErrNotExist) {
		return Info{}, nil, err
	}
	if err != nil {
		return damaged(err)
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return damaged(err)
	}
	b, err := io.ReadAll(f)
	if err != nil {
		return damaged(err)
	}
	var info Info
	if err := json.Unmarshal(b, &info); err != nil {
		return damaged(err)
	}
	info.Dir = dir
	return info, st, nil
}

// List returns the runs recorded under stateDir, oldest first, and the records it could
// not read: a folder whose run.json is damaged is left out of the runs and named in
// damaged. Its error is for a runs folder that cannot be listed at all. It reads and
// decodes every record: Summaries lists the runs through the runs index, far quicker.
func List(stateDir string) (infos []Info, damaged []Damaged, err error) {
	entries, err := os.ReadDir(RunsDir(stateDir))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil, nil
	}
	if err != nil {
		return nil, nil, fmt.Errorf("listing runs: %w", err)
	}
	for _, e := range entries {
		if !e.IsDir() {
			continue
		}
		info, err := ReadInfo(filepath.Join(RunsDir(stateDir), e.Name()))
		var d Damaged
		switch {
		case errors.As(err, &d):
			damaged = append(damaged, d)
		case err != nil:
			continue // a folder being created, or not a run's
		default:
			infos = append(infos, info)
		}
	}
	slices.SortFunc(infos, func(a, b Info) int {
		if c := a.Created.Compare(b.Created); c != 0 {
			return c
		}
		return strings.Compare(a.ID, b.ID)
	})
	return infos, damaged, nil
}

// Load returns the record of the run id under stateDir. id may be a unique part of a run
// id at its start or at its end (see FindRun). It wraps ErrNotFound when no run matches.
func Load(stateDir, id string) (Info, error) {
	dir, err := FindRun(stateDir, id)
	if err != nil {
		return Info{}, err
	}
	return ReadInfo(dir)
}

// shownMatches is how many of the runs an ambiguous id matches its error names.
const shownMatches = 10

// FindRun returns the folder of the run id under stateDir. id may also be a unique part of
// a run id at its start (20250102-1504) or at its end (the random suffix, ab12cd): run
// ids start with the date, so the runs of a day share a long start and their ends tell
// them apart. An id that matches several runs is an error naming them.
func FindRun(stateDir, id string) (string, error) {
	if id == "" || strings.ContainsAny(id, `/\`) || id == "." || id == ".." {
		return "", fmt.Errorf("run %q: %w: a run id looks like 20250102-150405-ab12cd", id, ErrNotFound)
	}
	dir := filepath.Join(RunsDir(stateDir), id)
	if _, err := os.Stat(filepath.Join(dir, InfoFile)); err == nil {
		return dir, nil
	}
	entries, _ := os.ReadDir(RunsDir(stateDir)) // sorted by name, so by start time
	var matches []string
	for _, e := range entries {
		if name := e.Name(); e.IsDir() && (strings.HasPrefix(name, id) || strings.HasSuffix(name, id)) {
			matches = append(matches, name)
		}
	}
	switch len(matches) {
	case 1:
		return filepath.Join(RunsDir(stateDir), matches[0]), nil
	case 0:
		return "", fmt.Errorf("run %q: %w in %s; segwi runs lists the runs with their ids", id, ErrNotFound, RunsDir(stateDir))
	}
	shown := strings.Join(matches[:min(len(matches), shownMatches)], ", ")
	if len(matches) > shownMatches {
		shown += fmt.Sprintf(" and %d more", len(matches)-shownMatches)
	}
	return "", fmt.Errorf("run id %q is ambiguous: %d runs match it (%s); give more of it", id, len(matches), shown)
}

// ReadEvents calls fn with each event recorded for the run id under stateDir, in order,
// and returns when the events run out, fn returns an error (returned as is), or the file
// cannot be read (a Damaged error, after the events read before). A line cut short by a
// crash (not valid JSON) is skipped; a file of lines none of which is an event is Damaged.
func ReadEvents(stateDir, id string, fn func(Event) error) error {
	dir, err := FindRun(stateDir, id)
	if err != nil {
		return err
	}
	path := filepath.Join(dir, EventsFile)
	damaged := func(err error) error { return Damaged{Dir: dir, File: path, Err: UnwrapPath(err)} }
	f, err := os.Open(path)
	if err != nil {
		return damaged(err)
	}
	defer f.Close()
	br := bufio.NewReaderSize(f, 64<<10)
	var lines, events int
	var long []byte // a line longer than br's buffer, gathered
	for {
		line, err := br.ReadSlice('\n')
		if errors.Is(err, bufio.ErrBufferFull) {
			long = append(long, line...)
			continue
		}
		if len(long) > 0 {
			long = append(long, line...)
			line = long
		}
		var e Event
		if len(bytes.TrimSpace(line)) > 0 {
			lines++
			// segmentio's decoder, as the events were written (Event.AppendJSON): about
			// three times encoding/json's speed on a long record. It copies what it keeps.
			if fastjson.Unmarshal(line, &e) == nil {
				events++
				if ferr := fn(e); ferr != nil {
					return ferr
				}
			}
		}
		long = long[:0]
		if cap(long) > 1<<20 {
			long = nil // let a huge line's buffer go
		}
		if err == io.EOF {
			if events == 0 && lines > 0 {
				return damaged(fmt.Errorf("none of its %d lines is an event", lines))
			}
			return nil
		}
		if err != nil {
			return damaged(err)
		}
	}
}

// LockRun takes the run folder's lock, held by the segwi process that owns the run for as
// long as the run lives; the kernel drops it when that process ends, however it ends.
// It returns an error wrapping syscall.EWOULDBLOCK when another process holds it.
func LockRun(dir string) (*os.File, error) {
	f, err := os.OpenFile(filepath.Join(dir, LockFile), os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return nil, err
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		f.Close()
		return nil, err
	}
	return f, nil
}

// WaitsAtBudget says whether the run waits at its budget (WaitBudget), for the person to
// raise it or stop it.
func (in Info) WaitsAtBudget() bool { return in.State == StateWaiting && in.Waiting == WaitBudget }

// StateText is the run's state as a list shows it in a word or three: its state, or for a
// waiting run what it waits for ("waiting for your reply", "waiting for approval").
func (in Info) StateText() string { return stateText(in.State, in.Waiting) }

// AppendJSON appends e's JSON to b, one line without its newline, as events.jsonl and
// `segwi run --json` hold it: `&&`, `<` and `>` as themselves (no HTML escaping), so that
// a grep for a command finds it, and no zero times.
func (e *Event) AppendJSON(b []byte) ([]byte, error) {
	// segmentio's encoder keeps a run's reader fast (runs/bench_test.go); it does not know
	// omitzero, so the types with a zero time to leave out marshal themselves
	// (ApprovalInfo.MarshalJSON), as TestRecordLeavesOutZeroTimes checks.
	return fastjson.Append(b, e, 0)
}
