package gitcmd

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/segwi/segwi/internal/testing/claudetest"
)

func open(t *testing.T, g Git, dir string) *Checkout {
	t.Helper()
	c, err := g.Open(context.Background(), dir)
	if err != nil {
		t.Fatalf("Open(%s): %v", dir, err)
	}
	return c
}

// Open finds the work tree, its git folder, HEAD and its commit as git does, from the
// checkout's files.
func TestOpenReadsWhereACheckoutStands(t *testing.T) {
	dir, g := newCheckout(t)
	head := hostGit(t, dir, "rev-parse", "HEAD")
	real, _ := filepath.EvalSymlinks(dir)
	os.MkdirAll(filepath.Join(dir, "sub", "deeper"), 0o755)

	c := open(t, g, filepath.Join(dir, "sub", "deeper"))
	if c.Top != real || c.GitDir != filepath.Join(real, ".git") || c.Common != c.GitDir || c.Format != "sha1" {
		t.Errorf("Open = top %s, git %s, common %s, format %s", c.Top, c.GitDir, c.Common, c.Format)
	}
	if c.Branch != "main" || c.HeadRef != "refs/heads/main" || c.Head != head {
		t.Errorf("HEAD = %s (%s) at %s, want main at %s", c.HeadRef, c.Branch, c.Head, head)
	}

	t.Run("a packed branch", func(t *testing.T) {
		hostGit(t, dir, "pack-refs", "--all")
		if _, err := os.Stat(filepath.Join(dir, ".git", "refs", "heads", "main")); err == nil {
			t.Fatal("main is still loose")
		}
		if c := open(t, g, dir); c.Head != head {
			t.Errorf("packed main = %q, want %s", c.Head, head)
		}
	})
	t.Run("a linked worktree", func(t *testing.T) {
		wt := filepath.Join(t.TempDir(), "wt")
		hostGit(t, dir, "worktree", "add", "-q", "-b", "side", wt)
		c := open(t, g, wt)
		realWT, _ := filepath.EvalSymlinks(wt)
		if c.Top != realWT || c.Common != filepath.Join(real, ".git") || c.GitDir == c.Common || c.Branch != "side" || c.Head != head {
			t.Errorf("Open(worktree) = %+v", c)
		}
	})
	t.Run("a detached HEAD", func(t *testing.T) {
		hostGit(t, dir, "switch", "-q", "--detach")
		defer hostGit(t, dir, "switch", "-q", "main")
		if c := open(t, g, dir); c.HeadRef != "" || c.Branch != "" || c.Head != head {
			t.Errorf("detached: %+v", c)
		}
	})
	t.Run("an unborn branch", func(t *testing.T) {
		hostGit(t, dir, "switch", "-q", "--orphan", "fresh")
		defer hostGit(t, dir, "switch", "-q", "-f", "main")
		if c := open(t, g, dir); c.Branch != "fresh" || c.Head != "" {
			t.Errorf("unborn: %+v", c)
		}
	})
	t.Run("a folder that is no checkout", func(t *testing.T) {
		if _, err := g.Open(context.Background(), t.TempDir()); !errors.Is(err, ErrNotGit) {
			t.Errorf("Open(empty folder) = %v, want ErrNotGit", err)
		}
		if _, err := g.Open(context.Background(), filepath.Join(dir, ".git", "objects")); !errors.Is(err, ErrNotGit) {
			t.Errorf("Open(inside .git) = %v, want ErrNotGit", err)
		}
	})
}

// What git reads as a file must be one: a FIFO at HEAD, in a ref, in commondir or in the
// configuration fails at once instead of holding segwi up.
func TestOpenRefusesAFIFOWhereAFileShouldBe(t *testing.T) {
	for _, name := range []string{"HEAD", "config", "refs/heads/main", "packed-refs"} {
		t.Run(name, func(t *testing.T) {
			dir, g := newCheckout(t)
			path := filepath.Join(dir, ".git", filepath.FromSlash(name))
			os.Remove(path)
			if err := syscall.Mkfifo(path, 0o600); err != nil {
				t.Skipf("no FIFOs: %v", err)
			}
			if name == "packed-refs" {
				os.Remove(filepath.Join(dir, ".git", "refs", "heads", "main"))
			}
			_, err := g.Open(context.Background(), dir)
			if err == nil || !errors.Is(err, ErrNotRegular) && !errors.Is(err, ErrNotGit) {
				t.Errorf("Open with a FIFO at .git/%s = %v, want a refusal", name, err)
			}
		})
	}
}

