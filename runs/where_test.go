package runs

import (
	"context"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/segwi/segwi/internal/testing/await"
	"github.com/segwi/segwi/internal/testing/claudetest"
	"github.com/segwi/segwi/runs/worktree"
)

// repoCheckout is a checkout with a commit, its links resolved, as a worktree is made from.
func repoCheckout(t *testing.T) string {
	t.Helper()
	dir, err := filepath.EvalSymlinks(claudetest.Checkout(t))
	if err != nil {
		t.Fatal(err)
	}
	return dir
}

// envOf returns the value of name in a start record's environment.
func envOf(rec startRecord, name string) string {
	for _, kv := range rec.Env {
		if k, v, ok := strings.Cut(kv, "="); ok && k == name {
			return v
		}
	}
	return ""
}

// Two build runs of one repository, each in a worktree of its own, work at the same time:
// each in its own folder on its own branch, with ports of its own, while the checkout
// stays as it was.
func TestBuildRunsInWorktreesOfOneRepositoryGoSideBySide(t *testing.T) {
	root := filepath.Join(t.TempDir(), "worktrees")
	m, recDir := testManager(t, func(c *Config) { c.WorktreeRoot = root })
	checkout := repoCheckout(t)
	head := claudetest.Git(t, checkout, "rev-parse", "HEAD")
	holdA, openA := release(t)
	holdB, openB := release(t)
	a := start(t, m, Spec{Kind: KindBuild, Checkout: checkout, Where: WhereWorktree, Prompt: "Add a footer fake:hold=" + holdA})
	b := start(t, m, Spec{Kind: KindBuild, Checkout: checkout, Where: WhereWorktree, Prompt: "Add a header fake:hold=" + holdB})
	recA, recB := waitStart(t, recDir, a.ID()), waitStart(t, recDir, b.ID())

	infoA, infoB := a.Info(), b.Info()
	for _, c := range []struct {
		info Info
		rec  startRecord
		slug string
	}{{infoA, recA, "add-a-footer-fake-hold"}, {infoB, recB, "add-a-header-fake-hold"}} {
		w := c.info.Worktree
		if w == nil {
			t.Fatalf("run %s records no worktree", c.info.ID)
		}
		if c.rec.CWD != w.Path || c.info.Checkout != w.Path || filepath.Dir(filepath.Dir(w.Path)) != root {
			t.Errorf("run %s works in %s, records %s, its worktree is %s (root %s)", c.info.ID, c.rec.CWD, c.info.Checkout, w.Path, root)
		}
		if !strings.HasPrefix(w.Branch, "segwi/"+c.slug) || w.Commit != head || w.Repository != checkout {
			t.Errorf("run %s's worktree = %+v", c.info.ID, w)
		}
		if got := claudetest.Git(t, w.Path, "rev-parse", "--abbrev-ref", "HEAD"); got != w.Branch {
			t.Errorf("the worktree is on %q, want %q", got, w.Branch)
		}
		if c.info.Base == nil || c.info.Base.Branch != w.Branch {
			t.Errorf("run %s's base = %+v, want on %s", c.info.ID, c.info.Base, w.Branch)
		}
		if p := c.info.Ports; p == nil || envOf(c.rec, "SEGWI_PORT") != strconv.Itoa(p.First) || envOf(c.rec, "SEGWI_PORT_COUNT") != "10" {
			t.Errorf("run %s's ports: recorded %+v, in its environment %q/%q", c.info.ID, p, envOf(c.rec, "SEGWI_PORT"), envOf(c.rec, "SEGWI_PORT_COUNT"))
		}
		if s := SummaryOf(c.info); s.Repository != checkout || s.Branch != w.Branch || s.Worktree != w.Path {
			t.Errorf("run %s's summary = %+v", c.info.ID, s)
		}
	}
	if infoA.Worktree.Path == infoB.Worktree.Path || infoA.Worktree.Branch == infoB.Worktree.Branch {
		t.Errorf("the runs share a worktree: %+v, %+v", infoA.Worktree, infoB.Worktree)
	}
	if pa, pb := infoA.Ports, infoB.Ports; pa != nil && pb != nil && pa.First <= pb.Last() && pb.First <= pa.Last() {
		t.Errorf("the runs' ports overlap: %s and %s", pa, pb)
	}
	if got := claudetest.Git(t, checkout, "rev-parse", "--abbrev-ref", "HEAD"); got != "main" {
		t.Errorf("the checkout is on %q", got)
	}
	if st := claudetest.Status(t, checkout); st != "" {
		t.Errorf("the checkout changed:\n%s", st)
	}
	openA()
	openB()
	for _, r := range []*Run{a, b} {
		if info := wait(t, r); info.State != StateSucceeded {
			t.Errorf("run %s: %s (%s)", r.ID(), info.State, info.Reason)
		}
	}
	loaded, err := Load(m.config().StateDir, a.ID())
	if err != nil || loaded.Worktree == nil || loaded.Worktree.Path != infoA.Worktree.Path || loaded.Ports == nil {
		t.Errorf("run.json of %s: %+v, %v", a.ID(), loaded, err)
	}

	t.Run("continued in the same worktree", func(t *testing.T) {
		c, err := m.Continue(context.Background(), a.ID(), "fake:success", false, nil)
		if err != nil {
			t.Fatal(err)
		}
		info := wait(t, c)
		rec := waitStart(t, recDir, c.ID())
		if info.State != StateSucceeded || rec.CWD != infoA.Worktree.Path || info.Worktree == nil || *info.Worktree != *infoA.Worktree {
			t.Errorf("the continuing run: %s (%s) in %s, worktree %+v; want in %s", info.State, info.Reason, rec.CWD, info.Worktree, infoA.Worktree.Path)
		}
	})
}

