//go:build unix

package gitcmd

import (
	"os"
	"os/exec"
	"runtime"
	"strconv"
	"syscall"
)

// ownGroup starts cmd in a process group of its own and makes its cancellation kill the
// whole group: git's children (remote helpers, pack-objects, a credential helper) end with
// it.
func ownGroup(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error {
		if cmd.Process == nil {
			return nil
		}
		if err := syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL); err != nil {
			return cmd.Process.Kill()
		}
		return nil
	}
}

// heldDir is the folder name that makes git start in f itself, whatever has since been
// renamed: on Linux the child changes into /proc/self/fd/N before this process's
// descriptors are closed, which is f's folder, never a path looked up again. Elsewhere it
// is f's name, which a program could swap: there the folder's seal is what holds.
func heldDir(f *os.File) string {
	if runtime.GOOS == "linux" {
		return "/proc/self/fd/" + strconv.Itoa(int(f.Fd()))
	}
	return f.Name()
}
