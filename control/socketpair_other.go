//go:build unix && !linux

package control

import "syscall"

// socketpair makes the pair and marks it close-on-exec under syscall.ForkLock, so that no
// process started on another goroutine in between inherits it (macOS has no
// SOCK_CLOEXEC).
func socketpair() ([2]int, error) {
	syscall.ForkLock.RLock()
	defer syscall.ForkLock.RUnlock()
	fds, err := syscall.Socketpair(syscall.AF_UNIX, syscall.SOCK_STREAM, 0)
	if err != nil {
		return fds, err
	}
	syscall.CloseOnExec(fds[0])
	syscall.CloseOnExec(fds[1])
	return fds, nil
}
