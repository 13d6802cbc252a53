//go:build unix

package gitcmd

import (
	"io/fs"
	"syscall"
)

// oNonblock opens a FIFO without waiting for a writer; a regular file reads as usual.
const oNonblock = syscall.O_NONBLOCK

// errNotDir is the error of a path whose parent is a file.
var errNotDir error = syscall.ENOTDIR

// ownedBySelf reports whether path is owned by this process's effective user.
func ownedBySelf(path string) bool {
	var st syscall.Stat_t
	return syscall.Stat(path, &st) == nil && int(st.Uid) == syscall.Geteuid()
}

// sameDevice reports whether a and b are on the same file system.
func sameDevice(a, b fs.FileInfo) bool {
	sa, okA := a.Sys().(*syscall.Stat_t)
	sb, okB := b.Sys().(*syscall.Stat_t)
	return !okA || !okB || sa.Dev == sb.Dev
}
