//go:build !(linux || darwin || freebsd || netbsd || openbsd || dragonfly)

package push

import "errors"

// stamp is a file's identity and last change time, where the system gives them.
type stamp struct {
	dev, ino uint64
	ctime    int64
}

// stampOf fails: this system gives no change time segwi reads, so it cannot tell whether
// the push's private repository was changed. Push is refused on such systems before this
// is reached (see check).
func stampOf(path string) (stamp, error) {
	return stamp{}, errors.New("reading " + path + ": this system gives no change time to check the push's private repository with")
}
