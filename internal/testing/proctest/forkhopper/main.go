//go:build linux

// Command forkhopper is a process that keeps moving, as one that escaped segwi's sweep of
// /proc did (issue 20): it forks, lets its parent exit, and does it again every 300 µs,
// for a while, and then becomes `sleep SECONDS` with an empty environment. A sweep that
// reads /proc finds its pid gone by the time it looks, and its child not listed yet.
//
//	forkhopper [-fifo PATH] [-hop DURATION] [-every DURATION] SECONDS
//
// With -fifo it opens PATH (a FIFO a test reads) for writing, writes one byte to say it
// started, and keeps it open in every process it becomes, sleep included: the test reads
// end of file only once every one of them has ended, which no scan can miss. Only tests
// use it (proctest.Hoppers builds it).
package main

import (
	"flag"
	"fmt"
	"os"
	"strconv"
	"syscall"
	"time"
	"unsafe"
)

func main() {
	fifo := flag.String("fifo", "", "a FIFO to hold open for writing in every process it becomes")
	hop := flag.Duration("hop", 8*time.Second, "how long to keep forking")
	every := flag.Duration("every", 300*time.Microsecond, "the pause between two forks")
	flag.Parse()
	seconds, err := strconv.Atoi(flag.Arg(0))
	if flag.NArg() != 1 || err != nil {
		fmt.Fprintln(os.Stderr, "usage: forkhopper [-fifo PATH] [-hop DURATION] [-every DURATION] SECONDS")
		os.Exit(2)
	}
	if *fifo != "" {
		// Not close-on-exec: sleep keeps it too.
		fd, err := syscall.Open(*fifo, syscall.O_WRONLY, 0)
		if err != nil {
			fmt.Fprintln(os.Stderr, "forkhopper:", err)
			os.Exit(1)
		}
		syscall.Write(fd, []byte{'h'})
	}
	sleep, err := syscall.BytePtrFromString("/bin/sleep")
	if err != nil {
		os.Exit(1)
	}
	argv, err := syscall.SlicePtrFromStrings([]string{"sleep", strconv.Itoa(seconds)})
	if err != nil {
		os.Exit(1)
	}
	envv := []*byte{nil}
	var now syscall.Timespec
	syscall.RawSyscall(syscall.SYS_CLOCK_GETTIME, clockMonotonic, uintptr(unsafe.Pointer(&now)), 0)
	end := now.Nano() + hop.Nanoseconds()
	pause := syscall.NsecToTimespec(every.Nanoseconds())
	hopThenSleep(end, &pause, sleep, &argv[0], &envv[0])
}

const clockMonotonic = 1 // CLOCK_MONOTONIC

// hopThenSleep forks until the monotonic clock reaches end, each parent exiting at once
// and each child pausing for pause before it forks again, and then executes sleep with
// argv and envv. After a fork the child has only this thread of the Go runtime's, so
// from the first fork on it makes raw system calls only, and nothing here may grow the
// stack or enter the runtime (as in syscall.forkAndExecInChild).
//
//go:nosplit
//go:norace
func hopThenSleep(end int64, pause *syscall.Timespec, sleep *byte, argv, envv **byte) {
	var now syscall.Timespec
	for {
		pid, _, errno := syscall.RawSyscall(syscall.SYS_CLONE, uintptr(syscall.SIGCHLD), 0, 0)
		if errno == 0 && pid != 0 {
			syscall.RawSyscall(syscall.SYS_EXIT_GROUP, 0, 0, 0) // the parent: gone at once
		}
		// The child, or the same process when the fork failed (out of pids): hop again.
		syscall.RawSyscall(syscall.SYS_CLOCK_GETTIME, clockMonotonic, uintptr(unsafe.Pointer(&now)), 0)
		if now.Sec*1e9+now.Nsec >= end {
			break
		}
		syscall.RawSyscall(syscall.SYS_NANOSLEEP, uintptr(unsafe.Pointer(pause)), 0, 0)
	}
	syscall.RawSyscall(syscall.SYS_EXECVE, uintptr(unsafe.Pointer(sleep)), uintptr(unsafe.Pointer(argv)), uintptr(unsafe.Pointer(envv)))
	syscall.RawSyscall(syscall.SYS_EXIT_GROUP, 127, 0, 0)
}
