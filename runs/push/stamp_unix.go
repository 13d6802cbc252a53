//go:build linux || darwin || freebsd || netbsd || openbsd || dragonfly

package push

import (
	"io/fs"

	"golang.org/x/sys/unix"
)

// stamp is a file's identity and last change time. The change time (ctime) is set by the
// kernel on every change to the file's content, name or attributes, and no program can set
// it back.
type stamp struct {
	dev, ino uint64
	ctime    int64 // nanoseconds
}

// stampOf returns path's stamp, without following a symbolic link at its end.
func stampOf(path string) (stamp, error) {
	var st unix.Stat_t
	if err := unix.Lstat(path, &st); err != nil {
		return stamp{}, &fs.PathError{Op: "lstat", Path: path, Err: err}
	}
	return stamp{dev: uint64(st.Dev), ino: uint64(st.Ino), ctime: st.Ctim.Nano()}, nil
}
