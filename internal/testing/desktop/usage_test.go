package desktop

import (
	"errors"
	"fmt"
	"image"
	"path/filepath"
	"testing"
	"time"

	"gonum.org/v1/plot/plotutil"

	"github.com/segwi/segwi/internal/testing/await"
	"github.com/segwi/segwi/internal/testing/records"
	"github.com/segwi/segwi/runs"
)

// TestTheUsageWindowChartsTheRunsAndOpensOne opens "Usage…" from the tray menu in the
// tray app: the window's chart is drawn in it (the first repository's colour shows), and a
// click on a line of its costliest runs opens that run's window.
func TestTheUsageWindowChartsTheRunsAndOpensOne(t *testing.T) {
	t.Parallel() // one at a time on the test desktop: see desktopMu
	conn := needDesktop(t)
	shots := screenshotDir(t)
	bin := buildSegwi(t)

	env, checkout, stateDir := recordsOnly(t)
	now := time.Now()
	for i := range 10 { // ten costly runs: the list is full, any line opens a run
		created := now.Add(-time.Duration(i) * 26 * time.Hour)
		records.WriteRun(t, stateDir, runs.Info{ID: fmt.Sprintf("20250314-0926%02d-d0e5f1", i), Kind: runs.KindBuild, Checkout: checkout,
			Prompt: fmt.Sprintf("Costly task %d", i), State: runs.StateSucceeded, Created: created, Start: created, End: created.Add(time.Minute),
			CostUSD: float64(10 - i), Usage: &runs.RunUsage{Usage: runs.Usage{InputTokens: 1000, CostUSD: float64(10 - i)}, Turns: 1}})
	}

	app := launchTray(t, bin, env.Vars(), filepath.Join(shots, "segwi-usage.log"))
	tr, _ := waitForTray(t, conn, app.cmd.Process.Pid, app.launched, 30*time.Second)
	tr.click(t, "Usage…")
	win := waitForWindow(t, "segwi: usage", windowWait)
	bar := plotutil.Color(0) // the one repository's bars
	await.For(t, windowWait, "the chart's bars in the Usage window", func() error {
		img, err := windowImage(t, win)
		if err != nil {
			return err
		}
		if n := countNear(img, bar); n < 100 {
			return fmt.Errorf("%d pixels of the bars' colour", n)
		}
		return nil
	})
	screenshot(t, shots, "usage-window")

	_, _, _, h := windowGeometry(t, win)
	y := h * 3 / 4
	await.For(t, windowWait, "a run's window, opened from its line in the Usage window", func() error {
		if out, _ := xdotool(t, "search", "--onlyvisible", "--name", "^Costly task [0-9] · build run in "); out != "" {
			return nil
		}
		clickAt(t, win, 300, y) // a line of the costliest runs, under the chart
		y += 20
		if y > h-10 {
			y = h * 3 / 4
		}
		return errors.New("clicked a line of the costliest runs; no run window yet")
	})
}

// countNear counts img's pixels near c.
func countNear(img image.Image, c interface{ RGBA() (r, g, b, a uint32) }) int {
	n := 0
	b := img.Bounds()
	for y := b.Min.Y; y < b.Max.Y; y++ {
		for x := b.Min.X; x < b.Max.X; x++ {
			if near(img.At(x, y), c, 3) {
				n++
			}
		}
	}
	return n
}
