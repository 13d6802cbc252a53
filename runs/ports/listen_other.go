//go:build !linux

package ports

import (
	"net"
	"strconv"
	"syscall"
)

// listenOnce listens on port p of every address of family (syscall.AF_INET, or AF_INET6
// for IPv6 only) and closes the socket at once. Linux has a cheaper one (listen_linux.go).
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
