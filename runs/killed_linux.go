package runs

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"golang.org/x/sys/unix"
)

// kernelLog is the kernel log (/dev/kmsg): the records the kernel still holds, read record
// by record without waiting.
type kernelLog struct{ fd int }

// kernelLogSlack is how much earlier than a process's start a record of the kernel log may
// be stamped and still be taken as logged since: the log's clock (the kernel's local clock)
// and CLOCK_MONOTONIC, which kernelLogNow reads, run apart by a little. A record that old
// about the same pid is of an earlier process only if the pids came round meanwhile.
const kernelLogSlack = time.Minute

// kernelLogNow returns the time by the kernel log's clock (time since the system started,
// not counting suspends), as CLOCK_MONOTONIC tells it.
func kernelLogNow() time.Duration {
	var ts unix.Timespec
	if err := unix.ClockGettime(unix.CLOCK_MONOTONIC, &ts); err != nil {
		return 0
	}
	return time.Duration(ts.Nano())
}

// openKernelLog opens the kernel log at its first record; an error (most often EPERM: the
// kernel.dmesg_restrict sysctl keeps the log from users) says why it cannot be read.
func openKernelLog() (*kernelLog, error) {
	fd, err := unix.Open("/dev/kmsg", unix.O_RDONLY|unix.O_NONBLOCK|unix.O_CLOEXEC, 0)
	if err != nil {
		return nil, fmt.Errorf("open /dev/kmsg: %w", err)
	}
	return &kernelLog{fd: fd}, nil
}

// killed returns the kernel's line saying it killed pid ("Memory cgroup out of memory:
// Killed process 1234 (claude)"), among the records logged since (by the log's clock, less
// kernelLogSlack); "" when there is none.
func (l *kernelLog) killed(pid int, since time.Duration) (string, error) {
	want := fmt.Sprintf("Killed process %d (", pid)
	buf := make([]byte, 8192) // a record is at most about 1 KiB; a read takes one whole record
	for {
		n, err := unix.Read(l.fd, buf)
		switch {
		case errors.Is(err, unix.EAGAIN):
			return "", nil // no more records
		case errors.Is(err, unix.EPIPE):
			continue // records were overwritten before they were read: go on with the next
		case err != nil:
			return "", fmt.Errorf("read /dev/kmsg: %w", err)
		case n == 0:
			return "", nil
		}
		// "PRIORITY,SEQUENCE,TIME,FLAGS;MESSAGE\n" then continuation lines " KEY=VALUE",
		// TIME in microseconds.
		rec := string(buf[:n])
		head, msg, ok := strings.Cut(rec, ";")
		if !ok {
			continue
		}
		if f := strings.Split(head, ","); len(f) >= 3 {
			if us, err := strconv.ParseInt(f[2], 10, 64); err == nil && time.Duration(us)*time.Microsecond < since-kernelLogSlack {
				continue
			}
		}
		msg, _, _ = strings.Cut(msg, "\n")
		if i := strings.Index(msg, want); i >= 0 {
			// The line goes on with the process's memory figures: keep who killed it.
			if j := strings.Index(msg[i+len(want):], ")"); j >= 0 {
				msg = msg[:i+len(want)+j+1]
			}
			return msg, nil
		}
	}
}

func (l *kernelLog) close() { unix.Close(l.fd) }
