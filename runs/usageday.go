package runs

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

// UsageOfDay is what the runs created on the day of day (its date where day is) used,
// as `segwi usage --by day` counts them, read for the tray, which must not hold thousands
// of summaries to say one line: only the run folders named after that day or the day
// before (a run's folder is named after the local time of its creation, newID) are looked
// at, each from its index entry when that still matches its record (as loadIndex decides),
// else from the record; the index is streamed, not kept, and not written. Its error is for a
// runs folder that cannot be listed.
func UsageOfDay(stateDir string, day time.Time) (UsageRow, error) {
	start := time.Date(day.Year(), day.Month(), day.Day(), 0, 0, 0, 0, day.Location())
	end := start.AddDate(0, 0, 1)
	// The folders' names are in the local time of their creation, which may not be day's:
	// a day of margin on each side, the Created of each deciding.
	from := start.AddDate(0, 0, -1).In(time.Local).Format("20060102")
	to := end.AddDate(0, 0, 1).In(time.Local).Format("20060102")
	row := UsageRow{Key: start.Format(time.DateOnly)}
	runsDir := RunsDir(stateDir)
	dir, err := os.Open(runsDir)
	if errors.Is(err, fs.ErrNotExist) {
		return row, nil
	}
	if err != nil {
		return row, fmt.Errorf("listing runs: %w", err)
	}
	defer dir.Close()
	names, err := dir.Readdirnames(-1)
	if err != nil {
		return row, fmt.Errorf("listing runs: %w", err)
	}
	candidates := map[string]bool{}
	for _, name := range names {
		if name >= from && name < to {
			candidates[name] = true
		}
	}
	if len(candidates) == 0 {
		return row, nil
	}
	entries := indexEntriesOf(filepath.Join(stateDir, indexFile), candidates)
	for name := range candidates {
		s, ok := summaryOf(filepath.Join(runsDir, name), entries[name])
		if ok && !s.Created.Before(start) && s.Created.Before(end) {
			row.add(s)
		}
	}
	return row, nil
}

// summaryOf is the summary of the run in dir, from its index entry e when e (not racy)
// is of the record's present version, else from the record; false for a record that
// cannot be read (damaged, or a folder that is not a run's).
func summaryOf(dir string, e *indexEntry) (Summary, bool) {
	if e != nil && !e.racy {
		if st, err := os.Stat(filepath.Join(dir, infoFile)); err == nil && keyOf(st) == e.key {
			var s Summary
			if fastjson.Unmarshal(e.summary, &s) == nil {
				return s, true
			}
		}
	}
	info, err := readInfo(dir)
	if err != nil {
		return Summary{}, false
	}
	return SummaryOf(info), true
}

// indexEntriesOf returns the entries of the index file at path for the run folders in
// want, reading the file a line at a time and keeping no other entry; none when the file
// is missing, of another version or damaged (its checksum is checked over the whole file).
func indexEntriesOf(path string, want map[string]bool) map[string]*indexEntry {
	f, err := os.Open(path)
	if err != nil {
		return nil
	}
	defer f.Close()
	r := bufio.NewReaderSize(f, 64<<10)
	header := fmt.Appendf(nil, "%s %d\n", indexHeader, indexVersion)
	var sum uint32
	out := map[string]*indexEntry{}
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
		e.summary = bytes.Clone(e.summary) // line is the reader's buffer
		out[e.id] = &e
	}
}
