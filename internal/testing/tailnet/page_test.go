package tailnet

import (
	"net"
	"strconv"
	"testing"
)

// TestFreePortIsNoneTheKernelHandsOut: the page listens on the port seconds after it is
// picked. Picked by binding port 0, it was one of the kernel's ephemeral ports, which it
// may give any program binding port 0 or any outgoing connection in between (as taken
// ports made chromedriver exit here); below that range it stays free until the page binds
// it by number. Nor does another test that asks meanwhile get the same port.
func TestFreePortIsNoneTheKernelHandsOut(t *testing.T) {
	from, to, ok := pagePorts()
	if !ok {
		t.Skipf("the kernel's ephemeral ports start at %d: no room below them (FreePort takes one it gives)", to+1)
	}
	seen := map[int]bool{}
	for range 200 {
		p := FreePort(t)
		if p < from || p > to {
			t.Fatalf("FreePort gave port %d, want one from %d below the kernel's ephemeral range (from %d)", p, from, to+1)
		}
		if seen[p] {
			t.Fatalf("FreePort gave port %d twice in one test", p)
		}
		ln, err := net.Listen("tcp", net.JoinHostPort("127.0.0.1", strconv.Itoa(p)))
		if err != nil {
			t.Fatalf("FreePort gave port %d, which cannot be listened on: %v", p, err)
		}
		ln.Close()
		seen[p] = true
	}
}
