//go:build !unix

package control

import (
	"errors"
	"net"
	"os"
	"os/exec"
)

// EnvFD is the environment variable that would name the child's end of the channel.
const EnvFD = "SEGWI_CONTROL_FD"

// errNoPair: the split of tray and windows needs Unix socket pairs; Windows is not a
// target yet, but the package builds there.
var errNoPair = errors.New("control: the tray's private channel needs a Unix socket pair, which this system lacks")

// ErrNotAChild is the error of Inherited in a process that was not started by StartChild.
var ErrNotAChild = errors.New("control: no channel was passed to this process (" + EnvFD + " is not set)")

// Pair is not available on this system.
func Pair() (net.Conn, *os.File, error) { return nil, nil, errNoPair }

// StartChild is not available on this system.
func StartChild(cmd *exec.Cmd) (net.Conn, error) { return nil, errNoPair }

// Inherited is not available on this system.
func Inherited() (net.Conn, error) { return nil, errNoPair }
