package remote

import (
	"context"
	"errors"
	"fmt"
	"net/netip"
	"slices"
	"strings"
	"syscall"

	"tailscale.com/client/local"
	"tailscale.com/client/tailscale/apitype"
	"tailscale.com/ipn"
	"tailscale.com/ipn/ipnstate"
	"tailscale.com/paths"
	"tailscale.com/tailcfg"
)

// tailscaled is what segwi asks of the tailscaled on this machine, through its LocalAPI:
// a *local.Client in production (see newLocalAPI).
type tailscaled interface {
	// StatusWithoutPeers describes this machine's node.
	StatusWithoutPeers(ctx context.Context) (*ipnstate.Status, error)
	// WhoIs names the node and user behind a connection's remote address;
	// local.ErrPeerNotFound when the address is not a tailnet connection's.
	WhoIs(ctx context.Context, addr string) (*apitype.WhoIsResponse, error)
	// Watch returns tailscaled's notifications, from its state at the call on.
	Watch(ctx context.Context) (notifications, error)
}

// notifications is a stream of tailscaled's notifications (a *local.IPNBusWatcher).
type notifications interface {
	// Next returns the next notification; it waits for one, and returns an error when
	// the stream ends.
	Next() (ipn.Notify, error)
	Close() error
}

// localAPI is tailscaled's LocalAPI client.
type localAPI struct{ *local.Client }

// newLocalAPI returns a client of the tailscaled listening on socket, or on the
// platform's default socket when socket is empty.
func newLocalAPI(socket string) localAPI {
	return localAPI{&local.Client{Socket: socket, UseSocketOnly: socket != ""}}
}

// Watch watches the IPN bus for what changes this machine's node: its state and itself.
func (c localAPI) Watch(ctx context.Context) (notifications, error) {
	return c.WatchIPNBus(ctx, ipn.NotifyInitialState|ipn.NotifyNoNetMap)
}

// socketPath is the socket segwi reaches tailscaled on, for messages.
func socketPath(socket string) string {
	if socket != "" {
		return socket
	}
	return paths.DefaultTailscaledSocket()
}

// Node is this machine's node, as tailscaled reports it.
type Node struct {
	ID      tailcfg.StableNodeID
	Name    string       // the node's name: its MagicDNS name's first label, else its host name
	DNSName string       // its MagicDNS name, without the final dot; empty without MagicDNS
	Login   string       // the login that owns it; empty for a tagged node
	Tags    []string     // its ACL tags
	Addrs   []netip.Addr // its tailnet addresses
	TUN     bool         // tailscaled routes through a TUN device; false: userspace networking
}

// TailscaleError says what is wrong with tailscaled, for a person: what happened and what
// to do. segwi config check prints it, and the page is not served while it lasts.
type TailscaleError struct {
	What string // what is wrong, naming the socket or state
	Fix  string // what to do about it
	Err  error  // the LocalAPI's error, when there was one
}

func (e *TailscaleError) Error() string { return "tailscale: " + e.What + ": " + e.Fix }

func (e *TailscaleError) Unwrap() error { return e.Err }

// operatorFix is what to do when the LocalAPI refuses segwi.
const operatorFix = "on Linux a user who is not root must be tailscaled's operator: run `sudo tailscale set --operator=$USER`, then try again"

