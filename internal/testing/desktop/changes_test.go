package desktop

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"image"
	"image/color"
	"image/png"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"fyne.io/fyne/v2"
	fynetest "fyne.io/fyne/v2/test"
	"fyne.io/fyne/v2/theme"

	"github.com/segwi/segwi/internal/testing/await"
	"github.com/segwi/segwi/internal/testing/claudetest"
	"github.com/segwi/segwi/internal/testing/fakeapi"
	"github.com/segwi/segwi/runs"
)

// minDiffLines is how many numbered lines of a diff the Changes tab must show at the run
// window's default size (issue 23).
const minDiffLines = 30

// ledgerLine is line n (from 1) of the ledger the run edits: a line of Go of 50 columns.
func ledgerLine(n int) string {
	return fmt.Sprintf("\t{name: \"item-%03d\", count: %2d, note: \"ledger\"},", n, n*7%100)
}

// TestTheChangesTabShowsARealRunsDiff runs the real Claude Code in the tray app: it reads a
// file of 300 lines and edits it in two places (40 lines rewritten, 2 further down). The
// person opens the run window's Changes tab at the window's default size, and the diff
// shows at least minDiffLines numbered lines, counted in a screenshot of the window; End
// moves the diff to its end.
func TestTheChangesTabShowsARealRunsDiff(t *testing.T) {
	t.Parallel() // on a desktop of its own, beside the others: see desktopMu
	conn, _ := ownDesktop(t)
	shots := screenshotDir(t)
	fig := newFigures(t, shots, "changes.txt")
	fynetest.NewTempApp(t) // the default theme's colours, which the window process draws in
	bin := buildSegwi(t)

	var lines []string
	for n := 1; n <= 300; n++ {
		lines = append(lines, ledgerLine(n))
	}
	var rewritten []string
	for _, l := range lines[99:139] {
		rewritten = append(rewritten, strings.Replace(l, `"ledger"`, `"rewritten"`, 1))
	}
	checked := []string{lines[249] + " // checked", lines[250] + " // checked"}
	var checkout string
	read := fakeapi.ToolUse("Read", fakeapi.Input{"file_path": "LEDGER"})
	edit := fakeapi.ToolUse("Edit", fakeapi.Input{"file_path": "LEDGER", "old_string": strings.Join(lines[99:139], "\n"), "new_string": strings.Join(rewritten, "\n")})
	edit2 := fakeapi.ToolUse("Edit", fakeapi.Input{"file_path": "LEDGER", "old_string": strings.Join(lines[249:251], "\n"), "new_string": strings.Join(checked, "\n")})
	replies := []fakeapi.Reply{
		fakeapi.Say(fakeapi.Text("Reading the ledger."), read),
		fakeapi.Say(fakeapi.Text("Rewriting it."), edit, edit2),
		fakeapi.Say(fakeapi.Text("Done: the ledger is rewritten.")),
	}
	srv := fakeapi.New(t, func(req *fakeapi.Request) fakeapi.Reply {
		n := req.Turn()
		if n >= len(replies) {
			return fakeapi.Unexpected("a request for turn %d", n)
		}
		r := replies[n]
		r.Content = slices.Clone(r.Content)
		for i, b := range r.Content {
			// The path is the checkout's, known once it is made.
			r.Content[i].Input = json.RawMessage(strings.ReplaceAll(string(b.Input), "LEDGER", filepath.Join(checkout, "ledger.go")))
		}
		return r
	})
	env := claudetest.Env(t, srv.URL)
	checkout = claudetest.Checkout(t)
	writeFile(t, filepath.Join(checkout, "ledger.go"), "package ledger\n\nvar items = []item{\n"+strings.Join(lines, "\n")+"\n}\n")
	claudetest.Git(t, checkout, "add", "ledger.go")
	claudetest.Git(t, checkout, "commit", "--quiet", "-m", "Add the ledger")
	writeConfig(t, env, checkout)
	stateDir := filepath.Join(env.Get("XDG_STATE_HOME"), "segwi")

	app := launchTray(t, bin, env.Vars(), filepath.Join(shots, "segwi-changes.log"))
	tr, _ := waitForTray(t, conn, app.cmd.Process.Pid, app.launched, 30*time.Second)
	startRun(t, tr, "New build run…", "Rewrite the ledger")
	runWin := waitForWindow(t, "^Rewrite the ledger · build run in demo$", windowWait) // titled by its task
	await.For(t, 90*time.Second, "the run's turn to end, on its record", func() bool {
		infos, _, _ := runs.List(stateDir)
		found := false
		for _, info := range infos {
			runs.ReadEvents(stateDir, info.ID, func(e runs.Event) error {
				found = found || e.Type == runs.EventResult
				return nil
			})
		}
		return found
	})
	if st := claudetest.Status(t, checkout); st != "M ledger.go" {
		t.Fatalf("git status = %q after the run, want ledger.go modified", st)
	}

	xdotool(t, "windowraise", runWin)
	w, h := windowSize(t, runWin)
	fig.add("run window at its default size: %dx%d", w, h)
	clickChangesTab(t, runWin)
	var shown diffOnScreen
	await.For(t, 30*time.Second, "the diff in the Changes tab", func() error {
		var err error
		shown, err = countDiffLines(t, runWin)
		if err == nil && shown.numbered == 0 {
			err = fmt.Errorf("the diff's gutter shows no numbered line yet")
		}
		return err
	})
	screenshot(t, shots, "changes-tab")
	fig.add("Changes tab at the default size: %d numbered diff lines on screen, a row every %d px (goal at least %d lines)",
		shown.numbered, shown.pitch, minDiffLines)
	if shown.numbered < minDiffLines {
		t.Errorf("the Changes tab shows %d numbered lines of the diff at the default window size, want at least %d", shown.numbered, minDiffLines)
	}

	// The keys: the diff has the keyboard once its tab is opened, and keeps it when the
	// person clicks the Changes tab again; End shows its end.
	if out, err := xdotool(t, "windowfocus", "--sync", runWin); err != nil {
		t.Fatalf("focusing the run window: %v: %s", err, out)
	}
	img, err := windowImage(t, runWin)
	if err != nil {
		t.Fatal(err)
	}
	clickAt(t, runWin, changesTabX, underlineAt(img, changesTabX)-20)
	await.For(t, 10*time.Second, "the diff to move to its end", func() error {
		if out, err := xdotool(t, "key", "End"); err != nil { // End again is no harm
			t.Fatalf("pressing End: %v: %s", err, out)
		}
		after, err := countDiffLines(t, runWin)
		if err != nil {
			return err
		}
		if after.gutter == shown.gutter && bytes.Equal(after.pixels, shown.pixels) {
			return fmt.Errorf("the gutter is the same as before End")
		}
		return nil
	})
	screenshot(t, shots, "changes-tab-end")
	app.terminate(t)
}

