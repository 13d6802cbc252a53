package remote

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/netip"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"tailscale.com/ipn/ipnstate"
	"tailscale.com/tailcfg"

	"github.com/segwi/segwi/approvals"
	"github.com/segwi/segwi/internal/testing/await"
	"github.com/segwi/segwi/internal/testing/tailnet"
)

// The unit tests serve the page on loopback with a fake tailscaled: the machine "desk"
// is at 127.0.0.10 (a TUN device), alice's phone at 127.0.0.20, her laptop at 127.0.0.21,
// bob's laptop at 127.0.0.30.
const (
	deskIP   = "127.0.0.10"
	phoneIP  = "127.0.0.20"
	laptopIP = "127.0.0.21"
	bobIP    = "127.0.0.30"
)

// testServer is a page served for the fake tailscaled f.
type testServer struct {
	*Server
	f    *fakeTailscaled
	hub  *hub
	port int
	logs *logLines
}

func serveFake(t *testing.T, lim limits) *testServer {
	t.Helper()
	f := newFakeTailscaled(t, deskIP)
	f.device(phoneIP, "phone", 1)
	f.device(laptopIP, "laptop", 1)
	f.device(bobIP, "bobs-laptop", 2)
	s := &testServer{f: f, hub: newHub(t), port: tailnet.FreePort(t), logs: &logLines{t: t}}
	srv, err := newServer(Config{Port: s.port, Hub: s.hub.srv, Logf: s.logs.add}, f, lim)
	if err != nil {
		t.Fatal(err)
	}
	s.Server = srv
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- srv.Run(ctx) }()
	t.Cleanup(func() { cancel(); <-done })
	s.awaitListening(t, deskIP)
	return s
}

// awaitListening waits until the page listens on ip alone.
func (s *testServer) awaitListening(t *testing.T, ip string) {
	t.Helper()
	want := []netip.AddrPort{netip.AddrPortFrom(netip.MustParseAddr(ip), uint16(s.port))}
	await.For(t, 10*time.Second, "the page to listen on "+ip, func() error {
		st := s.State()
		if st.Err != nil {
			return st.Err
		}
		if !slices.Equal(st.Listening, want) {
			return fmt.Errorf("it listens on %v", st.Listening)
		}
		return nil
	})
}

// client returns an HTTP client whose connections come from the loopback address from.
func client(from string) *http.Client {
	return &http.Client{Timeout: 10 * time.Second, Transport: &http.Transport{DialContext: dialFrom(from), DisableKeepAlives: true}}
}

