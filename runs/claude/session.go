package claude

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"sync"
	"syscall"
	"time"

	"github.com/creack/pty"
	"golang.org/x/term"

	"github.com/segwi/segwi/runs"
)

// writeWait bounds the write of one message to a Claude Code that does not read its input.
const writeWait = 10 * time.Second

// session is a started Claude Code: its pty, its input pipe, its parser, and the run's
// mcp.json while it is there. It implements runs.Session.
type session struct {
	pty       *os.File // the pty's master side, in Go's poller so that Close interrupts a Read
	stdin     *os.File // the write end of the child's stdin pipe
	parser    *parser
	mcpConfig string // the run's mcp.json, "" when no approvals server is wired

	closeOnce sync.Once
}

// winsize is the pty's window size: a roomy terminal, in case a tool asks.
var winsize = pty.Winsize{Rows: 50, Cols: 200}

// startInPTY starts Claude Code (claude, with argv) for l, through l.Start.
//
// Claude Code reads stream-json prompts only from a pipe (with a terminal on stdin it
// refuses to read), so stdin is a pipe and stdout and stderr are the pty. The child's
// controlling terminal is the pty, taken from its stdout (descriptor 1), in the session of
// its own that l.Start gives it. The pty is put in raw mode before the start, so the line
// discipline neither turns \n into \r\n nor cuts long lines.
func startInPTY(l runs.Launch, claude string, argv []string) (*session, error) {
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
		Path:   claude,
		Args:   argv,
		Dir:    l.Checkout,
		Env:    l.Env,
		Stdin:  stdinR,
		Stdout: tty,
		Stderr: tty,
		SysProcAttr: &syscall.SysProcAttr{
			Setctty: true,
			Ctty:    1, // the child's stdout: the pty
		},
	}
	if err := l.Start(cmd); err != nil {
		pm.Close()
		stdinW.Close()
		return nil, err
	}
	return &session{pty: pm, stdin: stdinW, parser: newParser()}, nil
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

// Send writes text as one stream-json user message, within writeWait.
func (s *session) Send(text string) error {
	s.stdin.SetWriteDeadline(time.Now().Add(writeWait))
	_, err := s.stdin.Write(userMessage(text))
	return err
}

// CloseInput closes Claude Code's input: it finishes its turn and exits.
func (s *session) CloseInput() error { return s.stdin.Close() }

// Output is the pty: what Claude Code and its tools print.
func (s *session) Output() io.Reader { return s.pty }

// Parse turns one line of stream-json into events.
func (s *session) Parse(line []byte, emit func(runs.Event)) { s.parser.parseLine(line, emit) }

// Connected removes the run's mcp.json: Claude Code read it before connecting and does
// not read it again, not even to reconnect, and the token in it must not stay where the
// agent or another local program can read it.
func (s *session) Connected() error {
	if s.mcpConfig == "" {
		return nil
	}
	if err := os.Remove(s.mcpConfig); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("could not remove %s, which holds the run's approvals token: %w", s.mcpConfig, err)
	}
	return nil
}

// Close closes the pty, which ends a read of it, and removes the run's mcp.json, still
// there if Claude Code never connected.
func (s *session) Close() error {
	var err error
	s.closeOnce.Do(func() {
		err = errors.Join(s.pty.Close(), s.Connected())
	})
	return err
}
