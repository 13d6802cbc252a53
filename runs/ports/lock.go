package ports

import (
	"errors"
	"os"
	"syscall"
)

// errBusy means another run holds the lock.
var errBusy = errors.New("held by another run")

// lock takes the lock file path without waiting: errBusy when another holds it. The lock
// goes when the file is closed, or when the process ends.
func lock(path string) (*os.File, error) {
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return nil, err
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		f.Close()
		if errors.Is(err, syscall.EWOULDBLOCK) {
			return nil, errBusy
		}
		return nil, err
	}
	return f, nil
}
