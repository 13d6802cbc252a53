package remote

import (
	"net/http"
	"net/netip"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"tailscale.com/client/tailscale/apitype"
	"tailscale.com/tailcfg"
)

func TestJudgeLetsOnlyTheOwnersOtherDevicesThrough(t *testing.T) {
	self := Node{ID: "nDESK", Name: "desk", Login: "alice@example.com"}
	tagged := Node{ID: "nCI", Name: "ci", Tags: []string{"tag:ci"}}
	whois := func(id, name, login string, tags ...string) *apitype.WhoIsResponse {
		return &apitype.WhoIsResponse{Node: &tailcfg.Node{StableID: tailcfg.StableNodeID(id), ComputedName: name, Tags: tags},
			UserProfile: &tailcfg.UserProfile{LoginName: login}}
	}
	for _, tt := range []struct {
		name    string
		who     *apitype.WhoIsResponse
		self    Node
		owners  []string
		want    string // the refusal's log line, "" when let through
		wantMsg string // in the refusal's text
	}{
		{name: "the owner's phone is let through", who: whois("nPHONE", "phone", "alice@example.com"), self: self},
		{name: "a login compares without regard to case", who: whois("nPHONE", "phone", "Alice@Example.com"), self: self},
		{name: "this machine's own node is refused: the run's own browser",
			who: whois("nDESK", "desk", "alice@example.com"), self: self,
			want: "refused node desk (alice@example.com): it is this machine's own node", wantMsg: "Answers come only from your other devices"},
		{name: "another user's node is refused", who: whois("nBOB", "laptop", "bob@example.com"), self: self,
			want: "refused node laptop (bob@example.com): not an owner", wantMsg: "only its owner's devices may"},
		{name: "a tagged node is refused, whoever registered it", who: whois("nCI", "ci", "alice@example.com", "tag:ci"), self: self,
			want: "refused node ci (tags tag:ci): a tagged node has no owner"},
		{name: "a node WhoIs names without a node is refused", who: &apitype.WhoIsResponse{}, self: self,
			want: "did not come through the tailnet"},
		{name: "a user without a login is refused", who: &apitype.WhoIsResponse{Node: &tailcfg.Node{StableID: "nX", ComputedName: "x"}}, self: self,
			want: "refused node x (): not an owner"},
		{name: "owners name who may answer", who: whois("nBOB", "laptop", "bob@example.com"), self: self, owners: []string{"bob@example.com"}},
		{name: "owners replace this node's owner", who: whois("nPHONE", "phone", "alice@example.com"), self: self, owners: []string{"bob@example.com"},
			want: "refused node phone (alice@example.com): not an owner"},
		{name: "a tagged machine without owners lets nobody through", who: whois("nPHONE", "phone", "alice@example.com"), self: tagged,
			want: "not an owner"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			d, no := judge(tt.who, tt.self, tt.owners)
			switch {
			case tt.want == "" && no != nil:
				t.Fatalf("refused: %s", no.log)
			case tt.want == "":
				if d.ID != tt.who.Node.StableID || d.who() != tt.who.Node.ComputedName+" ("+tt.who.UserProfile.LoginName+")" {
					t.Errorf("device %+v, want %s as %s", d, tt.who.Node.StableID, d.who())
				}
			case no == nil:
				t.Fatalf("let %+v through, want it refused", d)
			default:
				if no.code != http.StatusForbidden || !strings.Contains(no.log, tt.want) || !strings.Contains(no.text, tt.wantMsg) {
					t.Errorf("refusal %d %q (log %q), want 403 with %q (log %q)", no.code, no.text, no.log, tt.wantMsg, tt.want)
				}
			}
		})
	}
}

func TestEndpointsListenOnTheTailnetOnlyAndAnswerToItsNames(t *testing.T) {
	n := Node{DNSName: "desk.tail1234.ts.net", Addrs: []netip.Addr{netip.MustParseAddr("100.101.102.103"), netip.MustParseAddr("fd7a:115c:a1e0::1")}}
	hosts := []string{"desk.tail1234.ts.net:7717", "desk:7717", "100.101.102.103:7717", "[fd7a:115c:a1e0::1]:7717"}

	t.Run("with a TUN device, on the node's tailnet addresses", func(t *testing.T) {
		n := n
		n.TUN = true
		e := endpointsOf(n, 7717)
		want := []netip.AddrPort{netip.MustParseAddrPort("100.101.102.103:7717"), netip.MustParseAddrPort("[fd7a:115c:a1e0::1]:7717")}
		if diff := cmp.Diff(want, e.listen, cmp.Comparer(func(a, b netip.AddrPort) bool { return a == b })); diff != "" {
			t.Errorf("listen (-want +got):\n%s", diff)
		}
		if diff := cmp.Diff(hosts, e.hosts); diff != "" {
			t.Errorf("hosts (-want +got):\n%s", diff)
		}
	})
	t.Run("in userspace networking, on loopback, where tailscaled hands connections over", func(t *testing.T) {
		e := endpointsOf(n, 7717)
		if len(e.listen) != 1 || e.listen[0] != netip.MustParseAddrPort("127.0.0.1:7717") {
			t.Errorf("listen %v, want 127.0.0.1:7717 only", e.listen)
		}
		for _, h := range []string{"127.0.0.1:7717", "localhost:7717"} {
			if e.allows(h) {
				t.Errorf("allows Host %s: loopback names are not this machine's tailnet names", h)
			}
		}
	})
	t.Run("the Host must name this machine with the port", func(t *testing.T) {
		e := endpointsOf(n, 7717)
		for _, h := range append(hosts, "DESK.tail1234.ts.net:7717") {
			if !e.allows(h) {
				t.Errorf("refuses Host %s", h)
			}
		}
		for _, h := range []string{"desk.tail1234.ts.net", "desk.tail1234.ts.net:80", "evil.example:7717", "100.101.102.103", "100.101.102.104:7717", ""} {
			if e.allows(h) {
				t.Errorf("allows Host %q", h)
			}
		}
	})
	t.Run("on port 80 a browser leaves the port out", func(t *testing.T) {
		e := endpointsOf(n, 80)
		for _, h := range []string{"desk.tail1234.ts.net", "desk.tail1234.ts.net:80", "100.101.102.103"} {
			if !e.allows(h) {
				t.Errorf("refuses Host %s", h)
			}
		}
	})
}
