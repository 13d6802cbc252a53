package runs

import (
	"errors"
	"path/filepath"
	"strconv"
	"syscall"
)

// setParentDeathSignal makes the kernel SIGKILL the child when segwi dies, even by
// SIGKILL. The child is a session leader with the pty as its controlling terminal, so
// its death hangs up the terminal and sends SIGHUP to the rest of its process group.
// What left the group (Claude Code runs each Bash tool in a session of its own), or
// ignores SIGHUP, survives a hard kill of segwi: the next segwi to start kills it
// (endRecordedCgroup, sweepDeadRuns).
func setParentDeathSignal(attr *syscall.SysProcAttr) {
	attr.Pdeathsig = syscall.SIGKILL
}

// groupAlive says whether a process of group pgid is alive; a zombie (ended, not yet
// reaped by its parent) is not.
func groupAlive(pgid int) bool {
	if err := syscall.Kill(-pgid, 0); errors.Is(err, syscall.ESRCH) {
		return false
	}
	procs, err := filepath.Glob("/proc/[0-9]*")
	if err != nil {
		return true
	}
	for _, path := range procs {
		pid, _ := strconv.Atoi(filepath.Base(path))
		if p, ok := readProc(pid); ok && p.PGID == pgid && !p.Zombie {
			return true
		}
	}
	return false
}
