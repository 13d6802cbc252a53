package app

import (
	"bytes"
	"errors"
	"fmt"
	"image"
	"image/color"
	"image/png"
	"os"
	"path/filepath"
	"testing"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/test"
	"fyne.io/fyne/v2/theme"
	"github.com/google/go-cmp/cmp"

	"github.com/segwi/segwi/internal/testing/await"
	"github.com/segwi/segwi/internal/testing/measure"
	"github.com/segwi/segwi/internal/testing/records"
	"github.com/segwi/segwi/runs"
	"github.com/segwi/segwi/settings"
)

// openUsage opens the Usage window over state at now, as the desk does, on Fyne's
// goroutine, and waits until it shows the figures it computed and their chart.
func openUsage(t *testing.T, a fyne.App, state string, repos func() []settings.Repository, open func(string), now time.Time) *usageWindow {
	t.Helper()
	var u *usageWindow
	closed := false
	ui(func() {
		u = newUsageWindow(a, state, repos, open, func() time.Time { return now })
		u.win.SetOnClosed(func() { closed = true })
		u.Show()
	})
	t.Cleanup(func() {
		ui(func() {
			if !closed {
				u.win.Close()
			}
		})
	})
	await.For(t, 30*time.Second, "the Usage window to show its figures and chart", func() bool {
		var done bool
		ui(func() { done = u.shown == u.reads && u.chart.draws > 0 && u.chart.shown == u.chart.draws })
		return done
	})
	return u
}

// usageState writes runs over the last days of now: in web, api and three small
// repositories, one too old to count, one dated tomorrow (a clock set back), one recorded
// before segwi kept usage.
func usageState(t *testing.T, state string, now time.Time) (web, api string) {
	t.Helper()
	web, api = "/home/ada/src/web", "/home/ada/src/api"
	n := 0
	write := func(daysAgo int, checkout, task string, u *runs.Usage, cost float64) string {
		n++
		info := runs.Info{ID: fmt.Sprintf("r%02d", n), Kind: runs.KindBuild, Checkout: checkout, Prompt: task,
			State: runs.StateSucceeded, Created: now.AddDate(0, 0, -daysAgo), CostUSD: cost}
		if u != nil {
			info.Usage = &runs.RunUsage{Usage: *u, Turns: 1}
			info.CostUSD = u.CostUSD
		}
		return records.WriteRun(t, state, info)
	}
	write(30, web, "too old", &runs.Usage{InputTokens: 9, CostUSD: 50}, 0)
	write(0, web, "fix the login", &runs.Usage{InputTokens: 1000, OutputTokens: 234, CostUSD: 3}, 0)
	write(1, web, "add tests", &runs.Usage{InputTokens: 10, CostUSD: 1}, 0)
	write(1, api, "old style", nil, 2.5)
	write(29, api, "first day", &runs.Usage{OutputTokens: 5, CostUSD: 0.5}, 0)
	for i, r := range []string{"a", "b", "c", "d"} {
		write(2, "/home/ada/src/"+r, "small "+r, &runs.Usage{InputTokens: 1, CostUSD: 0.1 * float64(4-i)}, 0)
	}
	write(-1, web, "dated tomorrow", &runs.Usage{InputTokens: 7, CostUSD: 40}, 0)
	return web, api
}

