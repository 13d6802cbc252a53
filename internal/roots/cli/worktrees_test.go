package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/segwi/segwi/internal/testing/claudetest"
	"github.com/segwi/segwi/runs"
)

// segwi run --worktree works in a worktree of the run's own; segwi worktrees lists it,
// refuses to remove one holding uncommitted work, and removes a clean one with its
// never-pushed branch.
func TestRunInAWorktreeAndRemoveIt(t *testing.T) {
	home := isolate(t)
	cfg := runConfig(t, "")
	checkout, err := filepath.EvalSymlinks(claudetest.Checkout(t))
	if err != nil {
		t.Fatal(err)
	}
	state := filepath.Join(home, "state", "segwi")
	startIn := func(args ...string) runs.Info {
		t.Helper()
		r := segwi(t, "", append([]string{"--config", cfg, "run", "--checkout", checkout}, args...)...)
		if r.code != 0 {
			t.Fatalf("segwi run %q: exit %d\n%s", args, r.code, r.stderr)
		}
		in, err := runs.Load(state, runIDLine(r.stderr))
		if err != nil {
			t.Fatal(err)
		}
		if in.Worktree != nil && !strings.Contains(r.stderr, "works in a git worktree of its own; segwi worktrees remove "+in.ID) {
			t.Errorf("segwi run does not say the run works in a worktree:\n%s", r.stderr)
		}
		return in
	}
	dirty := startIn("--worktree", "fake:success")
	clean := startIn("--worktree", "fake:success")
	inCheckout := startIn("fake:success")
	root := filepath.Join(home, "data", "segwi", "worktrees")
	for _, in := range []runs.Info{dirty, clean} {
		if in.Worktree == nil || filepath.Dir(filepath.Dir(in.Checkout)) != root || in.Checkout != in.Worktree.Path {
			t.Fatalf("run %s worked in %s, worktree %+v; want one under %s", in.ID, in.Checkout, in.Worktree, root)
		}
	}
	if inCheckout.Worktree != nil || inCheckout.Checkout != checkout {
		t.Errorf("a run without --worktree worked in %s", inCheckout.Checkout)
	}
	if r := segwi(t, "", "--config", cfg, "run", "--checkout", checkout, "--kind", "ask", "--worktree", "why?"); r.code != 2 || !strings.Contains(r.stderr, "leave out --worktree") {
		t.Errorf("an ask run in a worktree: exit %d\n%s", r.code, r.stderr)
	}

	if r := segwi(t, "", "runs", "show", dirty.ID); !strings.Contains(r.stdout, dirty.Worktree.Path+" on "+dirty.Worktree.Branch+", from ") || !strings.Contains(r.stdout, "(still there)") || !strings.Contains(r.stdout, "ports") {
		t.Errorf("runs show does not say where the run worked:\n%s", r.stdout)
	}
	r := segwi(t, "", "worktrees", "list")
	for _, want := range []string{dirty.ID, clean.Worktree.Branch, dirty.Worktree.Path, "kept"} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("worktrees list lacks %q:\n%s", want, r.stdout)
		}
	}
	if strings.Contains(r.stdout, inCheckout.ID) {
		t.Errorf("worktrees list names the run in the checkout:\n%s", r.stdout)
	}

	os.WriteFile(filepath.Join(dirty.Worktree.Path, "hello.txt"), []byte("the run's unsaved work\n"), 0o644)
	r = segwi(t, "", "--config", cfg, "worktrees", "remove", dirty.ID)
	if r.code != 1 || !strings.Contains(r.stderr, "hello.txt") || !strings.Contains(r.stderr, "--force") {
		t.Errorf("remove of a dirty worktree: exit %d\n%s", r.code, r.stderr)
	}
	if b, _ := os.ReadFile(filepath.Join(dirty.Worktree.Path, "hello.txt")); string(b) != "the run's unsaved work\n" {
		t.Errorf("the refused remove lost the work: %q", b)
	}

	r = segwi(t, "", "--config", cfg, "worktrees", "remove", "--delete-branch", clean.ID)
	if r.code != 0 || !strings.Contains(r.stdout, "and its branch "+clean.Worktree.Branch+".") {
		t.Errorf("remove of a clean worktree: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	if _, err := os.Stat(clean.Worktree.Path); err == nil {
		t.Error("the clean worktree is still there")
	}
	if got := claudetest.Git(t, checkout, "branch", "--list", clean.Worktree.Branch); got != "" {
		t.Errorf("its branch is left: %s", got)
	}
	if got := claudetest.Git(t, checkout, "worktree", "list"); strings.Contains(got, clean.Worktree.Path) {
		t.Errorf("git still lists it:\n%s", got)
	}

	r = segwi(t, "", "--config", cfg, "worktrees", "remove", "--force", dirty.ID)
	if r.code != 0 {
		t.Errorf("remove --force: exit %d\n%s", r.code, r.stderr)
	}
	if r := segwi(t, "", "worktrees", "list"); !strings.Contains(r.stdout, "removed") {
		t.Errorf("worktrees list after the removals:\n%s", r.stdout)
	}
	if r := segwi(t, "", "--config", cfg, "worktrees", "remove", inCheckout.ID); r.code != 1 || !strings.Contains(r.stderr, "not in a worktree of its own") {
		t.Errorf("remove of a run in the checkout: exit %d\n%s", r.code, r.stderr)
	}
}
