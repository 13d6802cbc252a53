package control

import "syscall"

// socketpair makes the pair close-on-exec atomically, so a process the tray starts at the
// same moment on another goroutine (a run) cannot inherit it.
func socketpair() ([2]int, error) {
	return syscall.Socketpair(syscall.AF_UNIX, syscall.SOCK_STREAM|syscall.SOCK_CLOEXEC, 0)
}
