package changes

import (
	"context"
	"errors"
	"fmt"
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

// The kept bases stay within keptBases checkouts and keptBytes of paths: a base that would
// pass either bound makes others go (their next runs read with git again), and one over
// keptBytes alone is not kept, so a tray beside many checkouts of many changed files
// keeps a few MB, not MaxDirty paths for each of keptBases checkouts.
func TestKeptBasesStayWithinTheirBounds(t *testing.T) {
	var bs Bases
	withPaths := func(n, length int) *keptBase {
		b := Base{DirtyCount: n}
		for i := range n {
			b.Dirty = append(b.Dirty, fmt.Sprintf("%0*d", length, i))
		}
		return &keptBase{base: b}
	}
	check := func(when string) {
		t.Helper()
		total := 0
		for _, k := range bs.kept {
			total += sizeOf(k.base)
		}
		if total != bs.bytes || total > keptBytes || len(bs.kept) > keptBases {
			t.Fatalf("%s: %d bases kept, their paths %d bytes (counted %d); want at most %d and %d", when, len(bs.kept), total, bs.bytes, keptBases, keptBytes)
		}
	}
	kept := func(when string, keys ...string) {
		t.Helper()
		for _, key := range keys {
			if _, ok := bs.kept[key]; !ok {
				t.Errorf("%s: the base of %s was forgotten", when, key)
			}
		}
	}
	forgotten := func(when string, keys ...string) {
		t.Helper()
		for _, key := range keys {
			if _, ok := bs.kept[key]; ok {
				t.Errorf("%s: the base of %s is still kept", when, key)
			}
		}
	}
	for i := range 2 * keptBases {
		bs.keep(fmt.Sprint("small", i), withPaths(10, 40))
		check("small bases")
		if i == 0 {
			// Given again each time: the first base is the most recently used.
			continue
		}
		if _, ok := bs.get("small0"); !ok {
			t.Fatalf("after %d small bases, the base given again before each was forgotten", i+1)
		}
	}
	// Too many: the least recently used went, the one given again stayed.
	kept("too many bases", "small0", fmt.Sprint("small", 2*keptBases-1))
	forgotten("too many bases", "small1", fmt.Sprint("small", keptBases))
	// MaxDirty paths of 200 bytes: 2.2 MB each. The second takes the room of the first,
	// not of the small ones.
	bs.keep("big1", withPaths(MaxDirty, 200))
	bs.keep("big2", withPaths(MaxDirty, 200))
	check("two big bases")
	kept("two big bases", "big2", "small0", fmt.Sprint("small", 2*keptBases-1))
	forgotten("two big bases", "big1")
	smalls := len(bs.kept) - 1
	if smalls != keptBases-2 {
		t.Errorf("two big bases: %d small bases kept, want %d (two made room for the big ones)", smalls, keptBases-2)
	}
	bs.keep("big2", withPaths(MaxDirty, 500)) // 5.2 MB: over the bound alone
	check("a base over the bound")
	forgotten("a base over the bound", "big2")
	bs.keep("small0", nil)
	check("a base forgotten")
	forgotten("a base forgotten", "small0")
	if len(bs.kept) != smalls-1 {
		t.Errorf("a base forgotten: %d bases kept, want %d", len(bs.kept), smalls-1)
	}
}
