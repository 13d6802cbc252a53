package runs

import (
	"bytes"
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/segwi/segwi/internal/lib/redact"
)

// ErrLeftoverAlive is wrapped by KillLeftovers' error when a process of the run could not
// be killed.
var ErrLeftoverAlive = errors.New("a process the run left is still running")

// leftoverWait bounds how long segwi waits for the processes a run left to end after
// SIGKILL; one that has not by then is recorded as not killed.
const leftoverWait = 5 * time.Second

// maxLeftoverEvents bounds the leftover events of one sweep; the rest are counted.
const maxLeftoverEvents = 100

// Where a run's leftovers were found, for the words of their events.
const (
	atRunEnd        = ""
	afterSegwiEnded = " after the segwi that ran it ended"
	afterRunEnded   = " after it ended"
	beforePush      = " before a push"
)

// liveRuns are the runs of this segwi process that have a process: a process carrying
// the id of one of them is that run's, never an orphan of another.
var liveRuns struct {
	mu  sync.Mutex
	ids map[string]bool
}

func trackRun(id string) {
	liveRuns.mu.Lock()
	defer liveRuns.mu.Unlock()
	if liveRuns.ids == nil {
		liveRuns.ids = map[string]bool{}
	}
	liveRuns.ids[id] = true
}

func untrackRun(id string) {
	liveRuns.mu.Lock()
	defer liveRuns.mu.Unlock()
	delete(liveRuns.ids, id)
}

func isLiveRun(id string) bool {
	liveRuns.mu.Lock()
	defer liveRuns.mu.Unlock()
	return liveRuns.ids[id]
}

// killScope kills every process of sc with SIGKILL and waits for them to end, scanning
// again until a scan finds none left (a process may fork while its siblings die), for at
// most leftoverWait. It returns each process found, in the order found; one that ended
// by itself before the kill is left out.
func killScope(sc scope) ([]ProcessInfo, error) {
	if !canFindLeftovers {
		return nil, nil
	}
	type identity struct {
		pid   int
		start uint64
	}
	deadline := time.Now().Add(leftoverWait)
	seen := map[identity]int{} // index in found, or -1 for a process that ended by itself
	var found []ProcessInfo
	var pending []proc // killed, not yet seen to end
	for {
		snapshot, err := scanProcs()
		if err != nil {
			return found, err
		}
		fresh := 0
		for _, p := range attribute(snapshot, sc) {
			id := identity{p.PID, p.Start}
			if _, ok := seen[id]; ok {
				continue
			}
			fresh++
			info := ProcessInfo{PID: p.PID, Command: commandLine(p.PID)}
			sent, err := killProc(p)
			switch {
			case err != nil:
				info.Error = err.Error()
			case !sent:
				seen[id] = -1
				continue
			default:
				info.Killed = true
				pending = append(pending, p)
			}
			seen[id] = len(found)
			found = append(found, info)
		}
		for len(pending) > 0 {
			reapOrphans()
			pending = slices.DeleteFunc(pending, gone)
			if len(pending) == 0 || time.Now().After(deadline) {
				break
			}
			time.Sleep(5 * time.Millisecond)
		}
		for _, p := range pending {
			i := seen[identity{p.PID, p.Start}]
			found[i].Killed = false
			found[i].Error = fmt.Sprintf("still running %s after SIGKILL", leftoverWait)
		}
		if fresh == 0 || len(pending) > 0 || time.Now().After(deadline) {
			return found, nil
		}
	}
}

// leftoverEvents returns the events that say what became of the processes found, where
// says when they were found (atRunEnd, ...), and red redacts their command lines.
func leftoverEvents(found []ProcessInfo, where string, red func(string) string) []Event {
	var events []Event
	for i, info := range found {
		if i == maxLeftoverEvents {
			events = append(events, Event{Type: EventStatus, Subtype: "leftover",
				Text: fmt.Sprintf("and %d more processes the run left running%s (not listed)", len(found)-i, where)})
			break
		}
		info.Command = red(info.Command)
		text := fmt.Sprintf("killed process %d, which the run left running%s: %s", info.PID, where, info.Command)
		if !info.Killed {
			text = fmt.Sprintf("could not kill process %d, which the run left running%s (%s): %s", info.PID, where, info.Error, info.Command)
		}
		events = append(events, Event{Type: EventLeftover, Text: text, Process: &info})
	}
	return events
}

