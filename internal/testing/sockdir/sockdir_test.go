package sockdir

import (
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// With a TMPDIR as long as a deep home folder and a long test name make it, a socket still
// fits in the folder New returns.
func TestASocketFitsInTheFolderWhateverTMPDIR(t *testing.T) {
	long := filepath.Join(t.TempDir(), strings.Repeat("x", 100))
	if err := os.Mkdir(long, 0o700); err != nil {
		t.Fatal(err)
	}
	t.Setenv("TMPDIR", long)
	t.Run("in a test with a name as long as they come", func(t *testing.T) { // its TempDir is under TMPDIR
		if ln, err := net.Listen("unix", filepath.Join(t.TempDir(), "tailscaled.sock")); err == nil {
			ln.Close()
			t.Fatal("a socket under t.TempDir() with this TMPDIR could be made: the test proves nothing")
		}
		dir := New(t)
		ln, err := net.Listen("unix", filepath.Join(dir, "tailscaled.sock"))
		if err != nil {
			t.Fatalf("making a socket in %s: %v", dir, err)
		}
		ln.Close()
		if fi, err := os.Stat(dir); err != nil || fi.Mode().Perm() != 0o700 {
			t.Errorf("the folder %s: %v; want one only its user may enter", dir, err)
		}
	})
}
