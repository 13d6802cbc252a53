package ports

import (
	"errors"
	"os"
	"syscall"
)

// errBusy means another run holds the lock.
var errBusy = errors.New("held by another run")

// lockFile is a port's lock file, held open: a plain descriptor, not an *os.File, as the
// lock is all it is for. An *os.File would try Go's poller when opened and put the file
// back in blocking mode for flock: five more system calls a port, fifty a run.
type lockFile int

// lock takes the lock file path without waiting: errBusy when another holds it. The lock
// goes when the file is released, or when the process ends.
func lock(path string) (lockFile, error) {
	// A signal (Go's preemption sends them) can interrupt an open on a network file system,
	// a state folder in an NFS home: it is tried again, as os.OpenFile does.
	fd, err := -1, error(syscall.EINTR)
	for err == syscall.EINTR {
		fd, err = syscall.Open(path, syscall.O_RDWR|syscall.O_CREAT|syscall.O_CLOEXEC, 0o600)
	}
	if err != nil {
		return -1, &os.PathError{Op: "open", Path: path, Err: err}
	}
	if err := syscall.Flock(fd, syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		syscall.Close(fd)
		if errors.Is(err, syscall.EWOULDBLOCK) {
			return -1, errBusy
		}
		return -1, &os.PathError{Op: "flock", Path: path, Err: err}
	}
	return lockFile(fd), nil
}

// release lets go of the lock.
func (l lockFile) release() { syscall.Close(int(l)) }
