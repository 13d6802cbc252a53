package gitcmd

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"golang.org/x/sys/unix"
)

// Whatever a program does to the folder's path after segwi made it (rename it, swap in a
// look-alike holding a configuration), git works in the folder segwi holds, and the seal
// says the folder was moved.
func TestGitWorksInTheHeldFolderWhateverIsSwappedIn(t *testing.T) {
	dir, g := newCheckout(t)
	c := open(t, g, dir)
	r, err := NewRepo(context.Background(), c, RepoOptions{Prefix: "segwi-test-", Seal: true})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	if err := r.Changed(); err != nil {
		t.Fatalf("Changed right after sealing: %v", err)
	}
	// A look-alike with a configuration of its own, swapped in atomically.
	path := r.dir.path
	fake := path + "-fake"
	os.MkdirAll(filepath.Join(fake, "objects"), 0o700)
	os.MkdirAll(filepath.Join(fake, "refs"), 0o700)
	os.WriteFile(filepath.Join(fake, "HEAD"), []byte("ref: refs/heads/x\n"), 0o600)
	os.WriteFile(filepath.Join(fake, "config"), []byte("[segwi]\n\tswapped = yes\n"), 0o600)
	defer os.RemoveAll(fake)
	if err := unix.Renameat2(unix.AT_FDCWD, path, unix.AT_FDCWD, fake, unix.RENAME_EXCHANGE); err != nil {
		t.Skipf("renameat2: %v", err)
	}
	out, err := r.Git.Output(context.Background(), "config", "--get", "segwi.swapped")
	if out != "" || ExitCode(err) != 1 {
		t.Errorf("git read the swapped-in folder's config: %q, %v", out, err)
	}
	if err := r.Changed(); err == nil || !strings.Contains(err.Error(), "moved or replaced") {
		t.Errorf("Changed after the swap = %v, want it to say the folder was moved", err)
	}
	// Swapped back: the renames changed the folder's change time.
	unix.Renameat2(unix.AT_FDCWD, path, unix.AT_FDCWD, fake, unix.RENAME_EXCHANGE)
	if err := r.Changed(); err == nil {
		t.Error("Changed after the swap and back = nil, want the change seen")
	}
}