// computeUsage keeps the runs of the 30 days ending today: a series for each of the
// costliest repositories and one for the others, a day's cost where its runs started, and
// the costliest runs first.
func TestUsageSumsTheLast30DaysByRepository(t *testing.T) {
	state := t.TempDir()
	now := time.Date(2026, 12, 4, 15, 0, 0, 0, time.Local)
	web, _ := usageState(t, state, now)
	sums, _, err := runs.Summaries(state)
	if err != nil {
		t.Fatal(err)
	}
	v := computeUsage(sums, now, time.Local, []settings.Repository{{Name: "web", Path: web}})
	if len(v.Days) != 30 || v.Days[0].Format(time.DateOnly) != "2026-11-05" || v.Days[29].Format(time.DateOnly) != "2026-12-04" {
		t.Fatalf("the days run from %v to %v (%d), want 2026-11-05 to 2026-12-04", v.Days[0], v.Days[len(v.Days)-1], len(v.Days))
	}
	got := map[string][3]float64{} // the cost of each series 29, 2 and 1 days ago and today
	var names []string
	for _, s := range v.Series {
		names = append(names, s.Name)
		got[s.Name] = [3]float64{s.Cost[0], s.Cost[27] + s.Cost[28], s.Cost[29]}
	}
	if diff := cmp.Diff([]string{"web", "api", "a", "b", "other"}, names); diff != "" {
		t.Errorf("series (-want +got):\n%s", diff)
	}
	want := map[string][3]float64{"web": {0, 1, 3}, "api": {0.5, 2.5, 0},
		"a": {0, 0.4, 0}, "b": {0, 0.30000000000000004, 0}, "other": {0, 0.30000000000000004, 0}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("costs (-want +got):\n%s", diff)
	}
	if web := v.Series[0]; web.Tokens[29] != 1234 || web.Tokens[28] != 10 || v.Series[1].Tokens[28] != 0 {
		t.Errorf("the tokens of web today and yesterday and of api yesterday (recorded before usage) are %v, %v and %v; want 1234, 10 and 0",
			web.Tokens[29], web.Tokens[28], v.Series[1].Tokens[28])
	}
	if v.Total.Runs != 8 || v.Total.CostOnly != 1 {
		t.Errorf("the total counts %d runs, %d with their cost alone; want 8 and 1", v.Total.Runs, v.Total.CostOnly)
	}
	var top []string
	for _, s := range v.Top {
		top = append(top, s.Task)
	}
	if diff := cmp.Diff([]string{"fix the login", "old style", "add tests", "first day", "small a", "small b", "small c", "small d"}, top); diff != "" {
		t.Errorf("costliest runs (-want +got):\n%s", diff)
	}
}

// With runs on two runtimes, the bars stack by runtime too (Claude Code's named "claude",
// as `segwi usage --by runtime` names it), and the window offers the switch; with one, it
// does not.
func TestUsageStacksByRuntimeOnceThereAreSeveral(t *testing.T) {
	a := test.NewTempApp(t)
	state := t.TempDir()
	now := time.Now()
	web, _ := usageState(t, state, now)
	repos := func() []settings.Repository { return []settings.Repository{{Name: "web", Path: web}} }
	u := openUsage(t, a, state, repos, func(string) {}, now)
	var visible bool
	ui(func() { visible = u.group.Visible() })
	if visible {
		t.Error("with runs on one runtime the window offers to stack the bars by runtime")
	}
	ui(u.win.Close)

	records.WriteRun(t, state, runs.Info{ID: "r99", Kind: runs.KindBuild, Checkout: web, Prompt: "on gemini", Runtime: "gemini",
		State: runs.StateSucceeded, Created: now, Usage: &runs.RunUsage{Usage: runs.Usage{OutputTokens: 7, CostUSD: 0.25}, Turns: 1}, CostUSD: 0.25})
	u = openUsage(t, a, state, repos, func(string) {}, now)
	var names []string
	var today []float64
	ui(func() {
		visible = u.group.Visible()
		for _, s := range u.view.ByRuntime {
			names = append(names, s.Name)
			today = append(today, s.Cost[29])
		}
	})
	if !visible {
		t.Error("with runs on two runtimes the window does not offer to stack the bars by runtime")
	}
	if diff := cmp.Diff([]string{"claude", "gemini"}, names); diff != "" || today[0] != 3 || today[1] != 0.25 {
		t.Errorf("the runtimes (-want +got):\n%s; today's costs %v, want 3 and 0.25", diff, today)
	}
	var draws int
	ui(func() { draws = u.chart.draws; u.group.SetSelected(usageByRuntime) })
	await.For(t, 10*time.Second, "the chart stacked by runtime", func() bool {
		var done bool
		ui(func() {
			done = u.chart.draws > draws && u.chart.shown == u.chart.draws && len(u.chart.view.Series) == 2 && u.chart.view.Series[1].Name == "gemini"
		})
		return done
	})
}

