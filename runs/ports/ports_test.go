package ports

import (
	"net"
	"strconv"
	"testing"
)

// Runs side by side get ranges that share no port, none of which anything listens on, and
// a range let go is taken again.
func TestRangesSideBySideAreDisjointAndFree(t *testing.T) {
	state := t.TempDir()
	a, err := Take(state, DefaultCount)
	if err != nil {
		t.Fatal(err)
	}
	defer a.Release()
	// A program of the person's listens on the next range's first port.
	l, err := net.Listen("tcp", "127.0.0.1:"+strconv.Itoa(a.Last()+1))
	if err != nil {
		t.Skipf("port %d is taken on this machine: %v", a.Last()+1, err)
	}
	defer l.Close()
	b, err := Take(state, DefaultCount)
	if err != nil {
		t.Fatal(err)
	}
	if b.First <= a.Last() && a.First <= b.Last() {
		t.Errorf("ranges %s and %s overlap", a, b)
	}
	if b.First <= a.Last()+1 && a.Last()+1 <= b.Last() {
		t.Errorf("range %s holds port %d, which a program listens on", b, a.Last()+1)
	}
	low, _ := Ephemeral()
	for _, r := range []*Held{a, b} {
		if r.First < FirstPort || r.Last() >= low && r.First < low {
			t.Errorf("range %s reaches into the kernel's ephemeral ports (from %d)", r, low)
		}
		for p := r.First; p <= r.Last(); p++ {
			l, err := net.Listen("tcp", ":"+strconv.Itoa(p))
			if err != nil {
				t.Errorf("port %d of %s cannot be listened on: %v", p, r, err)
				continue
			}
			l.Close()
		}
	}
	if env := a.Env(); env[0] != "SEGWI_PORT="+strconv.Itoa(a.First) || env[1] != "SEGWI_PORT_COUNT=10" {
		t.Errorf("Env = %q", env)
	}

	b.Release()
	c, err := Take(state, DefaultCount)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Release()
	if c.First != b.First {
		t.Errorf("after the release of %s, the next run got %s", b, c)
	}
}

func TestACountOutOfBoundsIsRefused(t *testing.T) {
	for _, n := range []int{0, -1, MaxCount + 1} {
		if _, err := Take(t.TempDir(), n); err == nil {
			t.Errorf("Take(%d) took a range", n)
		}
	}
}

// BenchmarkTake measures what taking a run's range and letting it go costs, as each run
// does at its start and end.
func BenchmarkTake(b *testing.B) {
	state := b.TempDir()
	for b.Loop() {
		h, err := Take(state, DefaultCount)
		if err != nil {
			b.Fatal(err)
		}
		h.Release()
	}
}

// A port some program listens on, on any address, IPv4 or IPv6 only, is not free, and
// one nothing listens on is: on Linux one socket checks both families.
func TestAPortListenedOnOnAnyAddressIsNotFree(t *testing.T) {
	for _, on := range []struct{ network, addr string }{
		{"tcp4", "127.0.0.1:0"}, {"tcp4", "0.0.0.0:0"}, {"tcp6", "[::1]:0"}, {"tcp6", "[::]:0"},
	} {
		l, err := net.Listen(on.network, on.addr)
		if err != nil {
			t.Logf("cannot listen on %s here: %v", on.addr, err)
			continue
		}
		p := l.Addr().(*net.TCPAddr).Port
		if free(p) {
			t.Errorf("port %d is taken for free while a program listens on %s (%s)", p, l.Addr(), on.network)
		}
		l.Close()
		if !free(p) {
			t.Errorf("port %d is not free once its listener on %s closed", p, on.addr)
		}
	}
}
