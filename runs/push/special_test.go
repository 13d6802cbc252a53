package push

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// A FIFO where git reads a file from the checkout held segwi push forever (issue 20: a
// FIFO at .git/shallow). segwi reads only regular files there, and every git it runs has
// a deadline: such a push fails at once, saying which file.
func TestAFIFOInTheCheckoutsGitFolderFailsThePushAtOnce(t *testing.T) {
	for _, name := range []string{"shallow", "objects/info/alternates", "config", "HEAD", "packed-refs", "commondir"} {
		t.Run(name, func(t *testing.T) {
			f := newFixture(t)
			path := filepath.Join(f.checkout, ".git", filepath.FromSlash(name))
			os.Remove(path)
			if name == "packed-refs" {
				os.Remove(filepath.Join(f.checkout, ".git", "refs", "heads", "segwi", "feature"))
			}
			if err := syscall.Mkfifo(path, 0o600); err != nil {
				t.Skipf("no FIFOs here: %v", err)
			}
			var calls int
			type result struct {
				a   Attempt
				err error
			}
			done := make(chan result, 1)
			start := time.Now()
			go func() {
				a, err := Push(context.Background(), f.request(giveToken(testToken, &calls), new([]Attempt)))
				done <- result{a, err}
			}()
			var r result
			select {
			case r = <-done:
			case <-time.After(60 * time.Second):
				// Opening the FIFO for writing lets a reader that waits on it go on.
				if w, err := os.OpenFile(path, os.O_WRONLY|syscall.O_NONBLOCK, 0); err == nil {
					w.Close()
				}
				t.Fatalf("segwi push hung on a FIFO at .git/%s", name)
			}
			f.captureAttempt(r.a, r.err)
			if r.err == nil || r.a.Outcome == Pushed {
				t.Fatalf("Push with a FIFO at .git/%s = %s: %s, want a failure", name, r.a.Outcome, r.a.Message)
			}
			if took := time.Since(start); took > 10*time.Second {
				t.Errorf("it took %s to fail", took)
			}
			if !strings.Contains(r.a.Message, "not a regular file") && !strings.Contains(r.a.Message, "not a git checkout") {
				t.Errorf("the attempt says %q; want it to say a file is not a regular file", r.a.Message)
			}
			if calls != 0 && name != "shallow" && name != "objects/info/alternates" {
				t.Errorf("the token was read %d times", calls)
			}
		})
	}
}