// The Usage window says what its figures are, draws their chart, lists the costliest
// runs with their cost and tokens (a run recorded before usage with its cost alone) and
// opens the run a click names.
func TestUsageWindowListsTheCostliestRunsAndOpensOne(t *testing.T) {
	a := test.NewTempApp(t)
	state := t.TempDir()
	now := time.Now()
	web, _ := usageState(t, state, now)
	var opened []string
	u := openUsage(t, a, state, func() []settings.Repository { return []settings.Repository{{Name: "web", Path: web}} },
		func(id string) { opened = append(opened, id) }, now)

	var note string
	var lines []string
	var img image.Image
	var drawn fyne.Size
	ui(func() {
		note = u.note.Text
		for _, s := range u.view.Top {
			lines = append(lines, usageRunLine(s, u.repos()))
		}
		img, drawn = u.chart.img.Image, u.chart.drawn
	})
	wantNote := "$8.00 over 8 runs in the last 30 days, by the day each run started: the runtime's own estimate at list prices (Claude Code's), not a bill." +
		" 1 of these runs were recorded before segwi kept usage: their cost counts, their tokens do not."
	if note != wantNote {
		t.Errorf("the note says %q, want %q", note, wantNote)
	}
	day := func(d int) string { return now.AddDate(0, 0, -d).Local().Format("2006-01-02 15:04") }
	if len(lines) != 8 || lines[0] != day(0)+" · web · $3.0000 · 1,234 tokens · fix the login" ||
		lines[1] != day(1)+" · api · $2.5000 · tokens not recorded · old style" {
		t.Errorf("the runs listed are %q", lines)
	}
	if img == nil || img.Bounds().Dx() != int(drawn.Width+0.5) || drawn.Width < 300 {
		t.Errorf("the chart shows %v, drawn at %v; want an image at the chart's size", img, drawn)
	}
	// Resized, the window draws the chart again at its new size.
	ui(func() { u.win.Resize(fyne.NewSize(1000, 800)) })
	await.For(t, 10*time.Second, "the chart drawn again at the window's new size", func() error {
		var img image.Image
		var size fyne.Size
		ui(func() { img, size = u.chart.img.Image, u.chart.Size() })
		if img == nil {
			return errors.New("no image")
		}
		if img.Bounds().Dx() != int(size.Width+0.5) || size.Width <= drawn.Width {
			return fmt.Errorf("the chart is %v wide, its image %v", size.Width, img.Bounds())
		}
		return nil
	})
	// Switched to tokens, the chart is drawn again.
	var draws int
	ui(func() { draws = u.chart.draws; u.metric.SetSelected(string(chartTokens)) })
	await.For(t, 10*time.Second, "the chart of the tokens", func() bool {
		var done bool
		ui(func() {
			done = u.chart.metric == chartTokens && u.chart.draws > draws && u.chart.shown == u.chart.draws
		})
		return done
	})
	ui(func() { u.list.Select(1) })
	if diff := cmp.Diff([]string{"r04"}, opened); diff != "" {
		t.Errorf("clicking the second run opened (-want +got):\n%s", diff)
	}
}

// usageGoldenView is fixed figures for the chart's golden: 30 days of three repositories
// and "other", a day of nothing among them.
func usageGoldenView() usageView {
	v := usageView{}
	names := []string{"web", "api", "infra", "other"}
	for _, n := range names {
		v.Series = append(v.Series, usageSeries{Name: n, Cost: make([]float64, 30), Tokens: make([]float64, 30)})
	}
	for i := range 30 {
		v.Days = append(v.Days, time.Date(2026, 11, 5+i, 0, 0, 0, 0, time.UTC))
		if i%6 == 5 {
			continue // a day off
		}
		for s := range v.Series {
			v.Series[s].Cost[i] = float64((i*7+s*13)%11) * (1.5 - 0.3*float64(s))
			v.Series[s].Tokens[i] = v.Series[s].Cost[i] * 400_000
		}
	}
	return v
}

