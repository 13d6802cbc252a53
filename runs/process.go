package runs

import (
	"errors"
	"os"
	"os/exec"
	"runtime"
	"sync"
	"syscall"
	"time"

	"github.com/segwi/segwi/internal/lib/procexit"
)

// process is a run's agent as segwi started it (startAgent): the leader of a session and
// process group of its own, which holds every process the run starts unless one leaves it
// on purpose. What its standard files are is the runtime's (a pty, pipes).
type process struct {
	cmd   *exec.Cmd
	pgid  int
	start uint64 // when it started (see proc.Start), 0 where unknown
	// started is when it started, by this process's clock: Info.Start.
	started time.Time
	// cgroup is the run's cgroup, which the process started inside; nil where the run
	// has none.
	cgroup *cgroup
	// kill signals a process or group: syscall.Kill; a test's fake records the signals
	// the stop phase sends instead (see stop_test.go).
	kill func(pid int, sig syscall.Signal) error
}

// startAgent starts cmd, which a runtime made ready (Launch.Start), as a run's agent: in a
// new session (setsid), so in a process group of its own that the stop's signals reach,
// inside cgroup cg unless it is nil, killed by the kernel if segwi dies (where it can),
// started from the spawner thread and kept from the reaper (startChild).
func startAgent(cmd *exec.Cmd, cg *cgroup) (*process, error) {
	if cmd.SysProcAttr == nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{}
	}
	cmd.SysProcAttr.Setsid = true
	setParentDeathSignal(cmd.SysProcAttr)
	if cg != nil {
		cg.attach(cmd.SysProcAttr)
	}
	if err := startChild(cmd); err != nil {
		return nil, err
	}
	started := time.Now()
	pid := cmd.Process.Pid
	return &process{cmd: cmd, pgid: pid, start: startOf(pid), started: started, cgroup: cg, kill: syscall.Kill}, nil
}

// wait waits for the process to exit (cmd.Wait), and tells the reaper it was reaped. It
// waits on the poller first (procexit.Await): a run's whole life in a blocking wait would
// cost segwi's process some 60 wakeups of Go's sysmon thread.
func (p *process) wait() error {
	defer childWaited(p.cmd.Process.Pid)
	procexit.Await(p.cmd.Process)
	return p.cmd.Wait()
}

// The spawner is one goroutine locked to its OS thread for the life of the process, and
// every run's child is started from it. On Linux a child gets SIGKILL when the thread that
// forked it exits (PR_SET_PDEATHSIG is tied to the thread, not the process); Go ends a
// thread when a goroutine locked to it returns, so a child started from an ordinary
// goroutine could be killed at a random moment. Started from a thread that never exits,
// the signal fires only when segwi itself dies, however it dies.
var spawner struct {
	once sync.Once
	reqs chan spawnRequest
}

type spawnRequest struct {
	cmd  *exec.Cmd
	done chan error
}

// startOnSpawner starts cmd from the spawner thread and returns when it has started or
// failed to.
func startOnSpawner(cmd *exec.Cmd) error {
	spawner.once.Do(func() {
		spawner.reqs = make(chan spawnRequest)
		go func() {
			runtime.LockOSThread() // never unlocked: this thread lives as long as segwi
			for req := range spawner.reqs {
				req.done <- req.cmd.Start()
			}
		}()
	})
	done := make(chan error, 1)
	spawner.reqs <- spawnRequest{cmd, done}
	return <-done
}

// signal sends sig to the whole process group. A group already gone is not an error.
func (p *process) signal(sig syscall.Signal) error {
	err := p.kill(-p.pgid, sig)
	if errors.Is(err, syscall.ESRCH) {
		return nil
	}
	return err
}

// groupGone waits until no live process is left in the group (zombies waiting for their
// reaper do not count), for at most limit, and says whether none is left.
func (p *process) groupGone(limit time.Duration) bool {
	deadline := time.Now().Add(limit)
	for {
		if !groupAlive(p.pgid) {
			return true
		}
		if time.Now().After(deadline) {
			return false
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// exitInfo describes how the process ended, and the CPU it took, from its state once
// waited for.
func exitInfo(ps *os.ProcessState) ExitInfo {
	if ps == nil {
		return ExitInfo{Code: -1}
	}
	cpu := (ps.UserTime() + ps.SystemTime()).Seconds()
	if ws, ok := ps.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
		return ExitInfo{Code: 128 + int(ws.Signal()), Signal: ws.Signal().String(), CPUSeconds: cpu}
	}
	return ExitInfo{Code: ps.ExitCode(), CPUSeconds: cpu}
}

// exitErr is the error cmd.Wait returns for a process that ran and exited unsuccessfully.
type exitErr = exec.ExitError
