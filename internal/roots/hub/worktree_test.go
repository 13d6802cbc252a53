package hub_test

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/segwi/segwi/control"
	"github.com/segwi/segwi/internal/testing/await"
	"github.com/segwi/segwi/internal/testing/claudetest"
	"github.com/segwi/segwi/runs"
)

// A window starts a run in a new worktree and, once it ended, removes the worktree: the
// tray refuses while a file is changed there, saying which, and removes it when asked to
// anyway, with its branch.
func TestAWindowRemovesAnEndedRunsWorktree(t *testing.T) {
	claude := claudeScript(t, "read line\n"+
		`echo '{"type":"system","subtype":"init","session_id":"s","model":"m","permissionMode":"auto"}'`+"\n"+
		`echo '{"type":"result","subtype":"success","is_error":false,"num_turns":1,"total_cost_usd":0.01,"result":"done"}'`+"\n")
	checkout := claudetest.Checkout(t)
	h := newHarness(t, "segwi:\n  claude:\n    path: "+claude+"\n  repositories:\n    - name: web\n      path: "+checkout+"\n      worktree: true\n", options{})
	ctx := context.Background()
	if err := h.hub.Show(ctx, control.Show{Window: control.ShowHistory}); err != nil {
		t.Fatal(err)
	}
	w := h.windows.window(t, 1)
	id, err := w.client.Start(ctx, runs.Spec{Kind: runs.KindBuild, Checkout: checkout, Prompt: "do it"})
	if err != nil {
		t.Fatalf("Start: %v", err)
	}
	// The window (and the remote page, sent the same runs) names the run by its
	// repository, not by its worktree's folder.
	await.For(t, within, "the run as the window is told it", func() bool {
		for {
			select {
			case b := <-w.events:
				if r, ok := b.(control.Run); ok && r.ID == id {
					if r.Name != "web" {
						t.Errorf("the window is told of the worktree run as %q, want web", r.Name)
					}
					return true
				}
			default:
				return false
			}
		}
	})
	await.For(t, within, "the run to end", func() bool { return h.core.Get(id) == nil })
	made, err := runs.Load(h.core.StateDir(), id)
	if err != nil || made.Worktree == nil {
		t.Fatalf("the run's record: %+v, %v", made, err)
	}
	wt := made.Worktree
	if loss, err := w.client.InspectWorktree(ctx, id); err != nil || len(loss.Changed) != 0 || loss.Pushed || loss.BranchHead == "" {
		t.Errorf("InspectWorktree of a clean worktree = %+v, %v", loss, err)
	}
	os.WriteFile(filepath.Join(wt.Path, "hello.txt"), []byte("changed\n"), 0o644)
	// The window asks before it removes: the tray says what would be lost, and removes nothing.
	if loss, err := w.client.InspectWorktree(ctx, id); err != nil || !slices.Equal(loss.Changed, []string{" M hello.txt"}) {
		t.Errorf("InspectWorktree of a worktree with a changed file = %+v, %v", loss, err)
	}
	if _, err := os.Stat(wt.Path); err != nil {
		t.Errorf("the worktree is gone after it was only inspected: %v", err)
	}
	if _, err := w.client.RemoveWorktree(ctx, control.RemoveWorktree{Run: id, DeleteBranch: true}); err == nil || !strings.Contains(err.Error(), "hello.txt") {
		t.Errorf("removing a worktree with a changed file = %v", err)
	}
	words, err := w.client.RemoveWorktree(ctx, control.RemoveWorktree{Run: id, DeleteBranch: true, Force: true})
	if err != nil || words != "Removed the worktree "+wt.Path+" and its branch "+wt.Branch+"." {
		t.Errorf("RemoveWorktree --force = %q, %v", words, err)
	}
	if _, err := os.Stat(wt.Path); err == nil {
		t.Error("the worktree is still there")
	}
}
