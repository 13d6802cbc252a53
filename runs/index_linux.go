package runs

import (
	"io/fs"
	"os"
	"syscall"

	"golang.org/x/sys/unix"
)

// keyOf is the recordKey of what stat said of a run.json, st.
func keyOf(st fs.FileInfo) recordKey {
	k := recordKey{size: uint64(st.Size()), mtime: st.ModTime().UnixNano()}
	if sys, ok := st.Sys().(*syscall.Stat_t); ok {
		k.ino, k.ctime = sys.Ino, sys.Ctim.Nano()
	}
	return k
}

// statRecords stats the run.json of the run folders names in the folder dir (open), into
// keys; errs[i] is what failed for names[i]. fstatat from the runs folder spares the
// kernel the walk of the state folder's path and Go an allocation, for each of thousands.
func statRecords(dir *os.File, names []string, keys []recordKey, errs []error) {
	fd := int(dir.Fd())
	var st unix.Stat_t
	for i, name := range names {
		if err := unix.Fstatat(fd, name+"/"+infoFile, &st, 0); err != nil {
			errs[i] = err
			continue
		}
		keys[i] = recordKey{ino: st.Ino, size: uint64(st.Size), mtime: st.Mtim.Nano(), ctime: st.Ctim.Nano()}
	}
}
