package runs

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// canFindLeftovers says whether this system lets segwi find the processes a run left
// (it reads them from /proc).
const canFindLeftovers = true

// bootID is the kernel's id of this boot, new at each start of the system; "" where it
// cannot be read. Read once a process.
var bootID = sync.OnceValue(func() string {
	b, err := os.ReadFile("/proc/sys/kernel/random/boot_id")
	if err != nil {
		return ""
	}
	return strings.TrimSpace(string(b))
})

// bootTime returns when the system started, by the wall clock: no process started before
// it is alive. It is the zero time where it cannot be told.
func bootTime() time.Time {
	var up unix.Timespec
	if err := unix.ClockGettime(unix.CLOCK_BOOTTIME, &up); err != nil {
		return time.Time{}
	}
	return time.Now().Add(-time.Duration(up.Nano()))
}

// scanProcs returns a snapshot of the process table read from /proc: every process, and
// the SEGWI_RUN_ID of those whose environment segwi may read (its user's, not setuid).
// One pass reads a few small files per process: a bounded scan, made when a run starts or
// ends, at segwi's start and before a push; never on a timer. Its files are read into one
// buffer with plain system calls (procFiles): what a scan costs is mostly the kernel's
// work for each file, and each call more counts.
func scanProcs() ([]proc, error) {
	d, err := os.Open("/proc")
	if err != nil {
		return nil, fmt.Errorf("reading the process table: %w", err)
	}
	defer d.Close()
	names, err := d.Readdirnames(-1)
	if err != nil {
		return nil, fmt.Errorf("reading the process table: %w", err)
	}
	var files procFiles
	procs := make([]proc, 0, len(names))
	for _, name := range names {
		pid, err := strconv.Atoi(name)
		if err != nil {
			continue
		}
		p, ok := files.proc(pid)
		if !ok {
			continue // gone since the listing
		}
		if !p.Zombie {
			p.RunID, p.OutsideRun = files.env(pid)
		}
		procs = append(procs, p)
	}
	return procs, nil
}

// procFiles reads the files of /proc into one buffer, reused from file to file: each read
// is open, read until the end, close, with none of os.ReadFile's stat, poller
// registration and growing reads. What it returns is valid until its next read.
type procFiles struct{ buf []byte }

// read returns the content of path, or false when it cannot be read.
func (f *procFiles) read(path string) ([]byte, bool) {
	fd, err := unix.Open(path, unix.O_RDONLY|unix.O_CLOEXEC, 0)
	if err != nil {
		return nil, false
	}
	defer unix.Close(fd)
	if f.buf == nil {
		f.buf = make([]byte, 16<<10)
	}
	n := 0
	for {
		if n == len(f.buf) {
			f.buf = append(f.buf, make([]byte, len(f.buf))...)
		}
		m, err := unix.Read(fd, f.buf[n:])
		switch {
		case err == unix.EINTR:
			continue
		case err != nil:
			return nil, false
		case m == 0:
			return f.buf[:n], true
		}
		n += m
	}
}

// readProc reads the ids and state of process pid from /proc/PID/stat.
func readProc(pid int) (proc, bool) {
	var f procFiles
	return f.proc(pid)
}

// proc reads the ids and state of process pid from /proc/PID/stat.
func (f *procFiles) proc(pid int) (proc, bool) {
	b, ok := f.read("/proc/" + strconv.Itoa(pid) + "/stat")
	if !ok {
		return proc{}, false
	}
	// pid (comm) state ppid pgrp session tty_nr tpgid flags minflt cminflt majflt
	// cmajflt utime stime cutime cstime priority nice num_threads itrealvalue starttime
	// ...; comm may hold spaces and parentheses, so the fields start after the last ')'.
	i := bytes.LastIndexByte(b, ')')
	if i < 0 {
		return proc{}, false
	}
	fields := bytes.Fields(b[i+1:])
	if len(fields) < 20 {
		return proc{}, false
	}
	p := proc{PID: pid, Zombie: fields[0][0] == 'Z' || fields[0][0] == 'X'}
	p.PPID, _ = strconv.Atoi(string(fields[1]))
	p.PGID, _ = strconv.Atoi(string(fields[2]))
	p.SID, _ = strconv.Atoi(string(fields[3]))
	p.Start, _ = strconv.ParseUint(string(fields[19]), 10, 64)
	return p, true
}