// The chart of fixed figures at a fixed size is the golden image testdata/usage_chart.png,
// to a few pixels (gonum's plot draws with the fonts it embeds). `go test ./app/ -run
// TestUsageChartGolden -update` rewrites it; a mismatch writes what was drawn to
// testdata/failed/usage_chart.png.
func TestUsageChartGolden(t *testing.T) {
	img, err := drawUsageChart(usageGoldenView(), chartCost, 640, 360, chartDPI, plotColors)
	if err != nil {
		t.Fatal(err)
	}
	var got bytes.Buffer
	if err := png.Encode(&got, img); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join("testdata", "usage_chart.png")
	if *updateGoldens {
		if err := os.WriteFile(path, got.Bytes(), 0o644); err != nil {
			t.Fatalf("updating the golden file %s: %v", path, err)
		}
		t.Logf("rewrote %s", path)
	}
	f, err := os.Open(path)
	if err != nil {
		t.Fatalf("the golden chart: %v (go test ./app/ -run TestUsageChartGolden -update writes it)", err)
	}
	defer f.Close()
	want, err := png.Decode(f)
	if err != nil {
		t.Fatalf("the golden chart %s: %v", path, err)
	}
	if differ := differentPixels(want, img); differ > 20 {
		failed := filepath.Join("testdata", "failed", "usage_chart.png")
		if err := os.MkdirAll(filepath.Dir(failed), 0o755); err == nil {
			_ = os.WriteFile(failed, got.Bytes(), 0o644) //nolint:errcheck // the failure is reported below
		}
		t.Errorf("the chart differs from %s in %d pixels; what was drawn is in %s", path, differ, failed)
	}
	// The chart draws what it is given: other figures give another image.
	other := usageGoldenView()
	other.Series[0].Cost[0] += 5
	img2, err := drawUsageChart(other, chartCost, 640, 360, chartDPI, plotColors)
	if err != nil {
		t.Fatal(err)
	}
	if differentPixels(want, img2) <= 20 {
		t.Error("a chart of other figures matches the golden: the comparison sees nothing")
	}
	tokens, err := drawUsageChart(usageGoldenView(), chartTokens, 640, 360, chartDPI, plotColors)
	if err != nil {
		t.Fatal(err)
	}
	if differentPixels(want, tokens) <= 20 {
		t.Error("the chart of the tokens matches the chart of the cost")
	}
}

// differentPixels counts the pixels of a and b that differ by more than a few levels in a
// channel; every pixel differs when their sizes do.
func differentPixels(a, b image.Image) int {
	if a.Bounds().Size() != b.Bounds().Size() {
		return a.Bounds().Dx() * a.Bounds().Dy()
	}
	n := 0
	ao, bo := a.Bounds().Min, b.Bounds().Min
	for y := range a.Bounds().Dy() {
		for x := range a.Bounds().Dx() {
			r1, g1, b1, a1 := a.At(ao.X+x, ao.Y+y).RGBA()
			r2, g2, b2, a2 := b.At(bo.X+x, bo.Y+y).RGBA()
			for _, d := range [][2]uint32{{r1, r2}, {g1, g2}, {b1, b2}, {a1, a2}} {
				if max(d[0], d[1])-min(d[0], d[1]) > 4<<8 {
					n++
					break
				}
			}
		}
	}
	return n
}

// usageOpenGoal is what the Usage window may take to show its figures over manyRuns runs
// (the runs index written), as issue 26 asks.
const usageOpenGoal = time.Second

// TestUsageOfManyRunsIsComputedWithinASecond computes what the Usage window shows over
// 10,000 runs (their index written): reading the index, summing the last 30 days of them
// and drawing the chart. It prints the figure and fails beyond usageOpenGoal.
func TestUsageOfManyRunsIsComputedWithinASecond(t *testing.T) {
	if testing.Short() {
		t.Skip("writes 10,000 run records")
	}
	state := t.TempDir()
	records.WriteMany(t, state, manyRuns)
	if _, _, err := runs.Summaries(state); err != nil { // writes the runs index
		t.Fatal(err)
	}
	now := time.Date(2025, 12, 31, 12, 0, 0, 0, time.UTC) // the last day of WriteMany's year
	var v usageView
	fig := measure.Best(t, 5, "the Usage window's figures and chart over 10,000 runs", func() {
		sums, _, err := runs.Summaries(state)
		if err != nil || len(sums) != manyRuns {
			t.Fatalf("Summaries = %d runs, %v", len(sums), err)
		}
		v = computeUsage(sums, now, time.UTC, nil)
		if _, err := drawUsageChart(v, chartCost, 820, 380, chartDPI, plotColors); err != nil {
			t.Fatal(err)
		}
	})
	t.Logf("Usage window over %d runs (%d in its 30 days): %d ms wall, %d ms CPU (best of 5; goal < %d ms)",
		manyRuns, v.Total.Runs, fig.Wall.Milliseconds(), fig.CPU.Milliseconds(), usageOpenGoal.Milliseconds())
	if v.Total.Runs < 500 || len(v.Top) != usageTopRuns || len(v.Series) != 5 {
		t.Errorf("the window would show %d runs, %d listed, %d series; want the ~820 of 30 days, %d, 5", v.Total.Runs, len(v.Top), len(v.Series), usageTopRuns)
	}
	if fig.Wall >= usageOpenGoal {
		t.Errorf("computing the Usage window over %d runs took %v, want under %v", manyRuns, fig.Wall, usageOpenGoal)
	}
}

