//go:build !(linux || darwin || freebsd || netbsd || openbsd || dragonfly)

package gitcmd

import "errors"

// stamp is a file's identity and last change time, where the system gives them.
type stamp struct {
	dev, ino uint64
	ctime    int64
	size     int64
	mode     uint32
	uid      uint32
}

var errNoStamp = errors.New("this system gives no change time to check a folder with")

func stampOf(path string) (stamp, error)     { return stamp{}, errNoStamp }
func stampFollow(path string) (stamp, error) { return stamp{}, errNoStamp }

// canSeal is false: a folder cannot be sealed here.
const canSeal = false

func isDirMode(uint32) bool { return false }

const sticky = 0o1000
