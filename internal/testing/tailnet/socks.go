package tailnet

import (
	"bufio"
	"bytes"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"net"
	"net/netip"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/segwi/segwi/internal/testing/await"
)

// socksAddr finds the SOCKS5 proxy of the tailscaled with process id pid. The kit starts
// it with --socks5-server=localhost:0 and learns the port from the daemon's log, through a
// channel that only its own package can make (TestNode.AwaitSocksAddr takes it), so the
// port is read here from what the process listens on instead: of its listening loopback
// sockets (the proxy, and the kit's --debug server), the one that answers a SOCKS5
// greeting.
func socksAddr(t *testing.T, pid int) string {
	t.Helper()
	var found string
	await.For(t, 20*time.Second, fmt.Sprintf("tailscaled (pid %d) to listen for SOCKS5", pid), func() error {
		ports, err := listeningLoopback(pid)
		if err != nil {
			return err
		}
		for _, ap := range ports {
			if speaksSOCKS5(ap.String()) {
				found = ap.String()
				return nil
			}
		}
		return fmt.Errorf("none of its loopback listeners %v answers SOCKS5", ports)
	})
	return found
}

// listeningLoopback returns the loopback TCP sockets that process pid listens on, from
// /proc: its sockets' inodes, matched against the kernel's TCP tables.
func listeningLoopback(pid int) ([]netip.AddrPort, error) {
	fds, err := os.ReadDir(fmt.Sprintf("/proc/%d/fd", pid))
	if err != nil {
		return nil, err
	}
	inodes := map[string]bool{}
	for _, fd := range fds {
		link, err := os.Readlink(filepath.Join(fmt.Sprintf("/proc/%d/fd", pid), fd.Name()))
		if err == nil && strings.HasPrefix(link, "socket:[") {
			inodes[strings.TrimSuffix(strings.TrimPrefix(link, "socket:["), "]")] = true
		}
	}
	var out []netip.AddrPort
	for _, table := range []string{"tcp", "tcp6"} {
		data, err := os.ReadFile(fmt.Sprintf("/proc/%d/net/%s", pid, table))
		if err != nil {
			return nil, err
		}
		sc := bufio.NewScanner(bytes.NewReader(data))
		sc.Scan() // the header
		for sc.Scan() {
			// sl local_address rem_address st tx_queue:rx_queue tr:tm->when retrnsmt uid timeout inode
			f := strings.Fields(sc.Text())
			if len(f) < 10 || f[3] != "0A" || !inodes[f[9]] { // 0A: LISTEN
				continue
			}
			ap, err := parseProcAddr(f[1])
			if err == nil && ap.Addr().IsLoopback() {
				out = append(out, ap)
			}
		}
	}
	return out, nil
}

// parseProcAddr reads an address of /proc/net/tcp{,6}: hex words in host order (little
// endian here), then the port in hex.
func parseProcAddr(s string) (netip.AddrPort, error) {
	host, port, ok := strings.Cut(s, ":")
	if !ok {
		return netip.AddrPort{}, errors.New("no port")
	}
	raw, err := hex.DecodeString(host)
	if err != nil || (len(raw) != 4 && len(raw) != 16) {
		return netip.AddrPort{}, fmt.Errorf("bad address %q", host)
	}
	for i := 0; i < len(raw); i += 4 { // each 32-bit word is little endian
		raw[i], raw[i+1], raw[i+2], raw[i+3] = raw[i+3], raw[i+2], raw[i+1], raw[i]
	}
	addr, _ := netip.AddrFromSlice(raw)
	p, err := strconv.ParseUint(port, 16, 16)
	if err != nil {
		return netip.AddrPort{}, err
	}
	return netip.AddrPortFrom(addr.Unmap(), uint16(p)), nil
}

// speaksSOCKS5 reports whether addr answers a SOCKS5 greeting offering no authentication
// with "version 5, no authentication".
func speaksSOCKS5(addr string) bool {
	c, err := net.DialTimeout("tcp", addr, time.Second)
	if err != nil {
		return false
	}
	defer c.Close()
	c.SetDeadline(time.Now().Add(2 * time.Second))
	if _, err := c.Write([]byte{5, 1, 0}); err != nil {
		return false
	}
	var reply [2]byte
	_, err = io.ReadFull(c, reply[:])
	return err == nil && reply == [2]byte{5, 0}
}