// The values segwi reads are git's: includes followed, conditions decided as git does,
// later files winning.
func TestConfigValuesAreReadAsGitReadsThem(t *testing.T) {
	dir, g := newCheckout(t)
	home := g.Person("HOME")
	real, _ := filepath.EvalSymlinks(dir)
	write := func(path, content string) {
		t.Helper()
		os.MkdirAll(filepath.Dir(path), 0o755)
		if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write(filepath.Join(home, ".gitconfig"), "[user]\n\tname = Global Name\n\temail = global@example.invalid\n"+
		"[include]\n\tpath = ~/extra.inc\n"+
		"[includeIf \"gitdir:"+filepath.Dir(real)+"/\"]\n\tpath = work.inc\n"+
		"[includeIf \"gitdir:/nowhere/\"]\n\tpath = never.inc\n"+
		"[includeIf \"onbranch:ma*\"]\n\tpath = branch.inc\n")
	write(filepath.Join(home, "extra.inc"), "[core]\n\tautocrlf = input\n")
	write(filepath.Join(home, "work.inc"), "[user]\n\temail = work@example.invalid\n")
	write(filepath.Join(home, "never.inc"), "[user]\n\tname = Never\n")
	write(filepath.Join(home, "branch.inc"), "[core]\n\tfilemode = false\n")
	hostGit(t, dir, "config", "core.eol", "lf")

	// What git itself, reading the same files as its configuration, says.
	gitSays := func(key string) string {
		cmd := exec.Command("git", "config", key)
		cmd.Dir = dir
		cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + home, "GIT_CONFIG_NOSYSTEM=1"}
		out, _ := cmd.Output()
		return strings.TrimSpace(string(out))
	}
	c := open(t, g, dir)
	a, cm, err := c.Identity()
	if want := gitSays("user.name") + " <" + gitSays("user.email") + ">"; err != nil || a.String() != want || cm != a || want != "Global Name <work@example.invalid>" {
		t.Errorf("Identity = %v, %v, %v; want %s, as git reads it", a, cm, err, want)
	}
	got := c.Settings()
	for _, key := range []string{"core.autocrlf", "core.eol", "core.filemode"} {
		if want := key + "=" + gitSays(key); !slices.Contains(got, want) {
			t.Errorf("Settings = %q, lacks %s, as git reads it", got, want)
		}
	}

	t.Run("the person's environment outranks the configuration", func(t *testing.T) {
		g2 := New("", "", []string{"HOME=" + home, "PATH=" + os.Getenv("PATH"), "GIT_AUTHOR_NAME=Env Name", "GIT_COMMITTER_EMAIL=env@example.invalid"})
		a, cm, err := open(t, g2, dir).Identity()
		if err != nil || a.String() != "Env Name <work@example.invalid>" || cm.String() != "Global Name <env@example.invalid>" {
			t.Errorf("Identity = %v, %v, %v", a, cm, err)
		}
	})
	t.Run("no identity", func(t *testing.T) {
		g2 := New("", "", []string{"HOME=" + t.TempDir(), "PATH=" + os.Getenv("PATH")})
		if _, _, err := open(t, g2, dir).Identity(); !errors.Is(err, ErrNoIdentity) {
			t.Errorf("Identity without a name = %v, want ErrNoIdentity", err)
		}
	})
}

// segwi finds the push URLs of a remote as git remote get-url --push --all does.
func TestPushURLsAreGitsPushURLs(t *testing.T) {
	tests := []struct {
		name   string
		config []string // git config arguments, one setting each
	}{
		{"a url", []string{"remote.origin.url=https://github.com/a/b.git"}},
		{"a pushurl", []string{"remote.origin.url=https://github.com/a/b.git", "remote.origin.pushurl=https://github.com/a/c.git"}},
		{"insteadOf", []string{"remote.origin.url=gh:a/b.git", "url.https://github.com/.insteadOf=gh:"}},
		{"the longest insteadOf wins", []string{"remote.origin.url=https://github.com/a/b.git", "url.https://x.example/.insteadOf=https://github.com/", "url.https://y.example/.insteadOf=https://github.com/a/"}},
		{"pushInsteadOf", []string{"remote.origin.url=https://github.com/a/b.git", "url.https://push.example/.pushInsteadOf=https://github.com/"}},
		{"pushInsteadOf does not touch a pushurl", []string{"remote.origin.url=https://github.com/a/b.git", "remote.origin.pushurl=https://github.com/a/c.git", "url.https://push.example/.pushInsteadOf=https://github.com/"}},
		{"insteadOf applies to a pushurl", []string{"remote.origin.url=https://github.com/a/b.git", "remote.origin.pushurl=gh:a/c.git", "url.https://github.com/.insteadOf=gh:"}},
		{"two urls, one rewritten for push", []string{"remote.origin.url=https://github.com/a/b.git", "remote.origin.url=https://other.example/b.git", "url.https://push.example/.pushInsteadOf=https://other.example/"}},
		{"two urls", []string{"remote.origin.url=https://github.com/a/b.git", "remote.origin.url=https://other.example/b.git"}},
		{"ext:: through insteadOf", []string{"remote.origin.url=https://github.com/a/b.git", "url.ext::sh -c steal %S .insteadOf=https://github.com/"}},
		{"no url", []string{"remote.origin.fetch=+refs/heads/*:refs/remotes/origin/*"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir, g := newCheckout(t)
			for _, kv := range tt.config {
				k, v, _ := strings.Cut(kv, "=")
				hostGit(t, dir, "config", "--add", k, v)
			}
			want := strings.Split(hostGit(t, dir, "remote", "get-url", "--push", "--all", "origin"), "\n")
			c := open(t, g, dir)
			if !c.RemoteConfigured("origin") {
				t.Fatal("origin is not configured")
			}
			if got := c.PushURLs("origin"); !slices.Equal(got, want) {
				t.Errorf("PushURLs = %q, git says %q", got, want)
			}
		})
	}
}

