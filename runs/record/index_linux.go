package record

import (
	"io/fs"
	"os"
	"syscall"

	"golang.org/x/sys/unix"
)

// keyOf is the RecordKey of what stat said of a run.json, st.
func keyOf(st fs.FileInfo) RecordKey {
	k := RecordKey{Size: uint64(st.Size()), MTime: st.ModTime().UnixNano()}
	if sys, ok := st.Sys().(*syscall.Stat_t); ok {
		k.Ino, k.CTime = sys.Ino, sys.Ctim.Nano()
	}
	return k
}

// statRecords stats the run.json of the run folders names in the folder dir (open), into
// keys; errs[i] is what failed for names[i]. fstatat from the runs folder spares the
// kernel the walk of the state folder's path and Go an allocation, for each of thousands.
func statRecords(dir *os.File, names []string, keys []RecordKey, errs []error) {
	fd := int(dir.Fd())
	var st unix.Stat_t
	for i, name := range names {
		if err := unix.Fstatat(fd, name+"/"+InfoFile, &st, 0); err != nil {
			errs[i] = err
			continue
		}
		keys[i] = RecordKey{Ino: st.Ino, Size: uint64(st.Size), MTime: st.Mtim.Nano(), CTime: st.Ctim.Nano()}
	}
}
