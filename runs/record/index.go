package record

import (
	"bytes"
	"errors"
	"fmt"
	"hash/crc32"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	fastjson "github.com/segmentio/encoding/json"
)

// The runs index is a file in the state folder that keeps a Summary of each run, with what
// stat said of the run.json it was made from: a list of thousands of runs reads it, and
// stats each run.json, rather than read and decode every record (at 10,000 runs that was
// most of the tray's start, and half a second of each history window and `segwi runs`).
//
// The records stay the source of truth. Each read of the index (LoadIndex) lists the runs
// folder and stats every run.json: a run whose record is not in the index, or whose stat
// differs from what the index holds (inode, size, modification and change times), is read
// from its record; a run whose folder is gone is dropped. So a record written by anyone (this
// process, another segwi, an older segwi, a test, an editor) is seen at the next read,
// whether or not its writer knew of the index: writeInfo does not touch it. A record changed
// within a file system timestamp tick of its stat (racy, as git calls it) could still look
// unchanged to the next stat, so it is read again until it is older than racyWindow. An index
// that cannot be read, or is damaged (a checksum over the file), or of another version, is
// ignored and rebuilt from the records.
//
// Whoever reads the index and finds it stale writes it anew, whole and atomically (a
// temporary file renamed over it): the tray, `segwi runs`, the window process. Writers do
// not wait for one another: the last rename wins, and as every entry says which version of
// its record it summarises, a stale one is only read again, never believed.
//
// Its file is text, a line per run, in the order of the run folders' names:
//
//	segwi runs index 1
//	<run id> TAB <inode> TAB <size> TAB <mtime ns> TAB <ctime ns> TAB <flags> TAB <state> TAB <Summary as JSON>
//	...
//	end <runs> <CRC-32C of all that comes before, in hex>
//
// flags is "r" for a racy entry, else "-". The state stands apart from the summary so that
// the tray, which needs only the runs left in a live state (MarkInterrupted), decodes no
// summary at all.
const (
	indexFile    = "runs.index"
	indexHeader  = "segwi runs index"
	indexVersion = 5
	// racyWindow is how long after a record's modification time its index entry is not
	// trusted: as long as the coarsest file system timestamps (FAT's 2 s; ext4's tick is
	// a few milliseconds).
	racyWindow = 2 * time.Second
	// staleTemp is the age at which a temporary file of the index, left by a process that
	// died while writing it, is removed.
	staleTemp = time.Minute
)

// crcTable returns the CRC-32C table of the index's checksum (hardware-assisted where the
// CPU has it), made on first use: making it is 0.45 ms of every segwi start otherwise.
var crcTable = sync.OnceValue(func() *crc32.Table { return crc32.MakeTable(crc32.Castagnoli) })

// RecordKey is what stat says of a version of a run.json: a write of the record changes
// it (its change time at least, and its inode when written as writeInfo does, by rename).
type RecordKey struct {
	Ino, Size    uint64
	MTime, CTime int64 // nanoseconds since the Unix epoch
}

// IndexEntry is one run in the runs index.
type IndexEntry struct {
	ID      string    // the run folder's name
	Key     RecordKey // the version of run.json it summarises
	racy    bool      // the record was written within racyWindow of its stat: read it again next time
	State   State
	Summary []byte // the run's Summary as JSON, on one line
}

// Summaries returns the summaries of the runs recorded under stateDir, oldest first, and
// the records it could not read, as List does (a damaged run.json is left out of the runs
// and named in damaged), from the runs index (brought up to date with the records first).
// Its error is for a runs folder that cannot be listed at all.
func Summaries(stateDir string) ([]Summary, []Damaged, error) {
	entries, damaged, err := LoadIndex(stateDir)
	if err != nil {
		return nil, nil, err
	}
	out := make([]Summary, 0, len(entries))
	for _, e := range entries {
		dir := filepath.Join(RunsDir(stateDir), e.ID)
		var s Summary
		if err := fastjson.Unmarshal(e.Summary, &s); err != nil {
			// The index held what this segwi cannot decode, its checksum right: the
			// record says.
			info, err := ReadInfo(dir)
			var d Damaged
			if errors.As(err, &d) {
				damaged = append(damaged, d)
			}
			if err != nil {
				continue
			}
			s = SummaryOf(info)
		}
		s.Dir = dir
		out = append(out, s)
	}
	slices.SortFunc(out, func(a, b Summary) int {
		if c := a.Created.Compare(b.Created); c != 0 {
			return c
		}
		return strings.Compare(a.ID, b.ID)
	})
	return out, damaged, nil
}

