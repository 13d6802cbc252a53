//go:build linux || darwin || freebsd || netbsd || openbsd || dragonfly

package gitcmd

import (
	"io/fs"

	"golang.org/x/sys/unix"
)

// stamp is a file's identity, size and last change time. The change time (ctime) is set
// by the kernel on every change to the file's content, name or attributes, and no program
// can set it back.
type stamp struct {
	dev, ino uint64
	ctime    int64 // nanoseconds
	size     int64
	mode     uint32
	uid      uint32
}

// stampOf returns path's stamp, without following a symbolic link at its end.
func stampOf(path string) (stamp, error) {
	var st unix.Stat_t
	if err := unix.Lstat(path, &st); err != nil {
		return stamp{}, &fs.PathError{Op: "lstat", Path: path, Err: err}
	}
	return stampOfStat(&st), nil
}

// stampFollow is stampOf following a symbolic link at the end: the folder a held
// descriptor's /proc/self/fd name leads to.
func stampFollow(path string) (stamp, error) {
	var st unix.Stat_t
	if err := unix.Stat(path, &st); err != nil {
		return stamp{}, &fs.PathError{Op: "stat", Path: path, Err: err}
	}
	return stampOfStat(&st), nil
}

func stampOfStat(st *unix.Stat_t) stamp {
	return stamp{dev: uint64(st.Dev), ino: uint64(st.Ino), ctime: st.Ctim.Nano(), size: st.Size, mode: uint32(st.Mode), uid: st.Uid}
}

// canSeal is true: this system gives change times to seal a folder with.
const canSeal = true

// isDirMode reports whether a stat mode is a folder's.
func isDirMode(mode uint32) bool { return mode&unix.S_IFMT == unix.S_IFDIR }

// sticky is the sticky bit of a stat mode.
const sticky = unix.S_ISVTX
