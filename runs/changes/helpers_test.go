package changes

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/segwi/segwi/internal/lib/gitcmd"
	"github.com/segwi/segwi/internal/testing/claudetest"
)

// sealedGit is git for a test: a HOME of the test's own (no config of the person running
// the tests), PATH, and a C locale.
func sealedGit(t testing.TB) (gitcmd.Git, string) {
	t.Helper()
	home := t.TempDir()
	return gitcmd.New("", "", []string{"PATH=" + os.Getenv("PATH"), "HOME=" + home, "LANG=C"}), home
}

// write writes content to name under dir, making its folders.
func write(t *testing.T, dir, name, content string) {
	t.Helper()
	path := filepath.Join(dir, filepath.FromSlash(name))
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

// git runs git in dir as the test's person (claudetest.Git).
func git(t *testing.T, dir string, args ...string) string {
	t.Helper()
	return claudetest.Git(t, dir, args...)
}

// take reads the changes since base, closing the snapshot at the end of the test.
func take(t *testing.T, g gitcmd.Git, base Base) *Snapshot {
	t.Helper()
	snap, err := Take(context.Background(), g, base)
	if err != nil {
		t.Fatalf("Take: %v", err)
	}
	t.Cleanup(snap.Close)
	return snap
}

// baseOf is ReadBase, failing the test when the base could not be read.
func baseOf(t *testing.T, g gitcmd.Git, dir string) Base {
	t.Helper()
	b := ReadBase(context.Background(), g, dir)
	if b.Error != "" {
		t.Fatalf("ReadBase(%s): %s", dir, b.Error)
	}
	return b
}