// LoadIndex returns an entry for each run recorded under stateDir whose record can be
// read, in the order of their folders' names, and the records that cannot be read (named
// each time: the index keeps no entry for them). It reads the runs index, brings it up to
// date with the records (see the comment on indexFile) and writes it back when that changed
// anything. Its error is for a runs folder that cannot be listed.
func LoadIndex(stateDir string) ([]IndexEntry, []Damaged, error) {
	runsDir := RunsDir(stateDir)
	names, keys, statErrs, err := statRuns(runsDir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil, nil
	}
	if err != nil {
		return nil, nil, fmt.Errorf("listing runs: %w", err)
	}
	old, ok := readIndex(filepath.Join(stateDir, indexFile))
	changed := !ok
	entries := make([]IndexEntry, 0, len(names))
	var damaged []Damaged
	now := time.Now()
	i := 0
	for n, name := range names {
		for i < len(old) && old[i].ID < name {
			i, changed = i+1, true // its folder is gone
		}
		var prev *IndexEntry
		if i < len(old) && old[i].ID == name {
			prev = &old[i]
			i++
		}
		if prev != nil && !prev.racy && statErrs[n] == nil && keys[n] == prev.Key {
			entries = append(entries, *prev)
			continue
		}
		dir := filepath.Join(runsDir, name)
		info, st, err := ReadInfoStat(dir)
		if err != nil {
			var d Damaged
			if errors.As(err, &d) {
				damaged = append(damaged, d)
			}
			changed = changed || prev != nil
			continue // damaged, or a folder being created or not a run's
		}
		e, err := entryOf(name, info, st, now)
		if err != nil {
			damaged = append(damaged, Damaged{Dir: dir, File: filepath.Join(dir, InfoFile), Err: err})
			changed = changed || prev != nil
			continue
		}
		if indexable(name) && (prev == nil || !prev.same(e)) {
			changed = true
		}
		entries = append(entries, e)
	}
	if i < len(old) {
		changed = true
	}
	if changed {
		// The index only saves work: when it cannot be written, the next read reads the
		// records again, as this one did.
		_ = writeIndex(stateDir, entries)
	}
	return entries, damaged, nil
}

// statRuns returns the names of the run folders in runsDir, sorted (as the index is), and
// what stat says of each one's run.json: its key, or the error in statErrs. Thousands of
// stats are shared out among the CPUs.
func statRuns(runsDir string) (names []string, keys []RecordKey, statErrs []error, err error) {
	dir, err := os.Open(runsDir)
	if err != nil {
		return nil, nil, nil, err
	}
	defer dir.Close()
	dirents, err := dir.ReadDir(-1)
	if err != nil {
		return nil, nil, nil, err
	}
	names = make([]string, 0, len(dirents))
	for _, de := range dirents {
		if de.IsDir() { // as List: not a file, nor a link to a folder
			names = append(names, de.Name())
		}
	}
	slices.Sort(names)
	keys, statErrs = make([]RecordKey, len(names)), make([]error, len(names))
	workers := min(runtime.GOMAXPROCS(0), 1+len(names)/statShare)
	share := (len(names) + workers - 1) / max(workers, 1)
	var wg sync.WaitGroup
	for lo := 0; lo < len(names); lo += share {
		hi := min(lo+share, len(names))
		wg.Go(func() { statRecords(dir, names[lo:hi], keys[lo:hi], statErrs[lo:hi]) })
	}
	wg.Wait()
	return names, keys, statErrs, nil
}

// statShare is the fewest records statRuns gives a CPU of its own.
const statShare = 1000

// entryOf is the index entry of the run folder name whose record, info, was read when
// stat said st of it, at about now.
func entryOf(name string, info Info, st fs.FileInfo, now time.Time) (IndexEntry, error) {
	summary, err := appendPlainJSON(nil, SummaryOf(info), "")
	if err != nil {
		return IndexEntry{}, fmt.Errorf("summarising the record: %w", err)
	}
	return IndexEntry{
		ID: name, Key: keyOf(st), racy: now.Sub(st.ModTime()) < racyWindow,
		State: info.State, Summary: summary,
	}, nil
}

// same says whether e and o would be written alike.
func (e *IndexEntry) same(o IndexEntry) bool {
	return e.Key == o.Key && e.racy == o.racy && e.State == o.State && bytes.Equal(e.Summary, o.Summary)
}

// indexable says whether a run folder's name fits on an index line; a run in a folder
// whose name does not (a tab or line break in it: not a name segwi gives) is read from its
// record each time.
func indexable(name string) bool { return !strings.ContainsAny(name, "\t\n\r") }

// readIndex returns the entries of the index file at path, and whether it could be read
// whole: false for a file that is missing, of another version or damaged.
func readIndex(path string) ([]IndexEntry, bool) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, false
	}
	body, ok := bytes.CutSuffix(data, []byte("\n"))
	if !ok {
		return nil, false // cut short
	}
	cut := bytes.LastIndexByte(body, '\n') + 1
	var n int
	var sum uint32
	if _, err := fmt.Sscanf(string(body[cut:]), "end %d %x", &n, &sum); err != nil || crc32.Checksum(data[:cut], crcTable()) != sum {
		return nil, false
	}
	header := fmt.Appendf(nil, "%s %d\n", indexHeader, indexVersion)
	lines, ok := bytes.CutPrefix(data[:cut], header)
	if !ok {
		return nil, false // another version: rebuilt
	}
	entries := make([]IndexEntry, 0, n)
	for len(lines) > 0 {
		var line []byte
		line, lines, _ = bytes.Cut(lines, []byte("\n"))
		e, ok := parseEntry(line)
		if !ok || (len(entries) > 0 && entries[len(entries)-1].ID >= e.ID) {
			return nil, false
		}
		entries = append(entries, e)
	}
	if len(entries) != n {
		return nil, false
	}
	return entries, true
}

