//go:build !linux

package runs

import (
	"errors"
	"syscall"
)

// setParentDeathSignal does nothing where the kernel has no parent death signal; there
// segwi relies on the pty's hang-up when it dies.
func setParentDeathSignal(*syscall.SysProcAttr) {}

// groupAlive says whether group pgid still has a process (zombies included).
func groupAlive(pgid int) bool {
	return !errors.Is(syscall.Kill(-pgid, 0), syscall.ESRCH)
}
