package changes

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/segwi/segwi/internal/lib/gitcmd"
	"github.com/segwi/segwi/internal/testing/await"
	"github.com/segwi/segwi/internal/testing/claudetest"
)

// countingGit is sealedGit through a script that notes each git status it runs, and a
// count of those.
func countingGit(t *testing.T) (g gitcmd.Git, home string, statuses func() int) {
	t.Helper()
	real, err := exec.LookPath("git")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	log := filepath.Join(dir, "log")
	script := "#!/bin/sh\necho \"$1\" >> '" + log + "'\nexec '" + real + "' \"$@\"\n"
	if err := os.WriteFile(filepath.Join(dir, "git"), []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	g, home = sealedGit(t)
	g.Path = filepath.Join(dir, "git")
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
// the person can change what the next run's base must say (a file of theirs changed, even
// one kept at its size and modification time, new, removed, staged, committed, ignored or
// no longer) must make the next run read it with git and get what a fresh reading gets; a
// change inside a folder git ignores whole must not.
func TestAKeptBaseIsTheBaseGitWouldRead(t *testing.T) {
	tests := []struct {
		name   string
		change func(t *testing.T, dir, home string)
		kept   bool
	}{
		{"nothing changed", func(t *testing.T, dir, home string) {}, true},
		{"a file in an ignored folder written", func(t *testing.T, dir, home string) {
			write(t, dir, "build/out/new.o", "object\n")
			write(t, dir, "build/app", "binary, rebuilt\n")
		}, true},
		{"a tracked file rewritten, same size and modification time", func(t *testing.T, dir, home string) {
			path := filepath.Join(dir, "hello.txt")
			st, err := os.Stat(path)
			if err != nil {
				t.Fatal(err)
			}
			write(t, dir, "hello.txt", "HELLO from the test checkout\n")
			if err := os.Chtimes(path, st.ModTime(), st.ModTime()); err != nil {
				t.Fatal(err)
			}
		}, false},
		{"a changed file put back as committed", func(t *testing.T, dir, home string) { git(t, dir, "checkout", "--", "README.md") }, false},
		{"a new file in a folder", func(t *testing.T, dir, home string) { write(t, dir, "docs/new.md", "new\n") }, false},
		{"a file removed", func(t *testing.T, dir, home string) { os.Remove(filepath.Join(dir, "hello.txt")) }, false},
		{"an untracked file renamed", func(t *testing.T, dir, home string) {
			os.Rename(filepath.Join(dir, "x.txt"), filepath.Join(dir, "y.txt"))
		}, false},
		{"the ignore rules changed", func(t *testing.T, dir, home string) { write(t, dir, ".gitignore", "x.txt\n") }, false},
		{"the person's ignore rules in the git folder changed", func(t *testing.T, dir, home string) {
			write(t, dir, ".git/info/exclude", "x.txt\n")
		}, false},
		{"the person's own ignore file written", func(t *testing.T, dir, home string) {
			write(t, home, ".config/git/ignore", "x.txt\n")
		}, false},
		{"a file in an ignored folder added by force", func(t *testing.T, dir, home string) { git(t, dir, "add", "-f", "build/app") }, false},
		{"a file staged", func(t *testing.T, dir, home string) { git(t, dir, "add", "x.txt") }, false},
		{"a commit made", func(t *testing.T, dir, home string) {
			git(t, dir, "add", "README.md", "x.txt")
			git(t, dir, "commit", "-q", "-m", "Add x")
		}, false},
		{"a nested repository's commit moved, its files as they were", func(t *testing.T, dir, home string) {
			git(t, filepath.Join(dir, "nested"), "commit", "-q", "--allow-empty", "-m", "More")
		}, false},
		{"a line-ending setting changed", func(t *testing.T, dir, home string) { git(t, dir, "config", "core.autocrlf", "input") }, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			g, home, statuses := countingGit(t)
			dir := claudetest.Checkout(t)
			write(t, dir, ".gitignore", "build/\n")
			git(t, dir, "add", ".gitignore")
			git(t, dir, "commit", "-q", "-m", "Ignore the build")
			nested := filepath.Join(dir, "nested")
			write(t, nested, "n.txt", "nested\n")
			git(t, nested, "init", "-q")
			git(t, nested, "add", ".")
			git(t, nested, "commit", "-q", "-m", "Nested")
			write(t, dir, "README.md", "changed by the person\n")
			write(t, dir, "x.txt", "a new file\n")
			write(t, dir, "build/app", "binary\n")
			bs := &Bases{}
			before := keptRead(t, bs, g, dir)
			if !reflect.DeepEqual(before, baseOf(t, g, dir)) {
				t.Fatalf("the kept base %+v is not what git reads, %+v", before, baseOf(t, g, dir))
			}

			tt.change(t, dir, home)
			ran := statuses()
			got := bs.Read(context.Background(), g, dir)
			if gitRan := statuses() > ran; gitRan == tt.kept {
				t.Errorf("git status ran: %v; want %v", gitRan, !tt.kept)
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
