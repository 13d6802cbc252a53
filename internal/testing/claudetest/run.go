package claudetest

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/creack/pty"
	"golang.org/x/term"
)

// PrintArgs are the flags of a print-mode run as segwi starts one: prompts as stream-json
// lines on stdin, events as stream-json lines on stdout, auto permission mode.
var PrintArgs = []string{
	"-p", "--input-format", "stream-json", "--output-format", "stream-json", "--verbose",
	"--permission-mode", "auto",
}

// Options describe one direct run of Claude Code.
type Options struct {
	// Env is the process's environment; required.
	Env *Environment
	// Dir is the working directory, usually a Checkout; required.
	Dir string
	// Args are flags added after PrintArgs (--model, --disallowedTools, ...).
	Args []string
	// Prompts are sent one at a time as stream-json user messages: the first at once, each
	// next one after the previous prompt's result; stdin closes after the last result.
	Prompts []string
	// Timeout bounds the whole run; 0 means 60 seconds. A run that exceeds it is killed
	// and fails the test.
	Timeout time.Duration
	// PTY starts the process as segwi does: stdout and stderr a pty in raw mode that is
	// the controlling terminal of a session of its own, stdin still a pipe. Its stderr
	// lines are then in Result.Stdout, and Result.Stderr is empty.
	PTY bool
}

// Result is what one run of Claude Code produced.
type Result struct {
	// Events are stdout's JSON lines, in order.
	Events []Event
	// Stdout is everything the process wrote on stdout, JSON or not.
	Stdout string
	// Stderr is everything the process wrote on stderr.
	Stderr string
	// ExitCode is the process's exit status.
	ExitCode int
	// Started is when the process started; Wall is the time from then to its exit.
	Started time.Time
	Wall    time.Duration
}

// Process is a running Claude Code started by Start.
type Process struct {
	// Pid is the process's id, also its process group's id.
	Pid int

	cmd     *exec.Cmd
	timeout time.Duration
	done    chan struct{}
	res     *Result
	err     error // a problem reading stdout, reported by Wait
	killed  bool  // the timeout passed before the process exited
}

// Run runs the Claude Code binary (see Binary) directly with opts and returns once it
// exited: Start followed by Wait.
func Run(t testing.TB, opts Options) *Result {
	t.Helper()
	return Start(t, opts).Wait(t)
}

// Start starts the Claude Code binary (see Binary) with PrintArgs and opts.Args, in opts.Dir,
// in its own process group (with opts.PTY, its own session), and feeds it opts.Prompts. It
// fails the test when the process cannot start. The whole process group is killed when
// opts.Timeout passes or the test ends, so nothing the agent started outlives the test.
func Start(t testing.TB, opts Options) *Process {
	t.Helper()
	bin := Binary(t)
	if opts.Env == nil || opts.Dir == "" {
		t.Fatal("claudetest.Start: Options.Env and Options.Dir are required")
	}
	if opts.Timeout == 0 {
		opts.Timeout = 60 * time.Second
	}
	cmd := exec.Command(bin, append(append([]string(nil), PrintArgs...), opts.Args...)...)
	cmd.Dir = opts.Dir
	cmd.Env = opts.Env.Vars()
	var stderr bytes.Buffer
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatalf("claude stdin: %v", err)
	}
	var stdout io.Reader
	var tty *os.File // the pty's terminal side, closed here once the child holds it
	if opts.PTY {
		stdout, tty = openPTY(t, cmd)
	} else {
		cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
		cmd.Stderr = &stderr
		if stdout, err = cmd.StdoutPipe(); err != nil {
			t.Fatalf("claude stdout: %v", err)
		}
	}
	start := time.Now()
	if err := cmd.Start(); err != nil {
		t.Fatalf("starting %s: %v", bin, err)
	}
	if tty != nil {
		tty.Close() // the child has it; reading the master ends with EIO once all holders exit
	}
	ctx, cancel := context.WithTimeout(context.Background(), opts.Timeout)
	p := &Process{Pid: cmd.Process.Pid, cmd: cmd, timeout: opts.Timeout, done: make(chan struct{}), res: &Result{Started: start}}
	stopTimer := context.AfterFunc(ctx, p.kill)
	t.Cleanup(func() {
		p.kill()
		<-p.done
		stopTimer()
		cancel()
	})

	go func() {
		defer close(p.done)
		prompts := opts.Prompts
		send := func() {
			if len(prompts) == 0 {
				stdin.Close()
				return
			}
			if _, err := stdin.Write(UserMessage(prompts[0])); err != nil {
				stdin.Close()
			}
			prompts = prompts[1:]
		}
		send()
		var out strings.Builder
		r := bufio.NewReaderSize(stdout, 64<<10)
		for {
			line, err := r.ReadBytes('\n')
			out.Write(line)
			if ev, ok := parseEvent(line); ok {
				ev.Received = time.Now()
				p.res.Events = append(p.res.Events, ev)
				if ev.Type == "result" {
					send()
				}
			}
			if err != nil {
				if !errors.Is(err, io.EOF) && !(opts.PTY && errors.Is(err, syscall.EIO)) {
					p.err = fmt.Errorf("reading claude's stdout: %w", err)
				}
				break
			}
		}
		stdin.Close()
		cmd.Wait()
		p.res.Wall = time.Since(start)
		p.res.Stdout, p.res.Stderr = out.String(), stderr.String()
		p.res.ExitCode = cmd.ProcessState.ExitCode()
		p.killed = ctx.Err() != nil
	}()
	return p
}

// openPTY makes a pty for cmd as described on Options.PTY and returns its master, which
// the caller reads, and its terminal side, which the caller closes once cmd started. The
// master is closed when the test ends.
func openPTY(t testing.TB, cmd *exec.Cmd) (master, tty *os.File) {
	t.Helper()
	master, tty, err := pty.Open()
	if err != nil {
		t.Fatalf("opening a pty for claude: %v", err)
	}
	t.Cleanup(func() { master.Close(); tty.Close() })
	if err := pty.Setsize(tty, &pty.Winsize{Rows: 50, Cols: 200}); err != nil {
		t.Fatalf("sizing claude's pty: %v", err)
	}
	if _, err := term.MakeRaw(int(tty.Fd())); err != nil {
		t.Fatalf("putting claude's pty in raw mode: %v", err)
	}
	cmd.Stdout, cmd.Stderr = tty, tty
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true, Setctty: true, Ctty: 1} // the child's stdout
	return master, tty
}

// Signal sends sig to the process (not its group), as segwi's polite stop does.
func (p *Process) Signal(sig syscall.Signal) error {
	return p.cmd.Process.Signal(sig)
}

// kill sends SIGKILL to the process's whole group.
func (p *Process) kill() {
	syscall.Kill(-p.Pid, syscall.SIGKILL)
}

// Wait blocks until the process exited and its stdout closed, and returns what it produced.
// It fails the test when the process had to be killed for exceeding Options.Timeout; a
// non-zero exit is a Result, not a failure.
func (p *Process) Wait(t testing.TB) *Result {
	t.Helper()
	<-p.done
	if p.err != nil {
		t.Error(p.err)
	}
	if p.killed {
		t.Fatalf("claude ran longer than %v and was killed\nstdout:\n%s\nstderr:\n%s", p.timeout, p.res.Stdout, p.res.Stderr)
	}
	t.Logf("claude exited %d after %v with events %v", p.res.ExitCode, p.res.Wall.Round(time.Millisecond), p.res.Kinds())
	return p.res
}
