package desktop

import (
	"context"
	"errors"
	"fmt"
	"image"
	"image/color"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/segwi/segwi/internal/lib/gitcmd"
	"github.com/segwi/segwi/internal/testing/await"
	"github.com/segwi/segwi/internal/testing/claudetest"
	"github.com/segwi/segwi/internal/testing/records"
	"github.com/segwi/segwi/runs"
	"github.com/segwi/segwi/runs/worktree"
)

// TestTheRunWindowRemovesAWorktree removes an ended run's worktree from its run window in
// the tray app, with the keyboard as a person can: the window's last button is Remove
// worktree…, its dialog's last is the removal. With a file changed in the worktree the
// window asks first and Cancel leaves it; once clean, the worktree goes, with its branch
// left (the branch is deleted only when ticked).
func TestTheRunWindowRemovesAWorktree(t *testing.T) {
	t.Parallel() // one at a time on the test desktop: see desktopMu
	conn := needDesktop(t)
	shots := screenshotDir(t)
	bin := buildSegwi(t)

	env, checkout, stateDir := recordsOnly(t)
	root, err := worktree.Root(env.Vars())
	if err != nil {
		t.Fatal(err)
	}
	id := "20250314-092653-d0e5f1"
	made, err := worktree.Make(context.Background(), gitcmd.New("", "", env.Vars()), worktree.Plan{Root: root, Repository: checkout, Name: "demo",
		Remote: "origin", RunID: id, Task: "Greet the reader", Kind: string(runs.KindBuild)})
	if err != nil {
		t.Fatal(err)
	}
	start := time.Now().Add(-time.Hour)
	records.WriteRun(t, stateDir, runs.Info{ID: id, Kind: runs.KindBuild, Checkout: made.Path, Prompt: "Greet the reader", Worktree: &made,
		State: runs.StateSucceeded, Created: start, Start: start, End: start.Add(time.Minute)})
	writeFile(t, filepath.Join(made.Path, "hello.txt"), "changed and not committed\n")

	app := launchTray(t, bin, env.Vars(), filepath.Join(shots, "segwi-worktree.log"))
	tr, _ := waitForTray(t, conn, app.cmd.Process.Pid, app.launched, 30*time.Second)
	tr.click(t, "Run history…")
	history := waitForWindow(t, "segwi: run history", windowWait)
	const title = "^Greet the reader · build run in demo$"
	var runWin string
	y := 90
	await.For(t, windowWait, "the run's window, opened from its line in the history", func() error {
		if ids := shownWindows(t, title); len(ids) > 0 {
			runWin = ids[0]
			return nil
		}
		clickAt(t, history, 200, y) // the first line, under the search box and the note
		y = 90 + (y-90+20)%80
		return errors.New("clicked the history's first line; no run window yet")
	})
	runWin = waitForWindow(t, title, windowWait)

	// press presses keys in the run window.
	press := func(keys ...string) {
		t.Helper()
		if out, err := xdotool(t, "windowfocus", "--sync", runWin); err != nil {
			t.Fatalf("focusing the run window: %v: %s", err, out)
		}
		for _, k := range keys {
			if out, err := xdotool(t, "key", k); err != nil {
				t.Fatalf("pressing %s: %v: %s", k, err, out)
			}
		}
	}
	// corner is the colour of the window's top left corner: a dialog's shade changes it.
	corner := func() (color.Color, error) {
		img, err := windowImage(t, runWin)
		if err != nil {
			return nil, err
		}
		return img.At(img.Bounds().Min.X+4, img.Bounds().Min.Y+4), nil
	}
	plain, err := corner()
	if err != nil {
		t.Fatal(err)
	}
	shaded := func() bool {
		c, err := corner()
		return err == nil && !near(c, plain, 3)
	}
	// still is the run window once it holds still: two screenshots alike.
	still := func() image.Image {
		t.Helper()
		var last, img image.Image
		await.For(t, windowWait, "the run window to hold still", func() error {
			var err error
			if img, err = windowImage(t, runWin); err != nil {
				return err
			}
			if last != nil && changedBox(last, img).Empty() {
				return nil
			}
			last = img
			return errors.New("the run window changed between two screenshots")
		})
		return img
	}
	// askRemove gives Remove worktree…, the window's bottom right button, the keyboard's
	// focus, presses it, and waits for its dialog to shade the window. The button is off
	// until the window has looked for the folder, and while it looks at what removing
	// would lose; shift+Tab then focuses another button. So space is pressed only once the
	// screen shows the focus on the bottom right button: a blind press would press
	// whatever else had the focus.
	askRemove := func() {
		t.Helper()
		await.For(t, windowWait, "Remove worktree… to take the keyboard's focus", func() error {
			clickAt(t, runWin, 400, 12) // on the title: nothing has the keyboard
			before := still()
			press("shift+Tab")
			after := still()
			box, b := changedBox(before, after), after.Bounds()
			if box.Empty() {
				return errors.New("shift+Tab changed nothing in the window")
			}
			if b.Max.X-box.Max.X > 40 || box.Min.Y < b.Min.Y+b.Dy()/2 {
				return fmt.Errorf("shift+Tab changed the window at %v of %v, not its bottom right button (Remove worktree… is still off)", box, b)
			}
			return nil
		})
		press("space")
		await.For(t, windowWait, "Remove worktree…'s dialog", shaded)
	}

	askRemove()
	screenshot(t, shots, "remove-worktree-dirty")
	press("shift+Tab", "shift+Tab", "space") // Cancel, left of Remove anyway
	await.For(t, 30*time.Second, "the dialog to close", func() bool { return !shaded() })
	if _, err := os.Stat(filepath.Join(made.Path, "hello.txt")); err != nil {
		t.Fatalf("the worktree with a file changed was removed without a yes: %v", err)
	}

	claudetest.Git(t, made.Path, "checkout", "--", "hello.txt")
	askRemove()
	screenshot(t, shots, "remove-worktree-clean")
	press("shift+Tab", "space") // Remove
	await.For(t, 30*time.Second, "the worktree's folder to go", func() bool {
		_, err := os.Stat(made.Path)
		return os.IsNotExist(err)
	})
	if out := claudetest.Git(t, checkout, "branch", "--list", made.Branch); out == "" {
		t.Errorf("the branch %s went, though its deletion was not ticked", made.Branch)
	}
	app.terminate(t)
}

// changedBox is the smallest rectangle that holds every pixel in which a and b, two
// screenshots of one window, differ; empty when they are alike. When the window changed
// size, it is the whole of both.
func changedBox(a, b image.Image) image.Rectangle {
	var box image.Rectangle
	if a.Bounds() != b.Bounds() {
		return a.Bounds().Union(b.Bounds())
	}
	r := a.Bounds()
	for y := r.Min.Y; y < r.Max.Y; y++ {
		for x := r.Min.X; x < r.Max.X; x++ {
			if !near(a.At(x, y), b.At(x, y), 0) {
				box = box.Union(image.Rect(x, y, x+1, y+1))
			}
		}
	}
	return box
}
