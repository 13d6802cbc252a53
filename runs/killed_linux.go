package runs

import (
	"errors"
	"fmt"
	"io"
	"strings"

	"golang.org/x/sys/unix"
)

// kernelLog is the kernel log (/dev/kmsg) from the moment it was opened: what the kernel
// logged since, read record by record without waiting.
type kernelLog struct{ fd int }

// openKernelLog opens the kernel log at its end; an error (most often EPERM: the
// kernel.dmesg_restrict sysctl keeps the log from users) says why it cannot be read.
func openKernelLog() (*kernelLog, error) {
	fd, err := unix.Open("/dev/kmsg", unix.O_RDONLY|unix.O_NONBLOCK|unix.O_CLOEXEC, 0)
	if err != nil {
		return nil, fmt.Errorf("open /dev/kmsg: %w", err)
	}
	if _, err := unix.Seek(fd, 0, io.SeekEnd); err != nil {
		unix.Close(fd)
		return nil, fmt.Errorf("seek /dev/kmsg: %w", err)
	}
	return &kernelLog{fd: fd}, nil
}

// killed returns the kernel's line saying it killed pid ("Memory cgroup out of memory:
// Killed process 1234 (claude)"), among the records logged since the log was opened; ""
// when there is none.
func (l *kernelLog) killed(pid int) (string, error) {
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
		// "PRIORITY,SEQUENCE,TIME,FLAGS;MESSAGE\n" then continuation lines " KEY=VALUE".
		rec := string(buf[:n])
		_, msg, ok := strings.Cut(rec, ";")
		if !ok {
			continue
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
