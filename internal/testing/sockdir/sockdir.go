// Package sockdir gives a test a folder for unix sockets. A socket's path must fit in 108
// bytes (sun_path), and t.TempDir's grows with TMPDIR and with the test's name, so a test
// that makes a socket there, or names one for a program to make, fails where TMPDIR is
// long. New's folder is short whatever TMPDIR is: every test that makes or names a unix
// socket puts it there.
package sockdir

import (
	"os"
	"testing"
)

// maxBase is the longest folder New makes its folders in: beyond it, /tmp.
const maxBase = 40

// New returns a new folder only this user may enter, removed at the end of the test,
// whose path is under maxBase+12 bytes: under os.TempDir() when that is short enough,
// else under /tmp.
func New(t testing.TB) string {
	t.Helper()
	base := os.TempDir()
	if len(base) > maxBase {
		base = "/tmp"
	}
	dir, err := os.MkdirTemp(base, "s") // 0700
	if err != nil {
		t.Fatalf("sockdir: making a short folder for sockets under %s: %v", base, err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	return dir
}
