package cli

import (
	"encoding/json"
	"net"
	"net/http"
	"net/netip"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"tailscale.com/ipn/ipnstate"
	"tailscale.com/tailcfg"

	"github.com/segwi/segwi/internal/testing/sockdir"
)

// With the page on and tailscaled answering, config check says where the page will be and
// for whom. (Check itself is tested against real tailscaled nodes in package remote; here a
// LocalAPI that answers a status stands in, for the command's words.)
func TestConfigCheckSaysWhereTheRemotePageWillBe(t *testing.T) {
	isolate(t)
	// The default segwi.claude.path, claude, is found in PATH: the stand-in's folder.
	t.Setenv("PATH", filepath.Dir(fakeClaude(t))+string(os.PathListSeparator)+os.Getenv("PATH"))
	sock := filepath.Join(sockdir.New(t), "tailscaled.sock")
	ln, err := net.Listen("unix", sock)
	if err != nil {
		t.Fatal(err)
	}
	ip := netip.MustParseAddr("100.101.102.103")
	srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/localapi/v0/status" {
			t.Errorf("config check asked tailscaled for %s", r.URL)
			http.NotFound(w, r)
			return
		}
		json.NewEncoder(w).Encode(ipnstate.Status{ //nolint:errcheck
			BackendState: "Running", TailscaleIPs: []netip.Addr{ip},
			Self: &ipnstate.PeerStatus{ID: "nDESK", HostName: "desk", DNSName: "desk.tail1234.ts.net.", UserID: 1, TailscaleIPs: []netip.Addr{ip}},
			User: map[tailcfg.UserID]tailcfg.UserProfile{1: {ID: 1, LoginName: "alice@example.com"}},
		})
	})}
	go srv.Serve(ln) //nolint:errcheck // closed below
	defer srv.Close()

	for _, tt := range []struct{ name, owners, want string }{
		{"for this node's owner by default", "",
			"the approval page will be at http://desk.tail1234.ts.net:7717/ for the other devices of alice@example.com (the owner of this machine's node); this machine's own node (desk) is refused"},
		{"for the owners named", "\n    owners: [bob@example.com]",
			"the approval page will be at http://desk.tail1234.ts.net:7717/ for the other devices of bob@example.com; this machine's own node (desk) is refused"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			path := writeConfig(t, "segwi:\n  remote:\n    enabled: true\n    socket: "+sock+tt.owners+"\n")
			r := segwi(t, "", "--config", path, "config", "check")
			if r.code != 0 || !strings.Contains(r.stdout, "remote: "+path+": "+tt.want) || !strings.Contains(r.stdout, path+": ok") {
				t.Errorf("exit %d, stdout:\n%s\nwant 0 with %q", r.code, r.stdout, tt.want)
			}
		})
	}
}
