package ports

import (
	"errors"
	"os"
	"syscall"
)

// free reports whether nothing listens on port p, on any address: one socket listening on
// port p of every IPv6 address and, through IPv4-mapped addresses, of every IPv4 address
// (IPV6_V6ONLY off) conflicts with any listener on p, IPv4 or IPv6, wildcard or not; where
// the system has no IPv6, a socket on every IPv4 address does. It closes the socket at
// once. It makes its system calls itself, without handing the socket to Go's poller and
// back, and checks both families with one socket where it took two: a run's start checks
// ten ports, and their sockets were most of what taking them cost.
func free(p int) bool {
	err := listenOnce(syscall.AF_INET6, p)
	if errors.Is(err, syscall.EAFNOSUPPORT) {
		err = listenOnce(syscall.AF_INET, p)
	}
	return err == nil
}

// listenOnce listens on port p of every address of family (AF_INET, or AF_INET6 with
// IPv4 too) and closes the socket at once, as net.Listen("tcp", ":p") and Close would,
// with SO_REUSEADDR, so that a port some connection just let go of (TIME_WAIT) counts as
// free, as it does for a server that binds it.
func listenOnce(family, p int) error {
	fd, err := syscall.Socket(family, syscall.SOCK_STREAM|syscall.SOCK_NONBLOCK|syscall.SOCK_CLOEXEC, syscall.IPPROTO_TCP)
	if err != nil {
		return os.NewSyscallError("socket", err)
	}
	defer syscall.Close(fd)
	if err := syscall.SetsockoptInt(fd, syscall.SOL_SOCKET, syscall.SO_REUSEADDR, 1); err != nil {
		return os.NewSyscallError("setsockopt", err)
	}
	var sa syscall.Sockaddr = &syscall.SockaddrInet4{Port: p}
	if family == syscall.AF_INET6 {
		if err := syscall.SetsockoptInt(fd, syscall.IPPROTO_IPV6, syscall.IPV6_V6ONLY, 0); err != nil {
			return os.NewSyscallError("setsockopt", err)
		}
		sa = &syscall.SockaddrInet6{Port: p}
	}
	if err := syscall.Bind(fd, sa); err != nil {
		return os.NewSyscallError("bind", err)
	}
	return os.NewSyscallError("listen", syscall.Listen(fd, 1))
}
