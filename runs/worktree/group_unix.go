//go:build unix

package worktree

import (
	"os/exec"
	"syscall"
)

// oNoFollow keeps a copy from writing through a link put where the file goes.
const oNoFollow = syscall.O_NOFOLLOW

// ownGroup starts cmd in a process group of its own, which a cancelled context kills.
func ownGroup(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
}

// killGroup kills the process group pgid, if anything is left of it.
func killGroup(pgid int) { syscall.Kill(-pgid, syscall.SIGKILL) } //nolint:errcheck // gone already is fine
