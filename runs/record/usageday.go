package record

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"time"

	fastjson "github.com/segmentio/encoding/json"
)

// DayUsage is what the runs created on one day used, as their records say, read once
// (UsageOfDay) and kept small: the day's few summaries, not the thousands of the index. Its
// Row puts a live run's own figures in place of its record's, which are older.
type DayUsage struct {
	// Start and End bound the day: a run counts when it was created in [Start, End).
	Start, End time.Time
	recorded   map[string]Summary // the day's runs as their records say, by id
}

// Row is the day's row of `segwi usage --by day`, each run counted once: a run in live (a
// run going, whose usage grows in memory before its record is written) by its Info, the
// others by their records. A live run created on another day is not counted.
func (d DayUsage) Row(live ...Info) UsageRow {
	row := UsageRow{Key: d.Start.Format(time.DateOnly)}
	seen := make(map[string]bool, len(live))
	for _, info := range live {
		seen[info.ID] = true
		if d.holds(info.Created) {
			row.add(SummaryOf(info))
		}
	}
	for id, s := range d.recorded {
		if !seen[id] {
			row.add(s)
		}
	}
	return row
}

// holds says whether t is in the day.
func (d DayUsage) holds(t time.Time) bool { return !t.Before(d.Start) && t.Before(d.End) }

// UsageOfDay reads what the runs created on the day of day (its date where day is) used,
// as `segwi usage --by day` counts them, for the tray, which must not hold thousands of
// summaries to say one line: only the run folders named after that day or a day each side
// (a run's folder is named after the local time of its creation, newID) are looked at,
// each from its index entry when that still matches its record (as LoadIndex decides),
// else from the record; the index is streamed, not kept, and not written. Its error is for
// a runs folder that cannot be listed.
func UsageOfDay(stateDir string, day time.Time) (DayUsage, error) {
	start := time.Date(day.Year(), day.Month(), day.Day(), 0, 0, 0, 0, day.Location())
	d := DayUsage{Start: start, End: start.AddDate(0, 0, 1)}
	// The folders' names are in the local time of their creation, which may not be day's:
	// a day of margin on each side, the Created of each deciding.
	from := start.AddDate(0, 0, -1).In(time.Local).Format("20060102")
	to := d.End.AddDate(0, 0, 1).In(time.Local).Format("20060102")
	runsDir := RunsDir(stateDir)
	dir, err := os.Open(runsDir)
	if errors.Is(err, fs.ErrNotExist) {
		return d, nil
	}
	if err != nil {
		return d, fmt.Errorf("listing runs: %w", err)
	}
	defer dir.Close()
	names, err := dir.Readdirnames(-1)
	if err != nil {
		return d, fmt.Errorf("listing runs: %w", err)
	}
	candidates := map[string]bool{}
	for _, name := range names {
		if name >= from && name < to {
			candidates[name] = true
		}
	}
	if len(candidates) == 0 {
		return d, nil
	}
	entries := indexEntriesOf(filepath.Join(stateDir, indexFile), candidates)
	for name := range candidates {
		s, ok := summaryOf(filepath.Join(runsDir, name), entries[name])
		if ok && d.holds(s.Created) {
			if d.recorded == nil {
				d.recorded = map[string]Summary{}
			}
			// A run's id is its folder's name; its task, folder and cgroup are not needed
			// for a sum: the day is kept small.
			s.Task, s.Dir, s.Cgroup = "", "", ""
			d.recorded[name] = s
		}
	}
	return d, nil
}

// summaryOf is the summary of the run in dir, from its index entry e when e (not racy)
// is of the record's present version, else from the record; false for a record that
// cannot be read (damaged, or a folder that is not a run's).
func summaryOf(dir string, e *IndexEntry) (Summary, bool) {
	if e != nil && !e.racy {
		if st, err := os.Stat(filepath.Join(dir, InfoFile)); err == nil && keyOf(st) == e.Key {
			var s Summary
			if fastjson.Unmarshal(e.Summary, &s) == nil {
				return s, true
			}
		}
	}
	info, err := ReadInfo(dir)
	if err != nil {
		return Summary{}, false
	}
	return SummaryOf(info), true
}

// indexEntriesOf returns the entries of the index file at path for the run folders in
// want, reading the file a line at a time and keeping no other entry; none when the file
// is missing, of another version or damaged (its checksum is checked over the whole file).
func indexEntriesOf(path string, want map[string]bool) map[string]*IndexEntry {
	f, err := os.Open(path)
	if err != nil {
		return nil
	}
	defer f.Close()
	r := bufio.NewReaderSize(f, 64<<10)
	header := fmt.Appendf(nil, "%s %d\n", indexHeader, indexVersion)
	var sum uint32
	out := map[string]*IndexEntry{}
	n := 0
	for first := true; ; first = false {
		line, err := r.ReadSlice('\n')
		for errors.Is(err, bufio.ErrBufferFull) { // a line longer than the buffer
			more, e := r.ReadSlice('\n')
			line, err = append(bytes.Clone(line), more...), e
		}
		if err != nil {
			return nil // cut short (io.EOF before the end line) or unreadable
		}
		if first {
			if !bytes.Equal(line, header) {
				return nil
			}
			sum = crc32.Update(sum, crcTable(), line)
			continue
		}
		if end, ok := bytes.CutPrefix(line, []byte("end ")); ok {
			var count int
			var want uint32
			if _, err := fmt.Sscanf(string(end), "%d %x\n", &count, &want); err != nil || count != n || want != sum {
				return nil
			}
			if _, err := r.ReadByte(); err != io.EOF {
				return nil // something after the end
			}
			return out
		}
		sum = crc32.Update(sum, crcTable(), line)
		n++
		id, _, _ := bytes.Cut(line, []byte("\t"))
		if !want[string(id)] {
			continue
		}
		e, ok := parseEntry(bytes.TrimSuffix(line, []byte("\n")))
		if !ok {
			return nil
		}
		e.Summary = bytes.Clone(e.Summary) // line is the reader's buffer
		out[e.ID] = &e
	}
}
