package app

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"fyne.io/fyne/v2/test"

	"github.com/segwi/segwi/internal/lib/gitcmd"
	"github.com/segwi/segwi/internal/testing/await"
	"github.com/segwi/segwi/internal/testing/claudetest"
	"github.com/segwi/segwi/internal/testing/records"
	"github.com/segwi/segwi/runs"
	"github.com/segwi/segwi/runs/worktree"
)

// fakeRemover says loss of every worktree and records the removals asked.
type fakeRemover struct {
	mu      sync.Mutex
	loss    worktree.Loss
	removes []string // "deleteBranch=… force=…"
}

func (r *fakeRemover) InspectWorktree(context.Context, string) (worktree.Loss, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.loss, nil
}

func (r *fakeRemover) RemoveWorktree(_ context.Context, _ string, deleteBranch, force bool) (string, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.removes = append(r.removes, fmt.Sprintf("deleteBranch=%v force=%v", deleteBranch, force))
	if deleteBranch {
		return "Removed the worktree W and its branch segwi/greet-5e1f00.", nil
	}
	return "Removed the worktree W; its branch segwi/greet-5e1f00 is kept.", nil
}

func (r *fakeRemover) asked() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]string(nil), r.removes...)
}

// worktreeRun is endedBuild, run in a worktree whose folder is a temporary folder.
func worktreeRun(t *testing.T) runs.Info {
	info := endedBuild
	info.Worktree = &worktree.Worktree{Path: t.TempDir(), Branch: "segwi/greet-5e1f00", Repository: info.Checkout, MadeBy: info.ID}
	return info
}

// openRemoveDialog presses Remove worktree… and waits for its dialog.
func openRemoveDialog(t *testing.T, w *runWindow) *removeForm {
	t.Helper()
	await.For(t, 10*time.Second, "Remove worktree… to be offered", func() bool { return w.wt.checked.Load() > 0 })
	var f *removeForm
	var off, shown bool
	ui(func() {
		off, shown = w.wt.button.Disabled(), w.wt.button.Visible()
		test.Tap(w.wt.button)
	})
	if off || !shown {
		t.Fatalf("Remove worktree… is off for an ended run whose worktree is there (disabled %v, shown %v)", off, shown)
	}
	await.For(t, 10*time.Second, "the dialog that asks", func() bool {
		onUIWait(func() { f = w.wt.form })
		return f != nil
	})
	return f
}

// A clean worktree: the dialog says nothing uncommitted is lost and offers to delete the
// branch, never pushed; once confirmed the window says what was removed and offers Remove
// no more.
func TestRunWindowRemovesACleanWorktree(t *testing.T) {
	rm := &fakeRemover{loss: worktree.Loss{BranchHead: "0123"}}
	w := recordWindow(t, worktreeRun(t), func(d *runWindowDeps) { d.remover = rm })
	f := openRemoveDialog(t, w)
	var text string
	ui(func() { text = f.text.Text })
	if !strings.Contains(text, "Nothing in it is uncommitted") || f.deleteBranch == nil || f.ok.Text != "Remove" {
		t.Fatalf("the dialog says %q, offers to delete the branch %v, its button %q", text, f.deleteBranch != nil, f.ok.Text)
	}
	ui(func() {
		f.deleteBranch.SetChecked(true)
		test.Tap(f.ok)
	})
	await.For(t, 10*time.Second, "the removal to be answered", func() bool { return w.wt.done.Load() > 0 })
	if got := rm.asked(); len(got) != 1 || got[0] != "deleteBranch=true force=false" {
		t.Errorf("removals asked = %q, want one deleting the branch, not forced", got)
	}
	ui(func() {
		if w.note.Text != "Removed the worktree W and its branch segwi/greet-5e1f00." || w.wt.button.Visible() {
			t.Errorf("after the removal the window says %q, offers Remove %v", w.note.Text, w.wt.button.Visible())
		}
	})
}

// A dirty, pushed worktree: the dialog names the file lost, offers to delete no branch, and
// Cancel removes nothing; Remove anyway forces the removal it named.
func TestRunWindowAsksBeforeRemovingADirtyWorktree(t *testing.T) {
	rm := &fakeRemover{loss: worktree.Loss{Changed: []string{" M hello.txt"}, Pushed: true, BranchHead: "0123"}}
	w := recordWindow(t, worktreeRun(t), func(d *runWindowDeps) { d.remover = rm })
	f := openRemoveDialog(t, w)
	var text string
	ui(func() { text = f.text.Text })
	if !strings.Contains(text, "Lost with it: 1 changed file not committed ( M hello.txt)") || !strings.Contains(text, "kept: it was pushed") ||
		f.deleteBranch != nil || f.ok.Text != "Remove anyway" {
		t.Fatalf("the dialog says %q, offers to delete the branch %v, its button %q", text, f.deleteBranch != nil, f.ok.Text)
	}
	ui(func() { test.Tap(f.cancel) })
	if got := rm.asked(); len(got) != 0 {
		t.Errorf("Cancel removed: %q", got)
	}
	ui(func() { w.wt.form = nil })
	f = openRemoveDialog(t, w)
	ui(func() { test.Tap(f.ok) })
	await.For(t, 10*time.Second, "the removal to be answered", func() bool { return w.wt.done.Load() > 0 })
	if got := rm.asked(); len(got) != 1 || got[0] != "deleteBranch=false force=true" {
		t.Errorf("removals asked = %q, want one forced, keeping the branch", got)
	}
}

