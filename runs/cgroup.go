package runs

import (
	"errors"
	"fmt"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
)

// How a run keeps track of its processes. Where the system lets segwi make cgroups (Linux
// with cgroup v2), each run has one of its own (see cgroup): Claude Code starts inside it,
// and at the run's end cgroup.kill ends every process in it. Elsewhere segwi finds the
// run's processes at its end by reading /proc (leftovers.go: the sweep), which a process
// that keeps forking can escape. run.json (Info.Cgroup or Info.NoCgroup) and a status
// event say which a run had.

// cgroupPrefix starts the name of every run's cgroup; the run's id follows.
const cgroupPrefix = "segwi-run-"

// canBeRunCgroup says whether dir, a path a record of run id names as its cgroup, can be
// the cgroup segwi makes for that run: a clean absolute path ending in its name. A record
// is a file the run's own processes could rewrite, to point segwi at another cgroup.
func canBeRunCgroup(id, dir string) bool {
	return filepath.IsAbs(dir) && filepath.Clean(dir) == dir && filepath.Base(dir) == cgroupPrefix+id
}

// EventStatus subtype of the event that says how a run keeps track of its processes.
const subtypeProcesses = "processes"

// startContained starts the run's agent, cmd (startAgent), inside a cgroup of the run's
// own where one can be made, and otherwise as before. It records which on the run: the
// cgroup's folder in run.json before the agent starts (so that a segwi killed from then on
// leaves it named for the next one), or why there is none; then a status event.
func (r *Run) startContained(cmd *exec.Cmd) (*process, error) {
	again := retryable(cmd) // before the cgroup is attached to cmd
	cg, err := r.takeSetupCgroup(), error(nil)
	if cg == nil {
		cg, err = newRunCgroup(r.id)
	}
	if err == nil {
		r.noteCgroup(cg.dir, "")
		proc, startErr := startAgent(cmd, cg)
		if startErr == nil {
			r.emit(Event{Type: EventStatus, Subtype: subtypeProcesses, Text: fmt.Sprintf(
				"kept in cgroup %s: every one ends with the run, however it forks or detaches", cg.dir)}, toFile)
			return proc, nil
		}
		cg.end() //nolint:errcheck // what the setup left there goes; a cgroup left is ended at the next start
		err = fmt.Errorf("starting %s inside cgroup %s: %w", r.agent, cg.dir, startErr)
	}
	r.noteCgroup("", err.Error())
	proc, err2 := startAgent(again, nil)
	if err2 == nil {
		r.emit(Event{Type: EventStatus, Subtype: subtypeProcesses, Text: fmt.Sprintf(
			"no cgroup (%v): at the run's end %s", err, sweepReach)}, toFile)
	}
	return proc, err2
}

// containSetup makes the run's cgroup before its setup's command runs, and returns what
// starts the command in it, so that whatever the command leaves behind, even out of its
// process group (a dev server, a daemon that called setsid), ends with the run as the
// agent's processes do; the agent starts in it too (startContained). Where no cgroup can
// be made it returns nil: the command's process group is all there is, and the agent's
// start says why.
func (r *Run) containSetup() func(*exec.Cmd) {
	cg, err := newRunCgroup(r.id)
	if err != nil {
		r.noteNoCgroup()
		return nil
	}
	r.noteCgroup(cg.dir, "")
	r.mu.Lock()
	r.setupCgroup = cg
	r.mu.Unlock()
	return func(cmd *exec.Cmd) { cg.attach(cmd.SysProcAttr) }
}

// takeSetupCgroup returns the cgroup made for the run's setup, once: nil when there is
// none, or it was taken.
func (r *Run) takeSetupCgroup() *cgroup {
	r.mu.Lock()
	defer r.mu.Unlock()
	cg := r.setupCgroup
	r.setupCgroup = nil
	return cg
}

// endSetupCgroup ends what the run's setup left in its cgroup, and removes it, for a run
// whose agent never started (its setup failed, or it was stopped): the leftovers are
// recorded as those of an agent are.
func (r *Run) endSetupCgroup() {
	if cg := r.takeSetupCgroup(); cg != nil {
		_, events := r.endCgroup(cg)
		for _, e := range events {
			r.emit(e, toFile)
		}
	}
}