// explain turns an error of the LocalAPI on socket into a TailscaleError.
func explain(socket string, err error) error {
	var te *TailscaleError
	if errors.As(err, &te) || errors.Is(err, context.Canceled) {
		return err
	}
	switch {
	case errors.Is(err, syscall.ENOENT):
		return &TailscaleError{Err: err,
			What: fmt.Sprintf("tailscaled is not running: there is no socket at %s", socket),
			Fix:  "install Tailscale and start tailscaled, or set segwi.remote.socket to the socket it listens on"}
	case errors.Is(err, syscall.ECONNREFUSED):
		return &TailscaleError{Err: err,
			What: fmt.Sprintf("tailscaled is not running: nothing answers on %s", socket),
			Fix:  "start tailscaled (e.g. `sudo systemctl start tailscaled`)"}
	case errors.Is(err, syscall.EACCES), errors.Is(err, syscall.EPERM):
		return &TailscaleError{Err: err,
			What: fmt.Sprintf("segwi may not open tailscaled's socket %s (permission denied)", socket),
			Fix:  operatorFix}
	case local.IsAccessDeniedError(err):
		return &TailscaleError{Err: err,
			What: fmt.Sprintf("tailscaled refused segwi's request on %s (access denied)", socket),
			Fix:  operatorFix}
	}
	return &TailscaleError{Err: err,
		What: fmt.Sprintf("cannot ask tailscaled on %s: %v", socket, err),
		Fix:  "check that tailscaled runs (`tailscale status`)"}
}

// nodeOf reads this machine's node from a status, or says why the page cannot be served.
func nodeOf(st *ipnstate.Status) (Node, error) {
	switch st.BackendState {
	case ipn.Running.String():
	case ipn.NeedsLogin.String():
		return Node{}, &TailscaleError{What: "this machine is not logged in to a tailnet (tailscaled's state is NeedsLogin)",
			Fix: "run `tailscale up` and log in"}
	case ipn.NeedsMachineAuth.String():
		return Node{}, &TailscaleError{What: "this machine waits for an admin of the tailnet to approve it (NeedsMachineAuth)",
			Fix: "approve it in the tailnet's admin console"}
	case ipn.Stopped.String():
		return Node{}, &TailscaleError{What: "Tailscale is stopped on this machine",
			Fix: "run `tailscale up`"}
	default:
		return Node{}, &TailscaleError{What: fmt.Sprintf("tailscaled is not running yet (its state is %s)", st.BackendState),
			Fix: "wait for it, or run `tailscale up`"}
	}
	self := st.Self
	if self == nil || len(self.TailscaleIPs) == 0 {
		return Node{}, &TailscaleError{What: "this machine's node has no tailnet address yet",
			Fix: "wait for tailscaled to connect (`tailscale status`)"}
	}
	n := Node{
		ID:      self.ID,
		DNSName: strings.TrimSuffix(self.DNSName, "."),
		Addrs:   slices.Clone(self.TailscaleIPs),
		TUN:     st.TUN,
	}
	n.Name, _, _ = strings.Cut(n.DNSName, ".")
	if n.Name == "" {
		n.Name = self.HostName
	}
	if self.Tags != nil {
		n.Tags = self.Tags.AsSlice()
	}
	if len(n.Tags) == 0 {
		n.Login = st.User[self.UserID].LoginName
	}
	return n, nil
}

// Check asks the tailscaled on socket (empty: the platform's default) about this machine's
// node, as the page would, and returns it; or a *TailscaleError saying what is wrong:
// tailscaled missing, refusing segwi, not logged in, or a node that nobody could answer
// from with these owners (a tagged node has no owner of its own). It returns when
// tailscaled answered or ctx is done.
func Check(ctx context.Context, socket string, owners []string) (Node, error) {
	return check(ctx, newLocalAPI(socket), socketPath(socket), owners)
}

func check(ctx context.Context, ts tailscaled, socket string, owners []string) (Node, error) {
	st, err := ts.StatusWithoutPeers(ctx)
	if err != nil {
		return Node{}, explain(socket, err)
	}
	n, err := nodeOf(st)
	if err != nil {
		return Node{}, err
	}
	if len(owners) == 0 && n.Login == "" {
		return n, &TailscaleError{
			What: fmt.Sprintf("this machine's node is tagged (%s), so it has no owner to answer from their devices", strings.Join(n.Tags, ", ")),
			Fix:  "set segwi.remote.owners to the tailnet logins allowed to answer"}
	}
	return n, nil
}