// leftoverSummary says in a few words what leftovers killed: "" when there were none.
func leftoverSummary(found []ProcessInfo) string {
	killed, alive := 0, 0
	for _, info := range found {
		if info.Killed {
			killed++
		} else {
			alive++
		}
	}
	var parts []string
	if killed > 0 {
		parts = append(parts, fmt.Sprintf("killed %s the run left running", processes(killed)))
	}
	if alive > 0 {
		parts = append(parts, fmt.Sprintf("could not kill %s the run left running (see its events)", processes(alive)))
	}
	return strings.Join(parts, "; ")
}

func processes(n int) string {
	if n == 1 {
		return "1 process"
	}
	return fmt.Sprintf("%d processes", n)
}

// endLeftovers kills the processes the run left, once its agent exited and before the run
// gives up its checkout and its slot, and returns what it found and the events saying so:
// those in the run's cgroup, or where it has none, those the sweep finds.
func (r *Run) endLeftovers(p *process) ([]ProcessInfo, []Event) {
	defer untrackRun(r.id)
	if p.cgroup != nil {
		return r.endCgroup(p.cgroup)
	}
	self, pgid, sid := selfIDs()
	found, err := killScope(scope{
		runID: r.id, groups: []int{p.pgid}, leaderStart: p.start,
		self: self, selfPGID: pgid, selfSID: sid,
		adopt: r.m.adopts, since: p.start, isChild: isChild,
		otherLive: func(id string) bool { return id != r.id && isLiveRun(id) },
	})
	events := leftoverEvents(found, atRunEnd, r.m.red.String)
	if err != nil {
		events = append(events, Event{Type: EventStatus, Subtype: "leftover", Text: err.Error()})
	}
	return found, events
}