// diffOnScreen is what a screenshot shows of a diff view.
type diffOnScreen struct {
	numbered int             // rows with a line number in the gutter
	pitch    int             // pixels from one numbered row to the next
	gutter   image.Rectangle // where the gutter is, in the window
	pixels   []byte          // the gutter's pixels, to tell one screen from another
}

// countDiffLines takes a picture of the window win and counts the diff's rows in it: the
// diff's gutter is the widest strip of the theme's input background colour; each band of
// ink in it is a line number.
func countDiffLines(t *testing.T, win string) (diffOnScreen, error) {
	t.Helper()
	img, err := windowImage(t, win)
	if err != nil {
		return diffOnScreen{}, err
	}
	var last error
	for _, variant := range []fyne.ThemeVariant{theme.VariantDark, theme.VariantLight} {
		d, err := readGutter(img, theme.DefaultTheme().Color(theme.ColorNameInputBackground, variant))
		if err == nil {
			return d, nil
		}
		last = err
	}
	return diffOnScreen{}, last
}

// readGutter finds the gutter of colour g in img and reads the rows it shows.
func readGutter(img image.Image, g color.Color) (diffOnScreen, error) {
	b := img.Bounds()
	is := func(x, y int) bool { return image.Pt(x, y).In(b) && near(img.At(x, y), g, 3) }
	// The gutter's columns are mostly g from its top to its bottom; the follow-up box,
	// also of g, is a single row of them.
	best, run, end := 0, 0, 0
	for x := b.Min.X; x < b.Max.X; x++ {
		n := 0
		for y := b.Min.Y; y < b.Max.Y; y++ {
			if is(x, y) {
				n++
			}
		}
		if n >= b.Dy()/4 {
			run++
			if run > best {
				best, end = run, x+1
			}
		} else {
			run = 0
		}
	}
	if best < 20 {
		return diffOnScreen{}, fmt.Errorf("no diff gutter of colour %v in the window", g)
	}
	left, right := end-best, end-1
	// A row of the gutter is g at its edges and not beyond them (the tab bar and the
	// follow-up box are of g too, but wider); ink in it is a line number. Between such
	// rows, a stretch of other rows is a header across the view.
	gutterRow := func(y int) bool {
		return is(left, y) && is(right, y) && !is(left-1, y) && !is(right+1, y)
	}
	ink := func(y int) bool {
		for x := left; x <= right; x++ {
			if !near(img.At(x, y), g, 48) {
				return true
			}
		}
		return false
	}
	// The view: the longest run of gutter rows, across stretches of headers of at most 3
	// rows of 20 px.
	top, bottom, from, gap := -1, -1, -1, 0
	for y := b.Min.Y; y < b.Max.Y; y++ {
		if gutterRow(y) {
			if from < 0 {
				from = y
			}
			gap = 0
			if y-from > bottom-top {
				top, bottom = from, y
			}
			continue
		}
		if gap++; gap > 60 {
			from, gap = -1, 0
		}
	}
	if top < 0 {
		return diffOnScreen{}, fmt.Errorf("no diff gutter of colour %v in the window", g)
	}
	d := diffOnScreen{gutter: image.Rect(left, top, right+1, bottom+1)}
	var starts []int
	inkBefore := false
	for y := top; y <= bottom; y++ {
		now := gutterRow(y) && ink(y)
		if now && !inkBefore {
			starts = append(starts, y)
		}
		inkBefore = now
	}
	d.numbered = len(starts)
	if len(starts) > 1 {
		var gaps []int
		for i := 1; i < len(starts); i++ {
			gaps = append(gaps, starts[i]-starts[i-1])
		}
		slices.Sort(gaps)
		d.pitch = gaps[len(gaps)/2]
	}
	for y := top; y <= bottom; y++ {
		for x := left; x <= right; x++ {
			r, g, b, _ := img.At(x, y).RGBA()
			d.pixels = append(d.pixels, byte(r>>8), byte(g>>8), byte(b>>8))
		}
	}
	return d, nil
}

