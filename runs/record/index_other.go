//go:build !linux

package record

import (
	"io/fs"
	"os"
	"path/filepath"
)

// keyOf is the RecordKey of what stat said of a run.json, st: its size and modification
// time (the inode and change time are read on Linux only).
func keyOf(st fs.FileInfo) RecordKey {
	return RecordKey{Size: uint64(st.Size()), MTime: st.ModTime().UnixNano()}
}

// statRecords stats the run.json of the run folders names in the folder dir (open), into
// keys; errs[i] is what failed for names[i].
func statRecords(dir *os.File, names []string, keys []RecordKey, errs []error) {
	for i, name := range names {
		st, err := os.Stat(filepath.Join(dir.Name(), name, InfoFile))
		if err != nil {
			errs[i] = err
			continue
		}
		keys[i] = keyOf(st)
	}
}