// sweepDeadRuns kills the processes of the runs under stateDir that no segwi owns any more
// (their folder lock is free: the segwi that ran them was killed), and records them on
// each run. It leaves alone the runs of a live segwi and ids that name no run under
// stateDir (another state folder's runs).
func sweepDeadRuns(stateDir string) error {
	if !canFindLeftovers {
		return nil
	}
	snapshot, err := scanProcs()
	if err != nil {
		return err
	}
	var ids []string
	for _, p := range snapshot {
		if p.RunID != "" && !slices.Contains(ids, p.RunID) {
			ids = append(ids, p.RunID)
		}
	}
	slices.Sort(ids)
	var errs []error
	for _, id := range ids {
		if strings.ContainsAny(id, `/\`) || id == "." || id == ".." {
			continue
		}
		err := endLeftRun(stateDir, id, func(Info) bool { return true },
			func(dir string, _ Info, where string) error {
				_, err := killAndRecord(dir, where)
				return err
			})
		if err != nil {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}

// procSweepNeeded says whether the runs of entries (the runs index) call for a sweep of
// /proc to find what dead runs left: whether one of them names no cgroup and was recorded
// since the system started. A run in a cgroup is ended by its cgroup (leftCgroups.endOf,
// endCgroupsLeftBeside), as its own segwi ends it without a sweep (endLeftovers); a run
// recorded before the system started has no process left. A run recorded but not yet
// started names no cgroup either: that costs a sweep, never a process missed. (A clock set
// forward since the system started, on a machine with no clock of its own, can date a
// record before the start: such a record's processes are missed.)
func procSweepNeeded(entries []indexEntry) bool {
	if !canFindLeftovers {
		return false
	}
	boot := bootTime().UnixNano()
	for _, e := range entries {
		if e.Key.MTime >= boot && !bytes.Contains(e.Summary, []byte(`"cgroup":`)) {
			return true
		}
	}
	return false
}

// sweepShared is how long a sweep for what dead runs left serves the runs that start
// after it: a segwi that dies just after a sweep leaves its processes to the next one,
// whether a run started a millisecond or a second after that sweep.
const sweepShared = time.Second

// sweepBeforeRun sweeps /proc for what dead runs left (sweepDeadRuns) before a run starts,
// where a run may have processes outside a cgroup: when runs recorded under stateDir named
// none at the manager's start (procSweepNeeded), or a run since went without one, in this
// segwi or another (noCgroupStamp), or this process can make no cgroup (nor, likely,
// another segwi here). A sweep made within sweepShared, at the manager's start or for
// another run, serves.
func (m *Manager) sweepBeforeRun(stateDir string) error {
	if !canFindLeftovers {
		return nil
	}
	m.sweep.mu.Lock()
	defer m.sweep.mu.Unlock()
	if !m.sweep.needed {
		_, err := runCgroupHome()
		m.sweep.needed = err != nil || stampedSinceBoot(stateDir, noCgroupStamp)
		if !m.sweep.needed {
			return nil
		}
	}
	if !m.sweep.at.IsZero() && time.Since(m.sweep.at) < sweepShared {
		return nil
	}
	err := sweepDeadRuns(stateDir)
	m.sweep.at = time.Now()
	return err
}

// endLeftRun ends what run id, recorded under stateDir, left behind, when its record is
// one match takes and no live segwi owns it: end gets the run's folder (whose lock it
// holds meanwhile), its record, and whether the run ended before its segwi did
// (afterRunEnded) or its segwi ended first (afterSegwiEnded). A run not recorded, not
// matched, or owned by a live segwi (its folder lock taken) is left alone.
func endLeftRun(stateDir, id string, match func(Info) bool, end func(dir string, info Info, where string) error) error {
	dir := filepath.Join(RunsDir(stateDir), id)
	info, err := readInfo(dir)
	if err != nil || !match(info) {
		return nil
	}
	lock, err := lockRun(dir)
	if err != nil {
		return nil // a live segwi owns it (EWOULDBLOCK), or it cannot be told: leave it
	}
	defer lock.Close()
	where := afterRunEnded
	if !info.State.Final() || info.State == StateInterrupted {
		where = afterSegwiEnded
	}
	return end(dir, info, where)
}

// killAndRecord kills the processes of the run in dir, whose folder lock the caller holds,
// and appends an event for each to its record.
func killAndRecord(dir, where string) ([]ProcessInfo, error) {
	id := filepath.Base(dir)
	self, pgid, sid := selfIDs()
	found, err := killScope(scope{runID: id, self: self, selfPGID: pgid, selfSID: sid})
	if err != nil {
		err = fmt.Errorf("finding the processes run %s left: %w", id, err)
	}
	return found, errors.Join(err, recordLeftovers(dir, found, where))
}

// recordLeftovers appends to the record of the run in dir, whose folder lock the caller
// holds, an event for each process found, where saying when; it redacts their command
// lines in found too.
func recordLeftovers(dir string, found []ProcessInfo, where string) error {
	var errs []error
	red := redact.New() // the common secret shapes, as appendLocked redacts
	for i := range found {
		found[i].Command = red.String(found[i].Command)
	}
	for _, e := range leftoverEvents(found, where, red.String) {
		if _, err := appendLocked(dir, e); err != nil {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}

// KillLeftovers kills every process still running that the ended run id (or a unique part
// of it) under stateDir started: those in its cgroup when its segwi left it, those carrying
// its SEGWI_RUN_ID, and the processes descending from them or sharing their process group
// or session. It records each on the run's events and returns them, their command lines
// redacted. segwi push and the run window's Push call it before anything else, so that no
// process of the run can change the checkout, or its git configuration, while a push reads
// it. Its error wraps ErrRunLive while a segwi process owns the run (it kills nothing
// then), ErrNotFound for an unknown id, and ErrLeftoverAlive when a process could not be
// killed. Where segwi cannot find processes (not Linux) it finds none.
func KillLeftovers(stateDir, id string) ([]ProcessInfo, error) {
	dir, err := findRun(stateDir, id)
	if err != nil {
		return nil, err
	}
	id = filepath.Base(dir)
	lock, err := lockRun(dir)
	if errors.Is(err, syscall.EWOULDBLOCK) {
		return nil, fmt.Errorf("ending the processes of run %s: %w (a segwi process still owns it); try again once it ended", id, ErrRunLive)
	}
	if err != nil {
		return nil, fmt.Errorf("ending the processes of run %s: %w", id, err)
	}
	defer lock.Close()
	var found []ProcessInfo
	var cgErr error
	if info, err := readInfo(dir); err == nil { // a cgroup its segwi left (see MarkInterrupted)
		if found, cgErr = endRecordedCgroup(info, beforePush); cgErr != nil {
			cgErr = fmt.Errorf("ending the processes of run %s: %w", id, cgErr)
		}
	}
	swept, err := killAndRecord(dir, beforePush)
	found = append(found, swept...)
	err = errors.Join(cgErr, err)
	for _, info := range found {
		if !info.Killed {
			err = errors.Join(err, fmt.Errorf("process %d of run %s (%s): %w, and segwi could not kill it: %s; end it, then try again",
				info.PID, id, info.Command, ErrLeftoverAlive, info.Error))
		}
	}
	return found, err
}

// sweepBeforeStart kills, before the run starts Claude Code, the processes left by the
// runs of a segwi that was killed meanwhile (see endCgroupsLeftBeside and sweepBeforeRun):
// another segwi may have run in this checkout, and its lock died with it.
func (r *Run) sweepBeforeStart() {
	stateDir := r.m.config().StateDir
	if err := errors.Join(endCgroupsLeftBeside(stateDir), r.m.sweepBeforeRun(stateDir)); err != nil {
		r.emit(Event{Type: EventStatus, Subtype: "leftover", Text: err.Error()}, toFile)
	}
}
