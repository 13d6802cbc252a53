//go:build !linux

package ports

import (
	"errors"
	"net"
	"strconv"
	"syscall"
)

// free reports whether nothing listens on port p, on any address: binding it on every
// IPv4 address, then on every IPv6 address (where the system has IPv6), succeeds only then.
// Linux checks both with one socket (listen_linux.go).
func free(p int) bool {
	if listenOnce(syscall.AF_INET, p) != nil {
		return false
	}
	err := listenOnce(syscall.AF_INET6, p)
	return err == nil || !errors.Is(err, syscall.EADDRINUSE) && !errors.Is(err, syscall.EACCES)
}

// listenOnce listens on port p of every address of family (syscall.AF_INET, or AF_INET6
// for IPv6 only) and closes the socket at once.
func listenOnce(family, p int) error {
	network := "tcp4"
	if family == syscall.AF_INET6 {
		network = "tcp6"
	}
	l, err := net.Listen(network, ":"+strconv.Itoa(p))
	if err != nil {
		return err
	}
	return l.Close()
}