// parseEntry reads an index line (see the index comment).
func parseEntry(line []byte) (IndexEntry, bool) {
	var f [8][]byte
	for i := range len(f) - 1 {
		var ok bool
		if f[i], line, ok = bytes.Cut(line, []byte("\t")); !ok {
			return IndexEntry{}, false
		}
	}
	f[7] = line
	var e IndexEntry
	var ok [4]bool
	e.Key.Ino, ok[0] = parseUint(f[1])
	e.Key.Size, ok[1] = parseUint(f[2])
	e.Key.MTime, ok[2] = parseInt(f[3])
	e.Key.CTime, ok[3] = parseInt(f[4])
	if ok != [4]bool{true, true, true, true} || len(f[0]) == 0 || len(f[7]) == 0 {
		return IndexEntry{}, false
	}
	switch string(f[5]) {
	case "r":
		e.racy = true
	case "-":
	default:
		return IndexEntry{}, false
	}
	e.ID, e.State, e.Summary = string(f[0]), stateOf(f[6]), f[7]
	return e, true
}

// stateOf is the State named b, without allocating for the states segwi knows.
func stateOf(b []byte) State {
	for _, s := range []State{StateSucceeded, StateFailed, StateStopped, StateTimedOut, StateInterrupted,
		StateQueued, StateStarting, StateRunning, StateWaiting, StateStopping} {
		if string(b) == string(s) {
			return s
		}
	}
	return State(b)
}

// parseUint parses a decimal number without allocating (strconv takes strings).
func parseUint(b []byte) (uint64, bool) {
	if len(b) == 0 || len(b) > 20 {
		return 0, false
	}
	var n uint64
	for _, c := range b {
		if c < '0' || c > '9' {
			return 0, false
		}
		d := uint64(c - '0')
		if n > (1<<64-1-d)/10 {
			return 0, false
		}
		n = n*10 + d
	}
	return n, true
}

// parseInt is parseUint for a number that may be negative (a time before 1970).
func parseInt(b []byte) (int64, bool) {
	neg := len(b) > 0 && b[0] == '-'
	if neg {
		b = b[1:]
	}
	n, ok := parseUint(b)
	if !ok || n > 1<<63 || (!neg && n == 1<<63) {
		return 0, false
	}
	if neg {
		return -int64(n), true
	}
	return int64(n), true
}

// writeIndex replaces the index file of stateDir with entries, atomically: a temporary
// file renamed over it. It is not synced: an index cut short by a crash fails its checksum
// and is rebuilt.
func writeIndex(stateDir string, entries []IndexEntry) error {
	size := 64
	for _, e := range entries {
		size += len(e.ID) + len(e.State) + len(e.Summary) + 80
	}
	b := make([]byte, 0, size)
	b = fmt.Appendf(b, "%s %d\n", indexHeader, indexVersion)
	n := 0
	for _, e := range entries {
		if !indexable(e.ID) {
			continue
		}
		flags := "-"
		if e.racy {
			flags = "r"
		}
		b = append(b, e.ID...)
		b = append(b, '\t')
		b = strconv.AppendUint(b, e.Key.Ino, 10)
		b = append(b, '\t')
		b = strconv.AppendUint(b, e.Key.Size, 10)
		b = append(b, '\t')
		b = strconv.AppendInt(b, e.Key.MTime, 10)
		b = append(b, '\t')
		b = strconv.AppendInt(b, e.Key.CTime, 10)
		b = append(b, '\t')
		b = append(b, flags...)
		b = append(b, '\t')
		b = append(b, e.State...)
		b = append(b, '\t')
		b = append(b, e.Summary...)
		b = append(b, '\n')
		n++
	}
	b = fmt.Appendf(b, "end %d %08x\n", n, crc32.Checksum(b, crcTable()))

	removeStaleTemps(stateDir)
	f, err := os.CreateTemp(stateDir, indexFile+".*.tmp")
	if err != nil {
		return fmt.Errorf("writing the runs index: %w", err)
	}
	_, err = f.Write(b)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(f.Name(), filepath.Join(stateDir, indexFile))
	}
	if err != nil {
		os.Remove(f.Name())
		return fmt.Errorf("writing the runs index: %w", err)
	}
	return nil
}

// removeStaleTemps removes the temporary files of the index that a process which died
// while writing it left in stateDir.
func removeStaleTemps(stateDir string) {
	temps, _ := filepath.Glob(filepath.Join(stateDir, indexFile+".*.tmp"))
	for _, path := range temps {
		if st, err := os.Stat(path); err == nil && time.Since(st.ModTime()) > staleTemp {
			os.Remove(path)
		}
	}
}
