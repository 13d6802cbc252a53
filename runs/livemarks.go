package runs

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"

	"github.com/segwi/segwi/internal/lib/gitcmd"
)

// How a segwi finds the runs a segwi that is gone left in a live state, or with processes
// to end, without reading every record: each run has a marker, <stateDir>/live/<id>, from
// before its first record is written until it ended and left no cgroup behind. A segwi
// that is killed leaves its runs' markers, and the next one looks at the runs marked only
// (markMarkedRuns): with 10,000 runs recorded, a look at every record cost 44 to 72 ms of
// CPU at the start of every segwi run, more than the rest of segwi's own share of a run.
//
// A marker is not synced (that would cost a run's start a wait on the disk), so a power
// cut can lose one: the first segwi after the system starts reads every record once
// instead (markEveryRun), and says so with a stamp, live/.checked, that holds the id of
// the boot it was written in (stamp). The same pass marks the live runs of a segwi too
// old to mark its own.
const (
	liveFolder = "live"
	// checkedStamp is written when a segwi last read every record: written since the
	// system started, it says the markers serve.
	checkedStamp = ".checked"
	// noCgroupStamp is written when a run last went without a cgroup of its own: written
	// since the system started, it says a run's processes may be outside any cgroup, and
	// only a sweep of /proc finds what a run of a killed segwi left (procSweepNeeded).
	noCgroupStamp = ".nocgroup"
)

// liveDir is the folder of the live runs' markers under stateDir.
func liveDir(stateDir string) string { return filepath.Join(stateDir, liveFolder) }

// markLive marks run id under stateDir live, before its first record is written.
func markLive(stateDir, id string) error {
	return writeLiveFile(stateDir, id, os.O_WRONLY|os.O_CREATE, nil)
}

// unmarkLive removes the marker of run id, once it ended and left nothing to end.
func unmarkLive(stateDir, id string) {
	os.Remove(filepath.Join(liveDir(stateDir), id)) //nolint:errcheck // a marker left over costs the next segwi a look at that run, no more
}

// stamp writes the stamp name under stateDir now: the id of this boot of the system.
func stamp(stateDir, name string) error {
	return writeLiveFile(stateDir, name, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, []byte(bootID()+"\n"))
}

// stampedSinceBoot says whether the stamp name under stateDir was written since the system
// started: by the boot id in it, which no setting of the clock changes (a machine without a
// clock of its own may start with its clock behind or ahead of the last boot's); by its
// date where the system has no boot id or the stamp holds none (a segwi of before boot ids
// wrote it) or cannot be read as a stamp.
func stampedSinceBoot(stateDir, name string) bool {
	path := filepath.Join(liveDir(stateDir), name)
	b, err := gitcmd.ReadRegular(path, 256)
	if errors.Is(err, fs.ErrNotExist) {
		return false
	}
	if id, written := bootID(), strings.TrimSpace(string(b)); err == nil && id != "" && written != "" {
		return written == id
	}
	st, err := os.Stat(path)
	return err == nil && !st.ModTime().Before(bootTime())
}

// writeLiveFile opens the file name in the folder of the live runs' markers with flag,
// making the folder where it is missing, and writes data in it.
func writeLiveFile(stateDir, name string, flag int, data []byte) error {
	dir := liveDir(stateDir)
	path := filepath.Join(dir, name)
	f, err := os.OpenFile(path, flag, 0o600)
	if errors.Is(err, fs.ErrNotExist) {
		if err = os.MkdirAll(dir, 0o700); err == nil {
			f, err = os.OpenFile(path, flag, 0o600)
		}
	}
	if err == nil {
		if len(data) > 0 { // a marker is empty: no write system call at each run's start
			_, err = f.Write(data)
		}
		err = errors.Join(err, f.Close())
	}
	if err != nil {
		return Damaged{Dir: path, File: path, Err: fmt.Errorf("%w; segwi keeps here what tells it which runs may be left live: check that it may write there", unwrapPath(err))}
	}
	return nil
}

// markedRuns returns the ids of the runs marked live under stateDir.
func markedRuns(stateDir string) ([]string, error) {
	d, err := os.Open(liveDir(stateDir))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	defer d.Close()
	names, err := d.Readdirnames(-1)
	ids := names[:0]
	for _, name := range names {
		if !strings.HasPrefix(name, ".") {
			ids = append(ids, name)
		}
	}
	return ids, err
}

// markMarkedRuns does what markEveryRun does, for the runs marked live only: it marks
// interrupted each one left in a live state by a segwi that is gone, ends what such a run,
// or one that ended, left in its cgroup, and removes the marker of each that is done with.
// Runs a live segwi owns (their folder lock taken) are left alone. It says whether a sweep
// of /proc is needed for what dead runs left: a run went without a cgroup since the system
// started (noCgroupStamp), or a run left live names none.
func markMarkedRuns(stateDir string) (sweep bool, err error) {
	ids, err := markedRuns(stateDir)
	if err != nil { // every record then, which also marks again the runs still live
		dir := liveDir(stateDir)
		sweep, everyErr := markEveryRun(stateDir)
		return sweep, errors.Join(Damaged{Dir: dir, File: dir, Err: fmt.Errorf("listing the runs marked live: %w", unwrapPath(err))}, everyErr)
	}
	sweep = stampedSinceBoot(stateDir, noCgroupStamp)
	var errs []error
	for _, id := range ids {
		dir := filepath.Join(RunsDir(stateDir), id)
		lock, err := lockRun(dir)
		switch {
		case errors.Is(err, syscall.EWOULDBLOCK):
			continue // a live segwi (the tray app, another `segwi run`) owns it
		case errors.Is(err, fs.ErrNotExist):
			unmarkLive(stateDir, id) // its folder was removed
			continue
		case err != nil:
			errs = append(errs, Damaged{Dir: dir, File: filepath.Join(dir, lockFile), Err: unwrapPath(err)})
			continue
		}
		info, rst, err := readInfoStat(dir)
		switch {
		case errors.Is(err, fs.ErrNotExist):
			unmarkLive(stateDir, id) // its segwi ended before the run's first record: nothing ran
		case err != nil:
			errs = append(errs, Damaged{Dir: dir, File: filepath.Join(dir, infoFile), Err: unwrapPath(err)})
		case !info.State.Final():
			if info.Cgroup == "" && !rst.ModTime().Before(bootTime()) {
				sweep = true // as procSweepNeeded: its processes, if any, are in no cgroup
				errs = append(errs, stamp(stateDir, noCgroupStamp))
			}
			info, err := interruptLocked(info)
			errs = append(errs, err)
			if info.State.Final() && doneWith(info) {
				unmarkLive(stateDir, id)
			}
		default: // its segwi ended it, and may have been killed before it removed its cgroup
			if _, err := endRecordedCgroup(info, afterRunEnded); err != nil {
				errs = append(errs, err)
			}
			if doneWith(info) {
				unmarkLive(stateDir, id)
			}
		}
		lock.Close()
	}
	return sweep, errors.Join(errs...)
}

// doneWith says whether the ended run of info left nothing for a segwi to end: it names no
// cgroup, or one that is gone, or one that cannot be the cgroup segwi makes for that run (a
// record its run's processes rewrote, which openRecordedCgroup refuses, once).
func doneWith(info Info) bool {
	return info.Cgroup == "" || !canBeRunCgroup(filepath.Base(info.Dir), info.Cgroup) || !cgroupLeft(info.Cgroup)
}