// near reports whether a and b differ by at most tolerance in each channel (of 255).
func near(a, b color.Color, tolerance int) bool {
	ar, ag, ab, _ := a.RGBA()
	br, bg, bb, _ := b.RGBA()
	for _, d := range []int{int(ar>>8) - int(br>>8), int(ag>>8) - int(bg>>8), int(ab>>8) - int(bb>>8)} {
		if d > tolerance || -d > tolerance {
			return false
		}
	}
	return true
}

// windowImage takes a screenshot of window win.
func windowImage(t *testing.T, win string) (image.Image, error) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "window.png")
	if out, err := onDisplay(t, exec.Command("import", "-window", win, path)).CombinedOutput(); err != nil {
		return nil, fmt.Errorf("screenshot of the window: %v: %s", err, out)
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return png.Decode(f)
}

// The tabs of a run window: where to click each (the middle of its label), and where its
// underline, in the theme's primary colour, shows while it is selected (app/runwindow.go).
const (
	timelineTabX = 40
	changesTabX  = 225
)

// clickChangesTab clicks the run window's Changes tab as a person does, wherever the tab bar
// is: below the header, or lower when the reply banner shows above it (a run waiting for
// your reply), which may come in at any moment. It finds the bar by the selected tab's
// underline and clicks again until the Changes tab's underline shows.
func clickChangesTab(t *testing.T, win string) {
	t.Helper()
	var clicked time.Time
	await.For(t, 30*time.Second, "the Changes tab to be selected", func() error {
		img, err := windowImage(t, win)
		if err != nil {
			return err
		}
		if underlineAt(img, changesTabX) >= 0 {
			return nil
		}
		// The underline slides to the tab it selects, slower on a loaded machine: click
		// again only when the first click has had time to show.
		if !clicked.IsZero() && time.Since(clicked) < 3*time.Second {
			return errors.New("clicked the Changes tab; its underline has not arrived yet")
		}
		y := underlineAt(img, timelineTabX)
		if y < 0 {
			return errors.New("no selected tab's underline in the window")
		}
		clickAt(t, win, changesTabX, y-20) // the tab's label, above its underline
		clicked = time.Now()
		return errors.New("clicked the Changes tab; not selected yet")
	})
}

// underlineAt is a row of the selected tab's underline around column x of img: a bar of
// the theme's primary colour at least 31 px wide there (the selected tab's label is in that
// colour too, but no letter is so wide), or -1.
func underlineAt(img image.Image, x int) int {
	b := img.Bounds()
	for _, variant := range []fyne.ThemeVariant{theme.VariantDark, theme.VariantLight} {
		primary := theme.DefaultTheme().Color(theme.ColorNamePrimary, variant)
	rows:
		for y := b.Min.Y; y < b.Max.Y; y++ {
			for dx := -15; dx <= 15; dx++ {
				if !near(img.At(x+dx, y), primary, 8) {
					continue rows
				}
			}
			return y
		}
	}
	return -1
}
