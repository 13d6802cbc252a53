package runs

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	fastjson "github.com/segmentio/encoding/json"
)

// MarkInterrupted marks interrupted each run under stateDir left in a live state by a
// segwi that is gone (no process holds its folder lock), and kills the processes still
// running that any such run (interrupted or finished) left, recording each on its run:
// those in the cgroup its record names (which it then removes), and those the sweep finds
// (sweepDeadRuns). NewManager does it; this is for the commands that read the records
// without a Manager, such as segwi runs and segwi push, so that a run whose segwi died
// reads as what it is and leaves nothing running. Runs of a live segwi are left alone. It
// looks at the runs marked live only (see liveFolder), except the first time after the
// system started, when it reads every record. It returns the records it could not read or
// update; the others are marked.
func MarkInterrupted(stateDir string) []Damaged {
	_, err := markInterrupted(stateDir, false)
	return damagedIn(stateDir, err)
}

// markInterrupted is MarkInterrupted, its problems joined; every makes it read every
// record, as it does the first time after the system started. It sweeps /proc for the
// processes of dead runs only where a run may have some outside a cgroup (see
// procSweepNeeded), and says so: sweep.
func markInterrupted(stateDir string, every bool) (sweep bool, err error) {
	if every || !stampedSinceBoot(stateDir, checkedStamp) {
		sweep, err = markEveryRun(stateDir)
	} else {
		sweep, err = markMarkedRuns(stateDir)
	}
	if sweep {
		err = errors.Join(err, sweepDeadRuns(stateDir))
	}
	return sweep, err
}

// markEveryRun marks the runs interrupted, as MarkInterrupted says, reading every record.
// It finds the runs left in a live state in the runs index (which stats every record, and
// reads only those it does not know as they are), and reads each such record again under
// its folder's lock: its segwi may have ended it meanwhile, and let go of the lock. It
// marks live the runs a live segwi owns (one too old to mark them), and stamps the state
// folder as read (checkedStamp). It says whether a sweep of /proc is needed for what dead
// runs left (procSweepNeeded; also when the runs cannot be listed, to be safe).
func markEveryRun(stateDir string) (sweep bool, err error) {
	entries, damaged, listErr := loadIndex(stateDir)
	errs := []error{listErr}
	for _, d := range damaged {
		errs = append(errs, d)
	}
	sweep = stampedSinceBoot(stateDir, noCgroupStamp)
	if procSweepNeeded(entries) {
		sweep = true
		errs = append(errs, stamp(stateDir, noCgroupStamp))
	}
	left := leftCgroups{}
	for _, e := range entries {
		if e.State.Final() {
			errs = append(errs, left.endOf(stateDir, e))
			continue
		}
		dir := filepath.Join(RunsDir(stateDir), e.ID)
		lock, err := lockRun(dir)
		if errors.Is(err, syscall.EWOULDBLOCK) {
			// A live segwi (the tray app, another `segwi run`) owns it: marked, in case that
			// segwi is one that does not mark its runs.
			errs = append(errs, markLive(stateDir, e.ID))
			continue
		}
		if err != nil {
			errs = append(errs, Damaged{Dir: dir, File: filepath.Join(dir, lockFile), Err: unwrapPath(err)})
			continue
		}
		errs = append(errs, markInterruptedLocked(dir))
		lock.Close()
	}
	if listErr != nil {
		return true, errors.Join(errs...)
	}
	errs = append(errs, stamp(stateDir, checkedStamp))
	return sweep, errors.Join(errs...)
}

// markInterruptedLocked marks interrupted the run in dir, whose folder lock the caller
// holds, if its record says it is in a live state.
func markInterruptedLocked(dir string) error {
	info, err := readInfo(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	_, err = interruptLocked(info)
	return err
}

// interruptLocked marks interrupted the run of info, its record as read under its folder's
// lock, which the caller holds, if it is in a live state, and ends what it left in its
// cgroup. It returns the record as it now stands on disk: final once marked, as it was when
// its run.json could not be written.
func interruptLocked(info Info) (Info, error) {
	if info.State.Final() {
		return info, nil
	}
	was := info
	from := info.State
	info.State, info.Waiting = StateInterrupted, ""
	info.Reason = fmt.Sprintf("segwi ended while the run was %s", from)
	info.End = lastWrite(info.Dir)
	var errs []error
	if err := writeInfo(info.Dir, info); err != nil {
		errs = append(errs, Damaged{Dir: info.Dir, File: filepath.Join(info.Dir, infoFile), Err: unwrapPath(err)})
		info = was
	} else if _, err := appendLocked(info.Dir, Event{Type: EventState,
		State: &StateChange{From: from, To: StateInterrupted, Reason: info.Reason}}); err != nil {
		errs = append(errs, Damaged{Dir: info.Dir, File: filepath.Join(info.Dir, eventsFile), Err: unwrapPath(err)})
	}
	if _, err := endRecordedCgroup(info, afterSegwiEnded); err != nil {
		errs = append(errs, err)
	}
	return info, errors.Join(errs...)
}

// leftCgroups finds the cgroups ended runs left behind (ones a segwi that was killed, or
// could not remove them, left): it lists each folder the records' cgroups were made in
// once, rather than looking for every ended run's cgroup, since ten thousand runs leave
// ten thousand records and, nearly always, no cgroup.
type leftCgroups map[string]map[string]bool // folder -> names of the cgroups in it

// endOf ends what the ended run of entry e left in its cgroup, when its summary names a
// cgroup that is still there: only then is its record read.
func (left leftCgroups) endOf(stateDir string, e indexEntry) error {
	cgroup := summaryCgroup(e.Summary)
	if cgroup == "" || !left.has(cgroup) || !cgroupLeft(cgroup) {
		return nil
	}
	info, err := readInfo(filepath.Join(RunsDir(stateDir), e.ID))
	if err != nil {
		return nil // the list names a damaged record
	}
	return endLeftCgroup(info)
}

// summaryCgroup returns the cgroup a run's summary (as the index keeps it) names, or ""
// for none. It reads that one string, not the whole summary: the start of every segwi
// asks it of every ended run.
func summaryCgroup(summary []byte) string {
	key := []byte(`"cgroup":"`)
	i := bytes.Index(summary, key)
	if i < 0 {
		return ""
	}
	start := i + len(key) - 1 // the string's opening quote
	for j := start + 1; j < len(summary); j++ {
		switch summary[j] {
		case '\\':
			j++ // an escaped character, maybe a quote
		case '"':
			var s string
			if fastjson.Unmarshal(summary[start:j+1], &s) != nil {
				return ""
			}
			return s
		}
	}
	return ""
}

// has says whether the folder of cgroup dir holds a folder of its name, listing that
// folder the first time it is asked about it.
func (left leftCgroups) has(dir string) bool {
	parent, name := filepath.Split(filepath.Clean(dir))
	names, ok := left[parent]
	if !ok {
		names = map[string]bool{}
		entries, _ := os.ReadDir(parent) // no such folder: no cgroup left in it
		for _, de := range entries {
			if de.IsDir() && strings.HasPrefix(de.Name(), cgroupPrefix) {
				names[de.Name()] = true
			}
		}
		left[parent] = names
	}
	return names[name]
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
