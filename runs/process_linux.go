package runs

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"syscall"
)

// setParentDeathSignal makes the kernel SIGKILL the child when segwi dies, even by
// SIGKILL. The child is a session leader with the pty as its controlling terminal, so
// its death hangs up the terminal and sends SIGHUP to the rest of its process group;
// grandchildren that ignore SIGHUP are the one way a hard kill of segwi leaves a
// process behind.
func setParentDeathSignal(attr *syscall.SysProcAttr) {
	attr.Pdeathsig = syscall.SIGKILL
}

// groupAlive says whether a process of group pgid is alive; a zombie (ended, not yet
// reaped by its parent) is not.
func groupAlive(pgid int) bool {
	if err := syscall.Kill(-pgid, 0); errors.Is(err, syscall.ESRCH) {
		return false
	}
	procs, err := filepath.Glob("/proc/[0-9]*/stat")
	if err != nil {
		return true
	}
	for _, path := range procs {
		b, err := os.ReadFile(path)
		if err != nil {
			continue
		}
		// pid (comm) state ppid pgrp ...; comm may hold spaces and parentheses.
		i := bytes.LastIndexByte(b, ')')
		if i < 0 {
			continue
		}
		f := bytes.Fields(b[i+1:])
		if len(f) < 3 {
			continue
		}
		if g, _ := strconv.Atoi(string(f[2])); g == pgid && string(f[0]) != "Z" && string(f[0]) != "X" {
			return true
		}
	}
	return false
}
