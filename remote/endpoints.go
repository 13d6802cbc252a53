package remote

import (
	"net"
	"net/netip"
	"slices"
	"strconv"
	"strings"
)

// endpoints are where the page listens and the Host values it answers to, for one state of
// this machine's node.
type endpoints struct {
	listen []netip.AddrPort // the sockets to listen on
	hosts  []string         // Host header values, lowercased: names and addresses with the port
}

// loopback is where tailscaled's userspace networking delivers the tailnet's connections to
// this machine's addresses: it dials 127.0.0.1 on the same port.
var loopback = netip.MustParseAddr("127.0.0.1")

// endpointsOf works out the endpoints of node n on port. With a TUN device the page
// listens on n's tailnet addresses themselves; in userspace networking those addresses
// exist only inside tailscaled, which hands each connection to 127.0.0.1 on the same port,
// so the page listens there (a connection that did not come through tailscaled gets no
// WhoIs answer and is refused). Never on every address (0.0.0.0).
func endpointsOf(n Node, port int) endpoints {
	var e endpoints
	p := uint16(port)
	if n.TUN {
		for _, a := range n.Addrs {
			e.listen = append(e.listen, netip.AddrPortFrom(a, p))
		}
	} else {
		e.listen = []netip.AddrPort{netip.AddrPortFrom(loopback, p)}
	}
	add := func(host string) {
		host = strings.ToLower(host)
		e.hosts = append(e.hosts, net.JoinHostPort(host, strconv.Itoa(port)))
		if port == 80 {
			e.hosts = append(e.hosts, host) // a browser leaves out the default port
		}
	}
	if n.DNSName != "" {
		add(n.DNSName)
		if short, _, _ := strings.Cut(n.DNSName, "."); short != n.DNSName {
			add(short) // MagicDNS's search domain lets the first label alone name the node
		}
	}
	for _, a := range n.Addrs {
		add(a.String())
	}
	return e
}

// allows reports whether host, a request's Host header, names this machine on the page's
// port.
func (e endpoints) allows(host string) bool {
	return slices.Contains(e.hosts, strings.ToLower(host))
}
