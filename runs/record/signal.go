package record

import (
	"fmt"
	"syscall"

	"golang.org/x/sys/unix"
)

// SignalWords names sig as a person reads it: "SIGKILL (killed)".
func SignalWords(sig syscall.Signal) string {
	name := unix.SignalName(sig)
	if name == "" {
		return fmt.Sprintf("signal %d (%s)", int(sig), sig)
	}
	return fmt.Sprintf("%s (%s)", name, sig)
}
