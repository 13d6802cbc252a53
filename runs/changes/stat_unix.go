//go:build linux || darwin || freebsd || netbsd || openbsd || dragonfly

package changes

import (
	"io/fs"
	"os"
	"slices"

	"golang.org/x/sys/unix"
)

// canStamp is true: this system gives change times (Stamp).
const canStamp = true

// fileStat is the stat data a Stamp keeps of a file.
type fileStat struct {
	dev, ino     uint64
	mode         uint32
	size         int64
	mtime, ctime int64 // nanoseconds
}

func statOf(st *unix.Stat_t) fileStat {
	return fileStat{dev: uint64(st.Dev), ino: uint64(st.Ino), mode: uint32(st.Mode), size: st.Size,
		mtime: st.Mtim.Nano(), ctime: st.Ctim.Nano()}
}

// lstatFile is the stat data of path, not following a symbolic link at its end.
func lstatFile(path string) (fileStat, error) {
	var st unix.Stat_t
	if err := unix.Lstat(path, &st); err != nil {
		return fileStat{}, &fs.PathError{Op: "lstat", Path: path, Err: err}
	}
	return statOf(&st), nil
}

// dirEntry is an entry of a folder with its stat data.
type dirEntry struct {
	name string
	st   fileStat
}

func (e dirEntry) isDir() bool { return e.st.mode&unix.S_IFMT == unix.S_IFDIR }

// readDirStats returns the entries of the folder dir with their stat data (not following
// symbolic links), sorted by name. It opens dir without following a symbolic link, and
// reads each entry's stat data relative to the open folder.
func readDirStats(dir string) ([]dirEntry, error) {
	f, err := os.OpenFile(dir, os.O_RDONLY|unix.O_DIRECTORY|unix.O_NOFOLLOW, 0)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	names, err := f.Readdirnames(-1)
	if err != nil {
		return nil, &fs.PathError{Op: "readdir", Path: dir, Err: err}
	}
	slices.Sort(names)
	out := make([]dirEntry, 0, len(names))
	fd := int(f.Fd())
	for _, n := range names {
		var st unix.Stat_t
		if err := unix.Fstatat(fd, n, &st, unix.AT_SYMLINK_NOFOLLOW); err != nil {
			if err == unix.ENOENT {
				continue // removed meanwhile: its folder's times changed
			}
			return nil, &fs.PathError{Op: "lstat", Path: dir + "/" + n, Err: err}
		}
		out = append(out, dirEntry{name: n, st: statOf(&st)})
	}
	return out, nil
}
