package changes

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/segwi/segwi/internal/lib/gitcmd"
	"github.com/segwi/segwi/internal/testing/await"
	"github.com/segwi/segwi/internal/testing/claudetest"
)

// countingGit is sealedGit through a git that notes each command it runs, and a count of
// its git status commands.
func countingGit(t *testing.T) (g gitcmd.Git, home string, statuses func() int) {
	t.Helper()
	log := filepath.Join(t.TempDir(), "commands")
	g, home = sealedGit(t)
	g.Path = claudetest.WrappedGit(t, `echo "$1" >> '`+log+`'`)
	return g, home, func() int {
		data, err := os.ReadFile(log)
		if err != nil && !errors.Is(err, os.ErrNotExist) {
			t.Fatal(err)
		}
		return strings.Count(string(data), "status\n")
	}
}

// keptRead reads dir's base with bs again until bs keeps it: what was written just before
// a reading cannot be told from a change made just after, and is read with git again.
func keptRead(t *testing.T, bs *Bases, g gitcmd.Git, dir string) Base {
	t.Helper()
	var b Base
	await.For(t, 30*time.Second, "a base kept after the checkout settled", func() bool {
		b = bs.Read(context.Background(), g, dir)
		if b.Error != "" {
			t.Fatalf("Read(%s): %s", dir, b.Error)
		}
		_, kept := bs.get(baseKey(g, dir))
		return kept
	})
	return b
}

// A segwi that outlives its runs keeps the last base it read in a checkout and gives it
// to the next run there while nothing git status reads has changed, without git. Each way
// the person can change what the next run's base must say (checkoutChanges: a file of
// theirs changed, even one kept at its size and modification time, new, removed, staged,
// committed, ignored or no longer) must make the next run read it with git and get what a
// fresh reading gets; a change inside a folder git ignores whole must not.
func TestAKeptBaseIsTheBaseGitWouldRead(t *testing.T) {
	for _, tt := range checkoutChanges {
		t.Run(tt.name, func(t *testing.T) {
			g, home, statuses := countingGit(t)
			dir := changingCheckout(t)
			bs := &Bases{}
			before := keptRead(t, bs, g, dir)
			if !reflect.DeepEqual(before, baseOf(t, g, dir)) {
				t.Fatalf("the kept base %+v is not what git reads, %+v", before, baseOf(t, g, dir))
			}

			tt.change(t, dir, home)
			ran := statuses()
			got := bs.Read(context.Background(), g, dir)
			if gitRan := statuses() > ran; gitRan == tt.holds {
				t.Errorf("git status ran: %v; want %v", gitRan, !tt.holds)
			}
			if want := baseOf(t, g, dir); !reflect.DeepEqual(got, want) {
				t.Errorf("the base read after the change:\n%+v\nwant what git reads:\n%+v", got, want)
			}
		})
	}
}

// A base that could not be read is not kept: the next run's reading tries git again.
func TestABaseThatCouldNotBeReadIsNotKept(t *testing.T) {
	g, _, statuses := countingGit(t)
	dir := claudetest.Checkout(t)
	bs := &Bases{}
	keptRead(t, bs, g, dir)
	if err := os.Rename(filepath.Join(dir, ".git"), filepath.Join(dir, "git.moved")); err != nil {
		t.Fatal(err)
	}
	if b := bs.Read(context.Background(), g, dir); b.Error == "" {
		t.Fatalf("a folder that is no longer a checkout has the base %+v", b)
	}
	if _, kept := bs.get(baseKey(g, dir)); kept {
		t.Errorf("the base of a folder git could not read is kept")
	}
	if err := os.Rename(filepath.Join(dir, "git.moved"), filepath.Join(dir, ".git")); err != nil {
		t.Fatal(err)
	}
	ran := statuses()
	if b := bs.Read(context.Background(), g, dir); b.Error != "" || statuses() == ran {
		t.Errorf("the checkout back: base %+v, git status ran %d times; want a base read with git", b, statuses()-ran)
	}
}
