package procexit

import (
	"os"

	"golang.org/x/sys/unix"
)

func awaitExit(p *os.Process) {
	fd, err := unix.PidfdOpen(p.Pid, unix.PIDFD_NONBLOCK)
	if err != nil {
		return // ESRCH: reaped already; ENOSYS, EINVAL: a kernel before 5.10
	}
	f := os.NewFile(uintptr(fd), "pidfd") // non-blocking: on the poller
	defer f.Close()
	rc, err := f.SyscallConn()
	if err != nil {
		return
	}
	rc.Read(func(fd uintptr) bool { //nolint:errcheck // any error leaves the Wait to wait
		var info unix.Siginfo
		err := unix.Waitid(unix.P_PIDFD, int(fd), &info, unix.WEXITED|unix.WNOHANG|unix.WNOWAIT, nil)
		// Signo is SIGCHLD once it exited, 0 while it runs; an error (ECHILD: not our
		// child, or reaped meanwhile) ends the wait here.
		return err != nil || info.Signo != 0
	})
}