// The chart takes the theme's colours: in a dark theme its background is the window's,
// not a white sheet; and the last day's label, under the last bar, is drawn whole, short
// of the image's right edge, not cut by it.
func TestUsageChartTakesTheThemesColoursAndKeepsTheLastLabel(t *testing.T) {
	dark := chartColors{
		Background: theme.DefaultTheme().Color(theme.ColorNameBackground, theme.VariantDark),
		Text:       theme.DefaultTheme().Color(theme.ColorNameForeground, theme.VariantDark),
		Grid:       theme.DefaultTheme().Color(theme.ColorNameDisabled, theme.VariantDark),
	}
	const w, h = 640, 360
	for _, c := range []struct {
		name string
		cs   chartColors
	}{{"light", plotColors}, {"dark", dark}} {
		img, err := drawUsageChart(usageGoldenView(), chartCost, w, h, chartDPI, c.cs)
		if err != nil {
			t.Fatal(err)
		}
		is := func(x, y int, want color.Color) bool {
			r1, g1, b1, _ := img.At(x, y).RGBA()
			r2, g2, b2, _ := want.RGBA()
			return max(r1, r2)-min(r1, r2) <= 4<<8 && max(g1, g2)-min(g1, g2) <= 4<<8 && max(b1, b2)-min(b1, b2) <= 4<<8
		}
		background := 0
		for y := range h {
			for x := range w {
				if is(x, y, c.cs.Background) {
					background++
				}
			}
		}
		if background < w*h/2 {
			t.Errorf("%s: %d of %d pixels are the theme's background: the chart is not drawn on it", c.name, background, w*h)
		}
		// The label "Dec 4" is drawn in the bottom right corner, and no pixel of the
		// image's last columns is drawn on.
		label := 0
		for y := h - 24; y < h; y++ {
			for x := w - 48; x < w; x++ {
				if !is(x, y, c.cs.Background) {
					label++
				}
				if x >= w-2 && !is(x, y, c.cs.Background) {
					t.Fatalf("%s: pixel (%d, %d) of the image's right edge is drawn on: the last day's label is cut", c.name, x, y)
				}
			}
		}
		if label < 20 {
			t.Errorf("%s: %d pixels drawn where the last day's label belongs: it is missing", c.name, label)
		}
	}
}

// variantTheme is Fyne's theme in the colours of one variant whatever the variant asked.
type variantTheme struct {
	fyne.Theme
	variant fyne.ThemeVariant
}

func (v variantTheme) Color(n fyne.ThemeColorName, _ fyne.ThemeVariant) color.Color {
	return v.Theme.Color(n, v.variant)
}

// The open Usage window's chart is drawn again when the theme changes, in its colours.
func TestUsageChartFollowsTheThemeOfTheOpenWindow(t *testing.T) {
	a := test.NewTempApp(t)
	ui(func() { a.Settings().SetTheme(variantTheme{theme.DefaultTheme(), theme.VariantLight}) })
	state := t.TempDir()
	now := time.Now()
	usageState(t, state, now)
	u := openUsage(t, a, state, func() []settings.Repository { return nil }, func(string) {}, now)
	for _, v := range []fyne.ThemeVariant{theme.VariantLight, theme.VariantDark} {
		if v == theme.VariantDark {
			ui(func() { a.Settings().SetTheme(variantTheme{theme.DefaultTheme(), v}) })
		}
		want := theme.DefaultTheme().Color(theme.ColorNameBackground, v)
		await.For(t, 30*time.Second, fmt.Sprintf("the chart drawn in the background of theme variant %d", v), func() bool {
			var corner color.Color
			ui(func() {
				// The last drawing shown, at the chart's size once its window is laid out.
				if img := u.chart.img.Image; img != nil && u.chart.shown == u.chart.draws && u.chart.drawn == u.chart.Size() {
					corner = img.At(img.Bounds().Max.X-1, img.Bounds().Min.Y)
				}
			})
			if corner == nil {
				return false
			}
			r1, g1, b1, _ := corner.RGBA()
			r2, g2, b2, _ := want.RGBA()
			return r1 == r2 && g1 == g2 && b1 == b2
		})
	}
}
