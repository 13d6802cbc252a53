package ports

import (
	"os"
	"syscall"
)

// listenOnce listens on port p of every address of family (AF_INET, or AF_INET6 for IPv6
// only) and closes the socket at once, as net.Listen("tcp4" or "tcp6", ":p") and Close
// would, with the same options (SO_REUSEADDR; IPV6_V6ONLY), but without handing the socket
// to Go's poller and back: a run's start checks twenty ports, and that was most of it.
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
		if err := syscall.SetsockoptInt(fd, syscall.IPPROTO_IPV6, syscall.IPV6_V6ONLY, 1); err != nil {
			return os.NewSyscallError("setsockopt", err)
		}
		sa = &syscall.SockaddrInet6{Port: p}
	}
	if err := syscall.Bind(fd, sa); err != nil {
		return os.NewSyscallError("bind", err)
	}
	return os.NewSyscallError("listen", syscall.Listen(fd, 1))
}