// raw opens a TCP connection from one address to the page.
func (s *testServer) raw(t *testing.T, from, to string) net.Conn {
	t.Helper()
	c, err := dialFrom(from)(context.Background(), "tcp", net.JoinHostPort(to, strconv.Itoa(s.port)))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

func (s *testServer) url(ip string) string {
	return "http://" + net.JoinHostPort(ip, strconv.Itoa(s.port))
}

// streams returns how many event streams the named device has open.
func (s *testServer) streams(device string) int {
	s.mu.Lock()
	ds := s.devices
	s.mu.Unlock()
	ds.mu.Lock()
	c := ds.byID[tailcfg.StableNodeID("n"+device)]
	ds.mu.Unlock()
	if c == nil {
		return 0
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.streams)
}

func TestAStalledReaderIsCutOff(t *testing.T) {
	lim := defaultLimits
	lim.streamWrite = 300 * time.Millisecond
	s := serveFake(t, lim)
	run := testRun("r1")
	s.hub.addRun(run)

	c := s.raw(t, phoneIP, deskIP)
	fmt.Fprintf(c, "GET /events HTTP/1.1\r\nHost: %s:%d\r\n\r\n", deskIP, s.port)
	await.For(t, 5*time.Second, "the phone's stream to open", func() bool { return s.streams("phone") == 1 })

	// It reads nothing more, while the runs ask for 100 large approvals (6 MiB shown,
	// more than loopback's buffers hold, fewer than a stream's backlog): its writes stall,
	// and the stream is cut once one write has waited the limit.
	big := strings.Repeat("x", approvals.MaxShown)
	began := time.Now()
	for range 100 {
		s.hub.ask(run, "Bash", map[string]string{"command": big}, time.Minute)
	}
	await.For(t, 5*time.Second, "the stalled stream to be cut off", func() bool { return s.streams("phone") == 0 })
	t.Logf("cut off %s after the approvals began", time.Since(began).Round(time.Millisecond))
	c.SetReadDeadline(time.Now().Add(5 * time.Second))
	n, err := io.Copy(io.Discard, c)
	if err != nil {
		t.Errorf("reading what was sent before the cut: %v, want the end of the connection", err)
	}
	if n >= 100*int64(approvals.MaxShown) {
		t.Errorf("the stalled reader got all %d bytes: it was not cut off", n)
	}
}

func TestStrangersCannotCrowdOutTheOwnersStream(t *testing.T) {
	lim := defaultLimits
	lim.fresh, lim.conns = 4, 8
	s := serveFake(t, lim)
	run := testRun("r1")
	s.hub.addRun(run)

	phone := tailnet.Visit(t, client(phoneIP), s.url(deskIP))
	events := phone.Events(t)
	// Bob's laptop opens connections and sends nothing: it can only take the place of
	// connections like its own.
	var idle []net.Conn
	for range 20 {
		idle = append(idle, s.raw(t, bobIP, deskIP))
	}
	req := s.hub.ask(run, "Bash", map[string]string{"command": "make"}, time.Minute)
	awaitApprovalEvent(t, events, "approval", req)
	if res := phone.Answer(t, req, "allow", "", nil); res.StatusCode != http.StatusOK {
		t.Errorf("the phone's answer: %s: %s", res.Status, body(res))
	}
	closed := 0
	for _, c := range idle {
		c.SetReadDeadline(time.Now().Add(200 * time.Millisecond))
		if _, err := c.Read(make([]byte, 1)); errors.Is(err, io.EOF) || errors.Is(err, syscall.ECONNRESET) {
			closed++
		}
	}
	if closed < 20-lim.fresh {
		t.Errorf("%d of the 20 idle connections were closed, want at least %d", closed, 20-lim.fresh)
	}
}

func TestAClientThatSendsItsHeadersSlowlyIsCutOff(t *testing.T) {
	lim := defaultLimits
	lim.header = 300 * time.Millisecond
	s := serveFake(t, lim)
	c := s.raw(t, phoneIP, deskIP)
	fmt.Fprintf(c, "GET / HTTP/1.1\r\nHost: %s:%d\r\n", deskIP, s.port) // and never the blank line
	c.SetReadDeadline(time.Now().Add(5 * time.Second))
	began := time.Now()
	_, err := io.Copy(io.Discard, c)
	if err != nil {
		t.Fatalf("got %v after %s, want the server to close the connection", err, time.Since(began))
	}
	if took := time.Since(began); took > 2*time.Second {
		t.Errorf("closed after %s, want about 300ms", took)
	}
}

func TestThePageFollowsTheMachinesAddresses(t *testing.T) {
	s := serveFake(t, defaultLimits)
	phone := client(phoneIP)
	if res, err := phone.Get(s.url(deskIP) + "/"); err != nil || res.StatusCode != http.StatusOK {
		t.Fatalf("before the change: %v %v", res, err)
	}
	s.f.change(func(st *ipnstate.Status) {
		moved := []netip.Addr{netip.MustParseAddr("127.0.0.11")}
		st.TailscaleIPs, st.Self.TailscaleIPs = moved, moved
	})
	s.awaitListening(t, "127.0.0.11")
	if _, err := phone.Get(s.url(deskIP) + "/"); err == nil || !errors.Is(err, syscall.ECONNREFUSED) {
		t.Errorf("the old address: %v, want the connection refused", err)
	}
	if res, err := phone.Get(s.url("127.0.0.11") + "/"); err != nil || res.StatusCode != http.StatusOK {
		t.Errorf("the new address: %v %v, want 200", res, err)
	}
	r, _ := http.NewRequest(http.MethodGet, s.url("127.0.0.11")+"/", nil)
	r.Host = net.JoinHostPort(deskIP, strconv.Itoa(s.port))
	if res, err := phone.Do(r); err != nil || res.StatusCode != http.StatusForbidden {
		t.Errorf("the old address as Host: %v %v, want 403", res, err)
	}
}

func TestThePageStopsWhileTailscaledIsGoneAndComesBack(t *testing.T) {
	s := serveFake(t, defaultLimits)
	s.f.fail(fmt.Errorf("dial unix /run/tailscale.sock: %w", syscall.ECONNREFUSED))
	await.For(t, 10*time.Second, "the page to say tailscaled is not running", func() error {
		st := s.State()
		if st.Err == nil || !strings.Contains(st.Err.Error(), "tailscaled is not running") || len(st.Listening) > 0 {
			return fmt.Errorf("state %+v", st)
		}
		return nil
	})
	s.logs.await(t, "the approval page is not served: tailscale: tailscaled is not running")
	s.f.fail(nil)
	s.awaitListening(t, deskIP)
}

func TestASessionBelongsToTheDeviceThatOpenedIt(t *testing.T) {
	s := serveFake(t, defaultLimits)
	run := testRun("r1")
	s.hub.addRun(run)
	req := s.hub.ask(run, "Bash", map[string]string{"command": "make"}, time.Minute)
	phone := tailnet.Visit(t, client(phoneIP), s.url(deskIP))
	laptop := *phone
	laptop.Client = client(laptopIP)
	if res := laptop.Answer(t, req, "allow", "", nil); res.StatusCode != http.StatusForbidden {
		t.Errorf("the phone's session from the laptop: %s, want 403", res.Status)
	}
	if res := phone.Answer(t, req, "allow", "", nil); res.StatusCode != http.StatusOK {
		t.Errorf("the phone's own: %s: %s", res.Status, body(res))
	}
}

func TestNoResponseCarriesACORSHeader(t *testing.T) {
	s := serveFake(t, defaultLimits)
	phone := client(phoneIP)
	for _, method := range []string{http.MethodOptions, http.MethodGet, http.MethodPost} {
		r, _ := http.NewRequest(method, s.url(deskIP)+"/answer", strings.NewReader("{}"))
		r.Header.Set("Origin", "http://evil.example")
		r.Header.Set("Access-Control-Request-Method", "POST")
		res, err := phone.Do(r)
		if err != nil {
			t.Fatal(err)
		}
		res.Body.Close()
		for k := range res.Header {
			if strings.HasPrefix(k, "Access-Control-") {
				t.Errorf("%s /answer: header %s: %v", method, k, res.Header[k])
			}
		}
		if res.StatusCode < 400 {
			t.Errorf("%s /answer from another origin: %s, want a refusal", method, res.Status)
		}
	}
}