// retryable returns a copy of cmd, not started, to start again when its start inside a
// cgroup failed: an exec.Cmd starts once, even when its start failed.
func retryable(cmd *exec.Cmd) *exec.Cmd {
	again := &exec.Cmd{Path: cmd.Path, Args: cmd.Args, Env: cmd.Env, Dir: cmd.Dir,
		Stdin: cmd.Stdin, Stdout: cmd.Stdout, Stderr: cmd.Stderr, ExtraFiles: cmd.ExtraFiles}
	if cmd.SysProcAttr != nil {
		attr := *cmd.SysProcAttr
		again.SysProcAttr = &attr
	}
	return again
}

// noteCgroup records on run.json the cgroup that holds the run's processes, or why there
// is none: not synced, as a cgroup does not outlive a power cut (see replaceInfo).
func (r *Run) noteCgroup(dir, why string) {
	if dir == "" {
		r.noteNoCgroup()
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	r.info.Cgroup, r.info.NoCgroup = dir, why
	if err := replaceInfo(r.dir, r.info, false); err != nil {
		r.rec.failed(err)
	}
}

// noteNoCgroup dates the state folder's noCgroupStamp, before the run starts a process
// outside a cgroup of its own: from then until the system restarts, a segwi looks for
// what the runs of a killed segwi left with a sweep of /proc.
func (r *Run) noteNoCgroup() {
	if err := stamp(r.m.config().StateDir, noCgroupStamp); err != nil {
		r.emit(Event{Type: EventStatus, Subtype: "leftover", Text: err.Error()}, toFile)
	}
}

// endCgroup ends the processes left in the run's cgroup and removes it, once Claude Code
// exited, and returns what it found and the events saying so, as endLeftovers does for a
// run without one.
func (r *Run) endCgroup(cg *cgroup) ([]ProcessInfo, []Event) {
	found, err := cg.end()
	events := leftoverEvents(found, atRunEnd, r.m.red.String)
	if err != nil {
		events = append(events, Event{Type: EventStatus, Subtype: "leftover", Text: err.Error()})
	}
	return found, events
}

// endRecordedCgroup ends what is left in the cgroup that the record info names (a segwi
// that was killed left it, or could not remove it), removes it, and records each process
// on the run, where saying when it was found. The caller holds the run's folder lock. A
// record that names no cgroup, or one that is gone, is left as it is.
func endRecordedCgroup(info Info, where string) ([]ProcessInfo, error) {
	if info.Cgroup == "" {
		return nil, nil
	}
	cg, err := openRecordedCgroup(filepath.Base(info.Dir), info.Cgroup)
	if err != nil || cg == nil {
		return nil, err
	}
	found, err := cg.end()
	return found, errors.Join(err, recordLeftovers(info.Dir, found, where))
}

// endLeftCgroup is endRecordedCgroup for an ended run whose cgroup is still there (its
// segwi was killed while ending it, or could not remove it), when no segwi owns the run.
func endLeftCgroup(info Info) error {
	if info.Cgroup == "" || !cgroupLeft(info.Cgroup) {
		return nil
	}
	lock, err := lockRun(info.Dir)
	if errors.Is(err, syscall.EWOULDBLOCK) {
		return nil // a live segwi owns it: a push is ending it
	}
	if err != nil {
		return fmt.Errorf("ending what run %s left in cgroup %s: %w", filepath.Base(info.Dir), info.Cgroup, err)
	}
	defer lock.Close()
	_, err = endRecordedCgroup(info, afterRunEnded)
	return err
}

// endCgroupsLeftBeside ends what the runs of a segwi killed since this one started left in
// their cgroups, where this process makes its own (see leftRunCgroups), before a run
// starts Claude Code, as sweepBeforeStart does with the sweep: another segwi may have run
// in the checkout. A cgroup whose run is not recorded under stateDir, whose record names
// another cgroup, or whose run a live segwi owns (this one included) is left alone.
func endCgroupsLeftBeside(stateDir string) error {
	var errs []error
	for _, path := range leftRunCgroups() {
		id := strings.TrimPrefix(filepath.Base(path), cgroupPrefix)
		if id == "" || id == "." || id == ".." || isLiveRun(id) {
			continue
		}
		err := endLeftRun(stateDir, id, func(info Info) bool { return info.Cgroup == path },
			func(_ string, info Info, where string) error {
				_, err := endRecordedCgroup(info, where)
				return err
			})
		if err != nil {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}
