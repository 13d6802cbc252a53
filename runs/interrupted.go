package runs

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"syscall"
	"time"
)

// MarkInterrupted marks interrupted each run under stateDir left in a live state by a
// segwi that is gone (no process holds its folder lock), and kills the processes still
// running that any such run (interrupted or finished) left, recording each on its run:
// those in the cgroup its record names (which it then removes), and those the sweep finds
// (sweepDeadRuns). NewManager does it; this is for the commands that read the records
// without a Manager, such as segwi runs and segwi push, so that a run whose segwi died
// reads as what it is and leaves nothing running. Runs of a live segwi are left alone. It
// returns the records it could not read or update; the others are marked.
func MarkInterrupted(stateDir string) []Damaged {
	return damagedIn(stateDir, markInterrupted(stateDir))
}

// markInterrupted is MarkInterrupted, its problems joined.
func markInterrupted(stateDir string) error {
	err := markInterruptedRuns(stateDir)
	return errors.Join(err, sweepDeadRuns(stateDir))
}

// markInterruptedRuns marks the runs interrupted, as MarkInterrupted says.
func markInterruptedRuns(stateDir string) error {
	infos, damaged, listErr := List(stateDir)
	errs := []error{listErr}
	for _, d := range damaged {
		errs = append(errs, d)
	}
	for _, info := range infos {
		if info.State.Final() {
			errs = append(errs, endLeftCgroup(info))
			continue
		}
		lock, err := lockRun(info.Dir)
		if errors.Is(err, syscall.EWOULDBLOCK) {
			continue // a live segwi (the tray app, another `segwi run`) owns it
		}
		if err != nil {
			errs = append(errs, Damaged{Dir: info.Dir, File: filepath.Join(info.Dir, lockFile), Err: unwrapPath(err)})
			continue
		}
		from := info.State
		info.State, info.Waiting = StateInterrupted, ""
		info.Reason = fmt.Sprintf("segwi ended while the run was %s", from)
		info.End = lastWrite(info.Dir)
		if err := writeInfo(info.Dir, info); err != nil {
			errs = append(errs, Damaged{Dir: info.Dir, File: filepath.Join(info.Dir, infoFile), Err: unwrapPath(err)})
		} else if _, err := appendLocked(info.Dir, Event{Type: EventState,
			State: &StateChange{From: from, To: StateInterrupted, Reason: info.Reason}}); err != nil {
			errs = append(errs, Damaged{Dir: info.Dir, File: filepath.Join(info.Dir, eventsFile), Err: unwrapPath(err)})
		}
		if _, err := endRecordedCgroup(info, afterSegwiEnded); err != nil {
			errs = append(errs, err)
		}
		lock.Close()
	}
	return errors.Join(errs...)
}

// lastWrite returns when the run's record was last written: its end, for an interrupted run.
func lastWrite(dir string) time.Time {
	var last time.Time
	for _, name := range []string{eventsFile, outputFile, infoFile} {
		if st, err := os.Stat(filepath.Join(dir, name)); err == nil && st.ModTime().After(last) {
			last = st.ModTime()
		}
	}
	return last
}
