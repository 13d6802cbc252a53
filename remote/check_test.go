package remote

import (
	"context"
	"errors"
	"net"
	"net/http"
	"path/filepath"
	"strings"
	"testing"

	"tailscale.com/ipn"
	"tailscale.com/types/views"

	"github.com/segwi/segwi/internal/testing/sockdir"
)

// Check talks to tailscaled with tailscale's own LocalAPI client; these are the answers
// a person meets when tailscaled is not there or will not serve segwi. (A real node that
// is not logged in is in the tailnet test.)
func TestCheckSaysWhatIsWrongWithTailscaled(t *testing.T) {
	dir := sockdir.New(t)
	ctx := context.Background()

	t.Run("no socket: tailscaled is not running", func(t *testing.T) {
		sock := filepath.Join(dir, "missing.sock")
		_, err := Check(ctx, sock, nil)
		wantTailscaleError(t, err, "tailscaled is not running: there is no socket at "+sock, "install Tailscale")
	})
	t.Run("a socket nobody listens on: tailscaled is not running", func(t *testing.T) {
		sock := filepath.Join(dir, "stale.sock")
		ln, err := net.ListenUnix("unix", &net.UnixAddr{Name: sock, Net: "unix"})
		if err != nil {
			t.Fatal(err)
		}
		ln.SetUnlinkOnClose(false)
		ln.Close()
		_, err = Check(ctx, sock, nil)
		wantTailscaleError(t, err, "tailscaled is not running: nothing answers on "+sock, "systemctl start tailscaled")
	})
	t.Run("a LocalAPI that refuses segwi: the operator", func(t *testing.T) {
		// tailscaled answers 403 to a caller it does not let in.
		sock := filepath.Join(dir, "refusing.sock")
		ln, err := net.Listen("unix", sock)
		if err != nil {
			t.Fatal(err)
		}
		srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if !strings.HasPrefix(r.URL.Path, "/localapi/v0/status") {
				t.Errorf("segwi asked tailscaled for %s", r.URL)
			}
			http.Error(w, `{"error":"access denied"}`, http.StatusForbidden)
		})}
		go srv.Serve(ln) //nolint:errcheck // closed below
		defer srv.Close()
		_, err = Check(ctx, sock, nil)
		wantTailscaleError(t, err, "tailscaled refused segwi's request on "+sock+" (access denied)", "tailscale set --operator=$USER")
	})
	for _, tt := range []struct {
		name, state, what, fix string
	}{
		{"not logged in", ipn.NeedsLogin.String(), "not logged in to a tailnet", "tailscale up"},
		{"stopped", ipn.Stopped.String(), "Tailscale is stopped", "tailscale up"},
		{"waiting for an admin", ipn.NeedsMachineAuth.String(), "approve it", "admin console"},
		{"starting", ipn.Starting.String(), "its state is Starting", "wait"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			f := newFakeTailscaled(t, "127.0.0.10")
			f.status.BackendState = tt.state
			_, err := check(ctx, f, "/run/tailscale.sock", nil)
			wantTailscaleError(t, err, tt.what, tt.fix)
		})
	}
	t.Run("a tagged machine without owners: nobody could answer", func(t *testing.T) {
		f := newFakeTailscaled(t, "127.0.0.10")
		tags := views.SliceOf([]string{"tag:server"})
		f.status.Self.Tags = &tags
		_, err := check(ctx, f, "/run/tailscale.sock", nil)
		wantTailscaleError(t, err, "tagged (tag:server)", "set segwi.remote.owners")
		if n, err := check(ctx, f, "/run/tailscale.sock", []string{testLogin}); err != nil || n.Login != "" {
			t.Errorf("with owners: node %+v, %v; want no error and no owner", n, err)
		}
	})
	t.Run("a running node is described", func(t *testing.T) {
		f := newFakeTailscaled(t, "127.0.0.10")
		n, err := check(ctx, f, "/run/tailscale.sock", nil)
		if err != nil || n.Name != "desk" || n.DNSName != "desk.tail1234.ts.net" || n.Login != testLogin || !n.TUN || len(n.Addrs) != 1 {
			t.Errorf("node %+v, %v", n, err)
		}
	})
}

func wantTailscaleError(t *testing.T, err error, what, fix string) {
	t.Helper()
	var te *TailscaleError
	if !errors.As(err, &te) {
		t.Fatalf("got %v, want a *TailscaleError", err)
	}
	if !strings.Contains(te.What, what) || !strings.Contains(te.Fix, fix) {
		t.Errorf("got %q, want what %q and fix %q", err, what, fix)
	}
}