func TestWildmatchMatchesAsGitsPathnameMatch(t *testing.T) {
	tests := []struct {
		pattern, name string
		want          bool
	}{
		{"/home/p/work/**", "/home/p/work/x/.git", true},
		{"/home/p/work/**", "/home/p/other/.git", false},
		{"**/work/**", "/home/p/work/x/.git", true},
		{"/home/*/.git", "/home/p/.git", true},
		{"/home/*/.git", "/home/p/q/.git", false},
		{"/home/p/**/.git", "/home/p/.git", true},
		{"/home/p/**/.git", "/home/p/a/b/.git", true},
		{"ma?n", "main", true},
		{"feat/**", "feat/a/b", true},
		{"[mn]ain", "main", true},
		{"[!m]ain", "main", false},
		{"a.b", "axb", false},
	}
	for _, tt := range tests {
		if got := wildmatch(tt.pattern, tt.name, false); got != tt.want {
			t.Errorf("wildmatch(%q, %q) = %v, want %v", tt.pattern, tt.name, got, tt.want)
		}
	}
	if !wildmatch("/HOME/**", "/home/p", true) || wildmatch("/HOME/**", "/home/p", false) {
		t.Error("gitdir/i: does not fold case")
	}
}

// countingGit returns a Git whose binary is a wrapper of the real git that logs each
// command to the file it returns.
func countingGit(t *testing.T, g Git) (Git, string) {
	t.Helper()
	log := filepath.Join(t.TempDir(), "commands")
	g.Path = claudetest.WrappedGit(t, `echo "$*" >> '`+log+`'`)
	return g, log
}

// commands returns the git commands the log holds, one a line.
func commands(t *testing.T, log string) []string {
	t.Helper()
	b, err := os.ReadFile(log)
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		t.Fatal(err)
	}
	return strings.Fields(strings.ReplaceAll(string(b), " ", "_"))
}

// Each look at a run's changes opens its checkout again (issue 22): a configuration file git
// parsed once is not parsed again while its bytes stay the same, and one that changed is.
func TestOpeningACheckoutAgainParsesOnlyTheSettingsThatChanged(t *testing.T) {
	dir, g := newCheckout(t)
	g, log := countingGit(t, g)
	open(t, g, dir)
	first := len(commands(t, log))
	if first == 0 {
		t.Fatal("the first Open ran no git: the count proves nothing")
	}
	open(t, g, dir)
	if again := commands(t, log)[first:]; len(again) != 0 {
		t.Errorf("opening the checkout again ran git %d times: %q", len(again), again)
	}
	hostGit(t, dir, "config", "core.autocrlf", "input")
	c := open(t, g, dir)
	if again := commands(t, log)[first:]; len(again) != 1 {
		t.Errorf("after a change of .git/config, Open ran git %d times (%q), want once", len(again), again)
	}
	if v, _ := c.Config.Get("core.autocrlf"); v != "input" {
		t.Errorf("core.autocrlf = %q after the change, want input", v)
	}
}

// BenchmarkFirstOpen opens a checkout as a segwi process does first, its git's version not
// known yet and no configuration parsed, and reports the CPU it took with its git
// commands' (cpu-ms/op): a share of each `segwi run` (issue 22).
func BenchmarkFirstOpen(b *testing.B) {
	needGit(b)
	dir := b.TempDir()
	hostGit(b, dir, "init", "-q", "-b", "main")
	g := New("", "", []string{"PATH=" + os.Getenv("PATH"), "HOME=" + b.TempDir()})
	ctx := context.Background()
	cpu := func() time.Duration {
		var self, children syscall.Rusage
		syscall.Getrusage(syscall.RUSAGE_SELF, &self)
		syscall.Getrusage(syscall.RUSAGE_CHILDREN, &children)
		return time.Duration(self.Utime.Nano() + self.Stime.Nano() + children.Utime.Nano() + children.Stime.Nano())
	}
	start := cpu()
	for b.Loop() {
		versions.Clear()
		parsed.Lock()
		clear(parsed.m)
		parsed.Unlock()
		if _, err := g.Open(ctx, dir); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(cpu()-start)/float64(time.Millisecond)/float64(b.N), "cpu-ms/op")
}
