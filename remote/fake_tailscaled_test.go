package remote

import (
	"context"
	"errors"
	"net"
	"net/netip"
	"sync"
	"testing"

	"tailscale.com/client/local"
	"tailscale.com/client/tailscale/apitype"
	"tailscale.com/ipn"
	"tailscale.com/ipn/ipnstate"
	"tailscale.com/tailcfg"
)

// fakeTailscaled answers as tailscaled would for the unit tests, on loopback: its
// machine's "tailnet addresses" are loopback addresses (Linux routes all of 127/8 to lo),
// and WhoIs names the device by the remote address's IP, as a connection's source address
// tells tailscaled which peer sent it. The tests that need the real thing run on a real
// tailnet (tailnet_test.go).
type fakeTailscaled struct {
	t *testing.T

	mu      sync.Mutex
	status  *ipnstate.Status
	err     error                        // of every call, when set
	devices map[netip.Addr]*tailcfg.Node // WhoIs by remote IP
	users   map[tailcfg.UserID]string    // logins
	watches []chan ipn.Notify            // open watches
}

const testLogin = "alice@example.com"

// newFakeTailscaled describes a machine "desk" of alice's, running with a TUN device at
// the given addresses.
func newFakeTailscaled(t *testing.T, addrs ...string) *fakeTailscaled {
	f := &fakeTailscaled{t: t, devices: map[netip.Addr]*tailcfg.Node{}, users: map[tailcfg.UserID]string{1: testLogin, 2: "bob@example.com"}}
	var ips []netip.Addr
	for _, a := range addrs {
		ips = append(ips, netip.MustParseAddr(a))
	}
	f.status = &ipnstate.Status{
		BackendState: ipn.Running.String(),
		TUN:          true,
		TailscaleIPs: ips,
		Self:         &ipnstate.PeerStatus{ID: "nDESK", HostName: "desk", DNSName: "desk.tail1234.ts.net.", UserID: 1, TailscaleIPs: ips},
		User:         map[tailcfg.UserID]tailcfg.UserProfile{1: {ID: 1, LoginName: testLogin}},
	}
	for _, ip := range ips {
		f.devices[ip] = &tailcfg.Node{StableID: "nDESK", ComputedName: "desk", User: 1}
	}
	return f
}

// device makes WhoIs name connections from ip as a node of user.
func (f *fakeTailscaled) device(ip, name string, user tailcfg.UserID, tags ...string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.devices[netip.MustParseAddr(ip)] = &tailcfg.Node{StableID: tailcfg.StableNodeID("n" + name), ComputedName: name, User: user, Tags: tags}
}

func (f *fakeTailscaled) StatusWithoutPeers(ctx context.Context) (*ipnstate.Status, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.err != nil {
		return nil, f.err
	}
	st := *f.status
	self := *st.Self
	st.Self = &self
	return &st, nil
}

func (f *fakeTailscaled) WhoIs(ctx context.Context, addr string) (*apitype.WhoIsResponse, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.err != nil {
		return nil, f.err
	}
	ap, err := netip.ParseAddrPort(addr)
	if err != nil {
		f.t.Errorf("WhoIs(%q): not an address and port", addr)
		return nil, err
	}
	n := f.devices[ap.Addr()]
	if n == nil {
		return nil, local.ErrPeerNotFound
	}
	return &apitype.WhoIsResponse{Node: n, UserProfile: &tailcfg.UserProfile{ID: n.User, LoginName: f.users[n.User]}}, nil
}

func (f *fakeTailscaled) Watch(ctx context.Context) (notifications, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.err != nil {
		return nil, f.err
	}
	ch := make(chan ipn.Notify, 16)
	state := ipn.Running
	ch <- ipn.Notify{State: &state}
	f.watches = append(f.watches, ch)
	return &fakeWatch{ctx: ctx, ch: ch}, nil
}

// change applies edit to the status and tells the watchers that this node changed.
func (f *fakeTailscaled) change(edit func(st *ipnstate.Status)) {
	f.mu.Lock()
	edit(f.status)
	watches := f.watches
	f.mu.Unlock()
	for _, ch := range watches {
		ch <- ipn.Notify{SelfChange: &tailcfg.Node{StableID: "nDESK"}}
	}
}

// fail makes every call fail with err (nil: answer again), and ends the open watches.
func (f *fakeTailscaled) fail(err error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.err = err
	if err != nil {
		for _, ch := range f.watches {
			close(ch)
		}
		f.watches = nil
	}
}

type fakeWatch struct {
	ctx context.Context
	ch  chan ipn.Notify
}

func (w *fakeWatch) Next() (ipn.Notify, error) {
	select {
	case n, ok := <-w.ch:
		if !ok {
			return ipn.Notify{}, errors.New("watch-ipn-bus: EOF")
		}
		return n, nil
	case <-w.ctx.Done():
		return ipn.Notify{}, w.ctx.Err()
	}
}

func (w *fakeWatch) Close() error { return nil }

// dialFrom dials addr from the loopback address from, which tells the fake who is calling.
func dialFrom(from string) func(ctx context.Context, network, addr string) (net.Conn, error) {
	d := net.Dialer{LocalAddr: &net.TCPAddr{IP: net.ParseIP(from)}}
	return d.DialContext
}
