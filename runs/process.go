package runs

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"sync"
	"syscall"
	"time"

	"github.com/creack/pty"
	"golang.org/x/term"
)

// process is a launched Claude Code: its pty, its input pipe, and its process group.
//
// Claude Code reads stream-json prompts only from a pipe (with a terminal on stdin it
// refuses to read), so stdin is a pipe and stdout and stderr are the pty. The child starts
// a new session (setsid) whose controlling terminal is the pty, taken from its stdout
// (descriptor 1); the session leader's process group is the run's process group, which
// holds every process the run starts unless one leaves it on purpose. The pty is put in
// raw mode before the start, so the line discipline neither turns \n into \r\n nor cuts
// long lines.
type process struct {
	cmd   *exec.Cmd
	pty   *os.File // the pty's master side, in Go's poller so that Close interrupts a Read
	stdin *os.File // the write end of the child's stdin pipe
	pgid  int
	start uint64 // when it started (see proc.Start), 0 where unknown
	// cgroup is the run's cgroup, which the process started inside; nil where the run
	// has none.
	cgroup *cgroup
	// kill signals a process or group: syscall.Kill; a test's fake records the signals
	// the stop phase sends instead (see stop_test.go).
	kill func(pid int, sig syscall.Signal) error
}

// winsize is the pty's window size: a roomy terminal, in case a tool asks.
var winsize = pty.Winsize{Rows: 50, Cols: 200}

// startProcess launches path with argv in dir with env, as described on process, inside
// cgroup cg unless it is nil.
func startProcess(path string, argv []string, dir string, env []string, cg *cgroup) (*process, error) {
	master, tty, err := pty.Open()
	if err != nil {
		return nil, fmt.Errorf("opening a pty: %w", err)
	}
	defer tty.Close()
	if err := pty.Setsize(tty, &winsize); err != nil {
		master.Close()
		return nil, fmt.Errorf("sizing the pty: %w", err)
	}
	if _, err := term.MakeRaw(int(tty.Fd())); err != nil {
		master.Close()
		return nil, fmt.Errorf("putting the pty in raw mode: %w", err)
	}
	// pty.Open leaves the master in blocking mode (it calls Fd), where Close cannot
	// interrupt a Read. A non-blocking duplicate goes into Go's poller.
	pm, err := pollable(master)
	master.Close()
	if err != nil {
		return nil, fmt.Errorf("opening a pty: %w", err)
	}
	stdinR, stdinW, err := os.Pipe()
	if err != nil {
		pm.Close()
		return nil, fmt.Errorf("creating the input pipe: %w", err)
	}
	defer stdinR.Close()

	cmd := &exec.Cmd{
		Path:   path,
		Args:   argv,
		Dir:    dir,
		Env:    env,
		Stdin:  stdinR,
		Stdout: tty,
		Stderr: tty,
		SysProcAttr: &syscall.SysProcAttr{
			Setsid:  true,
			Setctty: true,
			Ctty:    1, // the child's stdout: the pty
		},
	}
	setParentDeathSignal(cmd.SysProcAttr)
	if cg != nil {
		cg.attach(cmd.SysProcAttr)
	}
	if err := startChild(cmd); err != nil {
		pm.Close()
		stdinW.Close()
		return nil, err
	}
	pid := cmd.Process.Pid
	return &process{cmd: cmd, pty: pm, stdin: stdinW, pgid: pid, start: startOf(pid), cgroup: cg, kill: syscall.Kill}, nil
}

// wait waits for the process to exit (cmd.Wait), and tells the reaper it was reaped.
func (p *process) wait() error {
	defer childWaited(p.cmd.Process.Pid)
	return p.cmd.Wait()
}

// pollable returns a non-blocking, close-on-exec duplicate of f registered with Go's poller.
func pollable(f *os.File) (*os.File, error) {
	fd, _, errno := syscall.Syscall(syscall.SYS_FCNTL, f.Fd(), syscall.F_DUPFD_CLOEXEC, 0)
	if errno != 0 {
		return nil, errno
	}
	if err := syscall.SetNonblock(int(fd), true); err != nil {
		syscall.Close(int(fd))
		return nil, err
	}
	return os.NewFile(fd, f.Name()), nil
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

// exitInfo describes how the process ended, from cmd.Wait's error.
func exitInfo(ps *os.ProcessState) ExitInfo {
	if ps == nil {
		return ExitInfo{Code: -1}
	}
	if ws, ok := ps.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
		return ExitInfo{Code: 128 + int(ws.Signal()), Signal: ws.Signal().String()}
	}
	return ExitInfo{Code: ps.ExitCode()}
}

// exitErr is the error cmd.Wait returns for a process that ran and exited unsuccessfully.
type exitErr = exec.ExitError
