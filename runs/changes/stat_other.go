//go:build !(linux || darwin || freebsd || netbsd || openbsd || dragonfly)

package changes

import "errors"

// canStamp is false: this system gives no change times, so no Stamp is taken and every look
// at the changes reads them with git.
const canStamp = false

type fileStat struct {
	dev, ino     uint64
	mode         uint32
	size         int64
	mtime, ctime int64
}

type dirEntry struct {
	name string
	st   fileStat
}

func (e dirEntry) isDir() bool { return false }

var errNoStat = errors.New("no stat data here")

func lstatFile(string) (fileStat, error)      { return fileStat{}, errNoStat }
func readDirStats(string) ([]dirEntry, error) { return nil, errNoStat }
