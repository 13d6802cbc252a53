// Package tailnet builds a real tailnet on loopback for segwi's tests, with tailscale's own
// test kit (tailscale.com/tstest/integration): an in-process control server, DERP and STUN
// on 127.0.0.1, and real tailscaled nodes in userspace networking, each with its own state,
// LocalAPI socket and SOCKS5 proxy. Nothing leaves the machine.
//
// New gives four nodes: Machine (the machine segwi runs on), Phone (another device of the
// same login), Tagged (a server registered by that login with the ACL tag tag:ci, so owned
// by the tag, not the person) and Other (a node of another user). A test points segwi at
// the Machine's LocalAPI socket and browses as the others through their SOCKS5 proxies.
//
// The kit builds tailscaled and tailscale from the module (tailscale.com is pinned in
// go.mod, with both commands as tools) once per test binary: about 4 minutes cold on two
// cores, seconds warm. So the tests that need a tailnet run only in the project's test
// command (SEGWI_TEST_STRICT=1) or when SEGWI_TEST_TAILNET=1; plain `go test` skips them.
package tailnet

import (
	"errors"
	"fmt"
	"net/http"
	"net/netip"
	"net/url"
	"os"
	"strings"
	"testing"
	"time"

	"tailscale.com/ipn/ipnstate"
	"tailscale.com/tstest/integration"
	"tailscale.com/tstest/integration/testcontrol"

	"github.com/segwi/segwi/internal/testing/await"
)

// Env names the environment variable that runs the tailnet tests outside the test command.
const Env = "SEGWI_TEST_TAILNET"

// MagicDNSDomain is the tailnet's MagicDNS suffix: the Machine is machine.<this>.
const MagicDNSDomain = "segwi-test.ts.net"

// Net is a tailnet of four nodes.
type Net struct {
	Env                           *integration.TestEnv
	Machine, Phone, Tagged, Other *Node
}

// Node is one tailscaled of the tailnet, up and running.
type Node struct {
	*integration.TestNode
	Daemon  *integration.Daemon
	Name    string     // its host name: machine, phone, ci, other
	DNSName string     // its MagicDNS name, without the final dot
	IP      netip.Addr // its tailnet IPv4 address
	Login   string     // the login that owns it
	Socket  string     // its LocalAPI socket
	Socks   string     // its SOCKS5 proxy, host:port on loopback
}

// Need skips the test unless the tailnet tests are asked for (see the package doc).
func Need(t *testing.T) {
	t.Helper()
	if os.Getenv("SEGWI_TEST_STRICT") != "1" && os.Getenv(Env) != "1" {
		t.Skipf("the tailnet tests build tailscaled (about 4 minutes cold): run them with scripts/test.sh, or set %s=1", Env)
	}
}

// New starts the tailnet: Machine, Phone and Tagged registered by one user, Other by
// another. It returns once every node is running and sees the others; the test's cleanup
// stops them.
func New(t *testing.T) *Net {
	t.Helper()
	Need(t)
	env := integration.NewTestEnv(t, integration.ConfigureControl(func(c *testcontrol.Server) {
		c.AllNodesSameUser = true
		c.MagicDNSDomain = MagicDNSDomain
		c.TagOwners = map[string][]string{"tag:ci": nil} // tags requested at signup are granted
	}))
	n := &Net{Env: env}
	n.Machine = start(t, env, "machine")
	n.Phone = start(t, env, "phone")
	n.Tagged = start(t, env, "ci", "--advertise-tags=tag:ci")
	otherUser(env.Control)
	n.Other = start(t, env, "other")
	all := []*Node{n.Machine, n.Phone, n.Tagged, n.Other}
	for _, node := range all {
		describe(t, node)
	}
	if n.Machine.Login != n.Phone.Login || n.Other.Login == n.Machine.Login {
		t.Fatalf("logins: machine %s, phone %s, other %s; want the first two alike and the third not", n.Machine.Login, n.Phone.Login, n.Other.Login)
	}
	if st := n.Tagged.MustStatus(); st.Self.Tags == nil || st.Self.Tags.Len() == 0 {
		t.Fatal("the ci node has no tags")
	}
	for _, node := range all {
		awaitPeers(t, node, len(all)-1)
	}
	return n
}

// LoggedOut starts a node's tailscaled and leaves it logged out (NeedsLogin).
func (n *Net) LoggedOut(t *testing.T) *Node {
	t.Helper()
	tn := integration.NewTestNode(t, n.Env)
	node := &Node{TestNode: tn, Name: "logged-out", Daemon: tn.StartDaemon(), Socket: tn.LocalClient().Socket}
	tn.AwaitListening()
	tn.AwaitNeedsLogin()
	return node
}

// otherUser makes the control server put the nodes that register from now on under a
// user of their own each. The server reads the switch under its lock when a node
// registers; taking and releasing that lock around the write (NumNodes does) orders the
// write after the earlier registrations and before the later ones.
func otherUser(c *testcontrol.Server) {
	c.NumNodes()
	c.AllNodesSameUser = false
	c.NumNodes()
}

// start starts one node's tailscaled, brings it up as name (with the extra flags of
// `tailscale up`) and waits until it runs.
func start(t *testing.T, env *integration.TestEnv, name string, up ...string) *Node {
	t.Helper()
	tn := integration.NewTestNode(t, env)
	n := &Node{TestNode: tn, Name: name, Daemon: tn.StartDaemon(), Socket: tn.LocalClient().Socket}
	tn.AwaitListening()
	tn.MustUp(append([]string{"--hostname=" + name}, up...)...)
	tn.AwaitRunning()
	n.IP = tn.AwaitIP4()
	n.Socks = socksAddr(t, n.Daemon.Process.Pid)
	return n
}

// describe fills in what the node's own status says of it.
func describe(t *testing.T, n *Node) {
	t.Helper()
	st := n.MustStatus()
	n.DNSName = strings.TrimSuffix(st.Self.DNSName, ".")
	n.Login = st.User[st.Self.UserID].LoginName
	if n.DNSName == "" || n.Login == "" {
		t.Fatalf("node %s: status names no MagicDNS name (%q) or login (%q)", n.Name, n.DNSName, n.Login)
	}
}

// awaitPeers waits until n sees want peers online.
func awaitPeers(t *testing.T, n *Node, want int) {
	t.Helper()
	await.For(t, 30*time.Second, fmt.Sprintf("node %s to see %d peers", n.Name, want), func() error {
		st, err := n.Status()
		if err != nil {
			return err
		}
		return peersReady(st, want)
	})
}

func peersReady(st *ipnstate.Status, want int) error {
	if len(st.Peer) < want {
		return fmt.Errorf("it sees %d", len(st.Peer))
	}
	for _, p := range st.Peer {
		if len(p.TailscaleIPs) == 0 {
			return fmt.Errorf("peer %s has no address yet", p.HostName)
		}
	}
	return nil
}

// HTTPClient returns a client whose connections go through n's SOCKS5 proxy: requests
// that come from n, as its owner's browser on it would send them.
func (n *Node) HTTPClient() *http.Client {
	return &http.Client{
		Transport: &http.Transport{
			Proxy:             http.ProxyURL(&url.URL{Scheme: "socks5", Host: n.Socks}),
			DisableKeepAlives: true,
		},
		Timeout: 20 * time.Second,
		CheckRedirect: func(*http.Request, []*http.Request) error {
			return errors.New("the page never redirects")
		},
	}
}