// While the run is live Remove worktree… is off, saying why; once it ended it is on.
func TestRunWindowRefusesToRemoveALiveRunsWorktree(t *testing.T) {
	info := harnessInfo()
	info.Worktree = &worktree.Worktree{Path: t.TempDir(), Branch: "segwi/fix-login-abcd", Repository: info.Checkout, MadeBy: info.ID}
	rm := &fakeRemover{}
	h := newRunHarnessOf(t, info, 4, func(d *runWindowDeps) { d.remover = rm })
	ui(func() {
		if !h.w.wt.button.Disabled() || !h.w.wt.why.Visible() || h.w.wt.why.Text != removeWhileLive {
			t.Errorf("while the run is live Remove worktree… is disabled %v, says %q (shown %v)", h.w.wt.button.Disabled(), h.w.wt.why.Text, h.w.wt.why.Visible())
		}
		test.Tap(h.w.wt.button)
	})
	h.run.setInfo(func(i *runs.Info) { i.State, i.End = runs.StateSucceeded, runT0.Add(5*time.Minute) })
	close(h.run.events)
	await.For(t, 10*time.Second, "Remove worktree… to be offered", func() bool { return h.w.wt.checked.Load() > 0 })
	ui(func() {
		if h.w.wt.button.Disabled() || h.w.wt.why.Visible() {
			t.Errorf("once the run ended Remove worktree… is disabled %v, says %q", h.w.wt.button.Disabled(), h.w.wt.why.Text)
		}
	})
	if got := rm.asked(); len(got) != 0 {
		t.Errorf("a press while the run was live removed: %q", got)
	}
}

// madeWorktreeRun records an ended build run that worked in a worktree made for it, for
// real, from a checkout, in the worktrees folder of a tray whose environment env names;
// it returns the tray's link, over a real hub and socket pair, and the run.
func madeWorktreeRun(t *testing.T) (*trayLink, runs.Info) {
	t.Helper()
	data := t.TempDir()
	env := []string{"PATH=" + os.Getenv("PATH"), "HOME=" + t.TempDir(), "XDG_DATA_HOME=" + data}
	root, err := worktree.Root(env)
	if err != nil {
		t.Fatal(err)
	}
	checkout := claudetest.Checkout(t)
	id := "20250314-092653-d0e5f1"
	made, err := worktree.Make(context.Background(), gitcmd.New("", "", env), worktree.Plan{Root: root, Repository: checkout, Name: "web",
		Remote: "origin", RunID: id, Task: "Greet the reader", Kind: string(runs.KindBuild)})
	if err != nil {
		t.Fatal(err)
	}
	state := t.TempDir()
	info := runs.Info{ID: id, Kind: runs.KindBuild, Checkout: made.Path, Prompt: "Greet the reader", Worktree: &made,
		State: runs.StateSucceeded, Created: runT0, Start: runT0, End: runT0.Add(time.Minute)}
	records.WriteRun(t, state, info)
	return trayOverEnv(t, state, env), info
}

// Through the tray, for real: the run window removes a clean worktree and its branch,
// never pushed, once asked; of a worktree with a file changed it names the file, and
// Cancel leaves it as it is.
func TestRunWindowRemovesAWorktreeThroughTheTray(t *testing.T) {
	link, info := madeWorktreeRun(t)
	wt := info.Worktree
	if err := os.WriteFile(filepath.Join(wt.Path, "hello.txt"), []byte("changed\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	w := recordWindow(t, info, func(d *runWindowDeps) { d.remover = link })
	f := openRemoveDialog(t, w)
	var text, ok string
	ui(func() { text, ok = f.text.Text, f.ok.Text })
	if !strings.Contains(text, " M hello.txt") || ok != "Remove anyway" || f.deleteBranch == nil {
		t.Errorf("of a worktree with hello.txt changed the dialog says %q, its button %q, offers to delete the branch %v", text, ok, f.deleteBranch != nil)
	}
	ui(func() { test.Tap(f.cancel) })
	if _, err := os.Stat(filepath.Join(wt.Path, "hello.txt")); err != nil {
		t.Fatalf("Cancel removed the worktree: %v", err)
	}

	claudetest.Git(t, wt.Path, "checkout", "--", "hello.txt")
	ui(func() { w.wt.form = nil })
	f = openRemoveDialog(t, w)
	ui(func() { text, ok = f.text.Text, f.ok.Text })
	if !strings.Contains(text, "Nothing in it is uncommitted") || ok != "Remove" || f.deleteBranch == nil {
		t.Fatalf("of a clean worktree the dialog says %q, its button %q, offers to delete the branch %v", text, ok, f.deleteBranch != nil)
	}
	ui(func() {
		f.deleteBranch.SetChecked(true)
		test.Tap(f.ok)
	})
	await.For(t, 30*time.Second, "the removal to be answered", func() bool { return w.wt.done.Load() > 0 })
	var note string
	ui(func() { note = w.note.Text })
	if want := "Removed the worktree " + wt.Path + " and its branch " + wt.Branch + "."; note != want {
		t.Errorf("after the removal the window says %q, want %q", note, want)
	}
	if _, err := os.Stat(wt.Path); !os.IsNotExist(err) {
		t.Errorf("the worktree's folder is still there: %v", err)
	}
	if out := claudetest.Git(t, wt.Repository, "branch", "--list", wt.Branch); strings.TrimSpace(out) != "" {
		t.Errorf("the branch is still there: %q", out)
	}
}
