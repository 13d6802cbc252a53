//go:build !linux

package runs

import (
	"errors"
	"os"
	"syscall"
	"time"
)

// canFindLeftovers says whether this system lets segwi find the processes a run left. It
// reads them from /proc, which this system does not have: here segwi reaches only claude's
// process group, and a process that leaves it outlives the run.
const canFindLeftovers = false

var errNoProcessTable = errors.New("finding the processes a run left needs /proc (Linux)")

// scanProcs cannot read the process table here.
func scanProcs() ([]proc, error) { return nil, errNoProcessTable }

// commandLine returns nothing better than the pid here.
func commandLine(pid int) string { return "?" }

// selfIDs returns this process's pid; its group and session are not needed here.
func selfIDs() (pid, pgid, sid int) { return os.Getpid(), 0, 0 }

// bootID is unknown here: the stamps are dated instead (stampedSinceBoot).
func bootID() string { return "" }

// bootTime is unknown here: the zero time.
func bootTime() time.Time { return time.Time{} }

// startOf is unknown here.
func startOf(int) uint64 { return 0 }

// killProc sends SIGKILL to p.PID, and says whether it did.
func killProc(p proc) (sent bool, err error) {
	err = syscall.Kill(p.PID, syscall.SIGKILL)
	if errors.Is(err, syscall.ESRCH) {
		return false, nil
	}
	return err == nil, err
}

// gone says whether process p.PID is gone.
func gone(p proc) bool { return errors.Is(syscall.Kill(p.PID, 0), syscall.ESRCH) }
