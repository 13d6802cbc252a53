package changes

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/segwi/segwi/internal/lib/gitcmd"
	"github.com/segwi/segwi/internal/testing/claudetest"
)

// A FIFO where git reads a file would hold segwi forever when it reads a run's changes
// (issue 20). What segwi copies from the git folder it reads only as a regular file; what
// git opens in the work tree itself (a .gitignore) is bounded by the command's deadline.
// A FIFO the run made among its files is no change git can record, and is passed over.
func TestAFIFOInTheCheckoutNeverHoldsSegwiUp(t *testing.T) {
	tests := []struct {
		name     string
		fifo     string // where, under the checkout
		deadline bool   // git meets it and is ended at its deadline
		works    bool   // the changes are read all the same
	}{
		{name: "the index", fifo: ".git/index"},
		{name: "info/exclude", fifo: ".git/info/exclude"},
		{name: "the shallow file", fifo: ".git/shallow"},
		{name: "a .gitignore in the work tree", fifo: ".gitignore", deadline: true},
		{name: "a FIFO the run made", fifo: "made-by-the-run", works: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			g, _ := sealedGit(t)
			g = g.Within(3 * time.Second)
			dir := claudetest.Checkout(t)
			base := baseOf(t, g, dir)
			write(t, dir, "x.txt", "the run's\n")
			path := filepath.Join(dir, filepath.FromSlash(tt.fifo))
			os.MkdirAll(filepath.Dir(path), 0o755)
			os.Remove(path)
			if err := syscall.Mkfifo(path, 0o600); err != nil {
				t.Skipf("no FIFOs here: %v", err)
			}
			done := make(chan error, 1)
			start := time.Now()
			go func() {
				snap, err := Take(context.Background(), g, base)
				if err == nil {
					snap.Close()
				}
				done <- err
			}()
			var err error
			select {
			case err = <-done:
			case <-time.After(60 * time.Second):
				if w, err := os.OpenFile(path, os.O_WRONLY|syscall.O_NONBLOCK, 0); err == nil {
					w.Close()
				}
				t.Fatalf("reading the changes hung on a FIFO at %s", tt.fifo)
			}
			took := time.Since(start)
			switch {
			case tt.works:
				if err != nil {
					t.Errorf("Take = %v, want the changes read", err)
				}
			case tt.deadline:
				if !errors.Is(err, gitcmd.ErrDeadline) {
					t.Errorf("Take = %v, want git ended at its deadline", err)
				}
			case !errors.Is(err, gitcmd.ErrNotRegular):
				t.Errorf("Take = %v, want a refusal of the FIFO", err)
			}
			if took > 20*time.Second {
				t.Errorf("it took %s", took)
			}
		})
	}
}
