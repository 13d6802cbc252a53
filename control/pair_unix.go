//go:build unix

package control

import (
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"slices"
	"strconv"
	"strings"
	"syscall"
)

// EnvFD is the environment variable that tells a child started by StartChild which of its
// file descriptors is its end of the channel.
const EnvFD = "SEGWI_CONTROL_FD"

// Pair returns a connected pair of unnamed stream sockets: this process's end, and the
// other end as a file to give a child (exec.Cmd.ExtraFiles). Neither has a name or an
// address: no other process can connect to them. Both are close-on-exec from the start,
// so no other child this process starts inherits either.
func Pair() (net.Conn, *os.File, error) {
	fds, err := socketpair()
	if err != nil {
		return nil, nil, fmt.Errorf("control: making a socket pair: %w", err)
	}
	ours := os.NewFile(uintptr(fds[0]), "segwi-control")
	theirs := os.NewFile(uintptr(fds[1]), "segwi-control-child")
	conn, err := net.FileConn(ours) // a duplicate, close-on-exec, in the runtime's poller
	ours.Close()
	if err != nil {
		theirs.Close()
		return nil, nil, fmt.Errorf("control: making a socket pair: %w", err)
	}
	return conn, theirs, nil
}

// StartChild starts cmd with its end of a new Pair as an extra file, whose descriptor
// number it puts in cmd's environment as EnvFD, and returns this process's end. Its own
// copy of the child's end is closed once cmd has started (or failed to).
func StartChild(cmd *exec.Cmd) (net.Conn, error) {
	conn, child, err := Pair()
	if err != nil {
		return nil, err
	}
	defer child.Close()
	fd := 3 + len(cmd.ExtraFiles)
	cmd.ExtraFiles = append(cmd.ExtraFiles, child)
	env := cmd.Env
	if env == nil {
		env = os.Environ()
	}
	env = slices.DeleteFunc(slices.Clone(env), func(kv string) bool { return strings.HasPrefix(kv, EnvFD+"=") })
	cmd.Env = append(env, EnvFD+"="+strconv.Itoa(fd))
	if err := cmd.Start(); err != nil {
		conn.Close()
		return nil, fmt.Errorf("control: starting %s: %w", cmd.Path, err)
	}
	return conn, nil
}

// ErrNotAChild is the error of Inherited in a process that was not started by StartChild.
var ErrNotAChild = errors.New("control: no channel was passed to this process (" + EnvFD + " is not set)")

// Inherited returns this process's end of the channel its parent passed with StartChild.
// It unsets EnvFD and makes the descriptor close-on-exec, so that the processes this one
// starts neither see nor inherit it. Call it once.
func Inherited() (net.Conn, error) {
	v, ok := os.LookupEnv(EnvFD)
	if !ok {
		return nil, ErrNotAChild
	}
	os.Unsetenv(EnvFD)
	fd, err := strconv.Atoi(v)
	if err != nil || fd < 3 {
		return nil, fmt.Errorf("control: %s=%q is not a file descriptor above 2", EnvFD, v)
	}
	f := os.NewFile(uintptr(fd), "segwi-control")
	defer f.Close() // the connection holds a close-on-exec duplicate
	conn, err := net.FileConn(f)
	if err != nil {
		return nil, fmt.Errorf("control: descriptor %d from %s: %w", fd, EnvFD, err)
	}
	if _, ok := conn.(*net.UnixConn); !ok {
		conn.Close()
		return nil, fmt.Errorf("control: descriptor %d from %s is not a unix socket", fd, EnvFD)
	}
	if typ, err := syscall.GetsockoptInt(fd, syscall.SOL_SOCKET, syscall.SO_TYPE); err != nil || typ != syscall.SOCK_STREAM {
		conn.Close()
		return nil, fmt.Errorf("control: descriptor %d from %s is not a stream socket", fd, EnvFD)
	}
	return conn, nil
}