// A repository whose settings make the worktree its default gets one for a build run
// with no choice, set up as they say: an ignored .env copied, its command run there with
// the run's environment and its output in the record. The person's choice of the
// checkout still wins, and an ask run works in the checkout.
func TestARepositorysWorktreeDefaultAndSetup(t *testing.T) {
	checkout := repoCheckout(t)
	os.WriteFile(filepath.Join(checkout, ".gitignore"), []byte(".env\n"), 0o644)
	claudetest.Git(t, checkout, "add", ".gitignore")
	claudetest.Git(t, checkout, "commit", "-qm", "ignore .env")
	os.WriteFile(filepath.Join(checkout, ".env"), []byte("API_KEY=local\n"), 0o600)
	m, recDir := testManager(t, func(c *Config) {
		c.WorktreeRoot = filepath.Join(t.TempDir(), "worktrees")
		c.Repositories = []Repository{{Path: checkout, Name: "web", Worktree: true, Setup: worktree.Setup{
			Copy: []string{".env"}, Run: `echo "setup in $(pwd) with port $SEGWI_PORT"; grep -q API_KEY .env`}}}
	})

	r := start(t, m, Spec{Kind: KindBuild, Checkout: checkout, Prompt: "fake:success"})
	info := wait(t, r)
	if info.State != StateSucceeded || info.Worktree == nil {
		t.Fatalf("run: %s (%s), worktree %+v", info.State, info.Reason, info.Worktree)
	}
	if b, _ := os.ReadFile(filepath.Join(info.Worktree.Path, ".env")); string(b) != "API_KEY=local\n" {
		t.Errorf(".env in the worktree = %q", b)
	}
	var said []string
	for _, e := range events(t, m, r.ID()) {
		if e.Type == EventSetup {
			said = append(said, e.Subtype+": "+e.Text)
		}
	}
	want := "output: setup in " + info.Worktree.Path + " with port " + strconv.Itoa(info.Ports.First)
	if joined := strings.Join(said, "\n"); !strings.Contains(joined, "copied .env") || !strings.Contains(joined, want) || !strings.Contains(joined, "done: ") {
		t.Errorf("the record's setup lacks the copy, %q or its end:\n%s", want, joined)
	}
	if rec := waitStart(t, recDir, r.ID()); rec.CWD != info.Worktree.Path {
		t.Errorf("the agent ran in %s", rec.CWD)
	}

	for _, spec := range []Spec{
		{Kind: KindBuild, Checkout: checkout, Where: WhereCheckout, Prompt: "fake:success"},
		{Kind: KindAsk, Checkout: checkout, Prompt: "fake:success"},
	} {
		r := start(t, m, spec)
		info := wait(t, r)
		if rec := waitStart(t, recDir, r.ID()); info.Worktree != nil || rec.CWD != checkout {
			t.Errorf("%s run (where %q): worktree %+v, ran in %s; want the checkout", spec.Kind, spec.Where, info.Worktree, rec.CWD)
		}
	}
}

