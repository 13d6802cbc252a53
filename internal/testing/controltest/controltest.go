// Package controltest connects the two ends of the tray's control channel inside one test
// process: the tray's end, to serve, and the window's, to connect a control.Client to, over
// a real socket pair as the window process gets it.
package controltest

import (
	"net"
	"testing"

	"github.com/segwi/segwi/control"
)

// Pair returns the two ends of a new control.Pair as connections, closed at the end of the
// test.
func Pair(t testing.TB) (tray, window net.Conn) {
	t.Helper()
	tray, child, err := control.Pair()
	if err != nil {
		t.Fatal(err)
	}
	window, err = net.FileConn(child)
	child.Close()
	if err != nil {
		tray.Close()
		t.Fatal(err)
	}
	t.Cleanup(func() { tray.Close(); window.Close() })
	return tray, window
}