// env returns the SEGWI_RUN_ID in process pid's environment, and whether it carries
// outsideRunEnv; nothing when the environment cannot be read (another user's process, a
// setuid one).
func (f *procFiles) env(pid int) (runID string, outside bool) {
	b, ok := f.read("/proc/" + strconv.Itoa(pid) + "/environ")
	if !ok {
		return "", false
	}
	for kv := range bytes.SplitSeq(b, []byte{0}) {
		switch {
		case bytes.HasPrefix(kv, []byte("SEGWI_RUN_ID=")):
			runID = string(kv[len("SEGWI_RUN_ID="):])
		case bytes.HasPrefix(kv, []byte(outsideRunEnv+"=")):
			outside = true
		}
	}
	return runID, outside
}

// maxCommandBytes bounds the command line kept of a process.
const maxCommandBytes = 4 << 10

// commandLine returns process pid's command line, its arguments joined by spaces, or its
// name in brackets when it has none (a kernel thread, a process exiting).
func commandLine(pid int) string {
	b, _ := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/cmdline")
	b = bytes.TrimRight(b, "\x00")
	if len(b) == 0 {
		comm, _ := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/comm")
		return "[" + strings.TrimSpace(string(comm)) + "]"
	}
	s := strings.ToValidUTF8(string(bytes.ReplaceAll(b, []byte{0}, []byte{' '})), "?")
	if len(s) > maxCommandBytes {
		s = strings.ToValidUTF8(s[:maxCommandBytes], "") + "…"
	}
	return s
}

// selfIDs returns this process's pid, process group and session: two system calls, where
// reading /proc/self/stat (at every SIGCHLD, in reapOrphans) was 0.7 % of segwi run's CPU.
func selfIDs() (pid, pgid, sid int) {
	pid = os.Getpid()
	pgid, _ = unix.Getpgid(0)
	sid, _ = unix.Getsid(0)
	return pid, pgid, sid
}

// startOf returns when process pid started (see proc.Start), or 0 when it is gone.
func startOf(pid int) uint64 {
	p, _ := readProc(pid)
	return p.Start
}

// killProc sends SIGKILL to p, and to no other process that took its pid since the
// snapshot: through a pidfd opened on the pid and checked against p's start time. It
// says whether it sent the signal: not to a process that ended meanwhile.
func killProc(p proc) (sent bool, err error) {
	fd, err := unix.PidfdOpen(p.PID, 0)
	if errors.Is(err, syscall.ENOSYS) || errors.Is(err, syscall.EPERM) {
		// A kernel before 5.3, or a sandbox without pidfds: the plain kill, after the
		// same check (a race of microseconds remains).
		if gone(p) {
			return false, nil
		}
		return sentUnlessGone(syscall.Kill(p.PID, syscall.SIGKILL))
	}
	if err != nil {
		return sentUnlessGone(err)
	}
	defer unix.Close(fd)
	if gone(p) {
		return false, nil // not the process of the snapshot, or it ended
	}
	return sentUnlessGone(unix.PidfdSendSignal(fd, unix.SIGKILL, nil, 0))
}

// sentUnlessGone turns the error of a kill into killProc's answer.
func sentUnlessGone(err error) (bool, error) {
	if errors.Is(err, syscall.ESRCH) {
		return false, nil
	}
	return err == nil, err
}

// gone says whether p has ended: no process has its pid and start time, or it is a zombie.
func gone(p proc) bool {
	q, ok := readProc(p.PID)
	return !ok || q.Start != p.Start || q.Zombie
}