// A failing setup fails the run before its agent starts, saying what the command printed,
// and leaves the worktree to look at.
func TestAFailingSetupFailsTheRunAndLeavesTheWorktree(t *testing.T) {
	checkout := repoCheckout(t)
	m, recDir := testManager(t, func(c *Config) {
		c.WorktreeRoot = filepath.Join(t.TempDir(), "worktrees")
		c.Repositories = []Repository{{Path: checkout, Name: "web", Setup: worktree.Setup{Run: "echo installing; echo 'npm ERR! no package.json' >&2; exit 4"}}}
	})
	r := start(t, m, Spec{Kind: KindBuild, Checkout: checkout, Where: WhereWorktree, Prompt: "fake:success"})
	info := wait(t, r)
	if info.State != StateFailed || !strings.Contains(info.Reason, "code 4") || !strings.Contains(info.Reason, "npm ERR! no package.json") || info.Worktree == nil || !strings.Contains(info.Reason, info.Worktree.Path) {
		t.Fatalf("run: %s (%s), worktree %+v", info.State, info.Reason, info.Worktree)
	}
	if _, err := os.Stat(filepath.Join(info.Worktree.Path, "hello.txt")); err != nil {
		t.Errorf("the worktree is not left: %v", err)
	}
	if _, ok := readStart(t, recDir, r.ID()); ok {
		t.Error("the agent started after the setup failed")
	}

	t.Run("a stop ends a setup that hangs", func(t *testing.T) {
		m.SetConfig(Config{Runtime: m.config().Runtime, Env: m.config().Env, WorktreeRoot: m.config().WorktreeRoot, StopGrace: time.Second,
			Repositories: []Repository{{Path: checkout, Setup: worktree.Setup{Run: "echo waiting && sleep 60 && echo never"}}}})
		r := start(t, m, Spec{Kind: KindBuild, Checkout: checkout, Where: WhereWorktree, Prompt: "fake:success"})
		waitEvent(t, m, r.ID(), func(e Event) bool { return e.Type == EventSetup && e.Text == "waiting" })
		begun := time.Now()
		r.Stop()
		info := wait(t, r)
		if info.State != StateStopped || time.Since(begun) > 5*time.Second {
			t.Errorf("stopped during its setup: %s (%s) after %s", info.State, info.Reason, time.Since(begun))
		}
	})
}

// waitEvent waits until run id's record holds an event ok accepts.
func waitEvent(t *testing.T, m *Manager, id string, ok func(Event) bool) {
	t.Helper()
	await.For(t, 10*time.Second, "an event of run "+id, func() bool {
		for _, e := range events(t, m, id) {
			if ok(e) {
				return true
			}
		}
		return false
	})
}

// The worktree a run works in now is not removed; once the run ended, it is, and the run's
// record says so.
func TestRemovingALiveRunsWorktreeIsRefused(t *testing.T) {
	root := filepath.Join(t.TempDir(), "worktrees")
	m, recDir := testManager(t, func(c *Config) { c.WorktreeRoot = root })
	checkout := repoCheckout(t)
	hold, open := release(t)
	r := start(t, m, Spec{Kind: KindBuild, Checkout: checkout, Where: WhereWorktree, Prompt: "fake:hold=" + hold})
	waitStart(t, recDir, r.ID())
	state := m.config().StateDir
	if _, err := m.RemoveWorktree(context.Background(), r.ID(), worktree.RemoveOptions{Force: true}); err == nil || !strings.Contains(err.Error(), "works in it now") {
		t.Errorf("RemoveWorktree of a live run's worktree = %v", err)
	}
	w := r.Info().Worktree
	if _, err := os.Stat(w.Path); err != nil {
		t.Fatalf("the live run's worktree went: %v", err)
	}
	open()
	wait(t, r)
	done, err := m.RemoveWorktree(context.Background(), r.ID(), worktree.RemoveOptions{DeleteBranch: true})
	if err != nil || !done.Folder || !done.BranchDeleted {
		t.Fatalf("RemoveWorktree once it ended = %+v, %v", done, err)
	}
	var said string
	for _, e := range events(t, m, r.ID()) {
		if e.Type == EventWorktree && e.Subtype == "removed" {
			said = e.Text
		}
	}
	if !strings.Contains(said, "removed "+w.Path+" and its branch "+w.Branch) {
		t.Errorf("the record says %q", said)
	}
	if _, err := m.Continue(context.Background(), r.ID(), "fake:success", false, nil); err == nil || !strings.Contains(err.Error(), "its worktree "+w.Path+" was removed") {
		t.Errorf("continuing a run whose worktree was removed = %v", err)
	}
	entries, err := Worktrees(context.Background(), state, true)
	if err != nil || len(entries) != 1 || entries[0].Exists || entries[0].Live != "" {
		t.Errorf("Worktrees = %+v, %v", entries, err)
	}
}

// The remote whose branches say what a worktree's branch pushed is its repository's,
// however the settings spell the checkout's path (the CLI compared paths by hand and
// took origin for a repository configured through a symlink), and origin for a checkout
// no repository names.
func TestRemoteOfFindsTheRepositoryThroughASymlink(t *testing.T) {
	checkout := t.TempDir()
	link := filepath.Join(t.TempDir(), "link")
	if err := os.Symlink(checkout, link); err != nil {
		t.Fatal(err)
	}
	real, err := filepath.EvalSymlinks(checkout)
	if err != nil {
		t.Fatal(err)
	}
	repos := []Repository{{Path: link + "/", Remote: "upstream"}}
	if got := RemoteOf(repos, real); got != "upstream" {
		t.Errorf("the remote of a repository configured through a symlink = %q, want upstream", got)
	}
	if got := RemoteOf(repos, t.TempDir()); got != "origin" {
		t.Errorf("the remote of an unconfigured checkout = %q, want origin", got)
	}
	if got := RemoteOf([]Repository{{Path: real}}, real); got != "origin" {
		t.Errorf("the remote of a repository that names none = %q, want origin", got)
	}
}
