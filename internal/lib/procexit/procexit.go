// Package procexit waits for a child process to exit without holding one of the Go
// scheduler's processors while it waits.
//
// os.Process.Wait waits in a blocking waitid system call. The runtime leaves the
// goroutine's processor (P) attached to the thread in a system call and has its monitor
// thread, sysmon, look every 20 µs, backing off after a millisecond, until it takes the
// P back after 10 ms. Each wait so costs some 60 wakeups of sysmon, and a blocking call
// that starts while every P is idle wakes it first; on a guest where a wakeup costs 15 to
// 30 µs of CPU that was 0.7 to 1.6 ms a wait, and segwi waits for Claude Code and for each
// git it runs. Await instead waits on Go's network poller for the process's pidfd to
// become readable, which it does when the process exits; the Wait that follows returns at
// once.
package procexit

import "os"

// Await returns once p, a child of this process, has exited, leaving it for p.Wait (or
// exec.Cmd.Wait) to reap. Where it cannot wait so (no pidfd: an old kernel, not Linux) it
// returns at once, and the Wait that follows waits as it always does.
func Await(p *os.Process) { awaitExit(p) }
