package desktop

import (
	"errors"
	"fmt"
	"image"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/theme"

	"github.com/segwi/segwi/internal/testing/await"
	"github.com/segwi/segwi/internal/testing/claudetest"
	"github.com/segwi/segwi/internal/testing/fakeapi"
	"github.com/segwi/segwi/runs"
	segwitray "github.com/segwi/segwi/tray"
)

// TestARunAtItsBudgetIsRaisedFromItsRunWindow runs the real Claude Code with a budget of one
// turn (segwi.runs.budget.turns): after its first turn the tray menu says the run reached
// its budget, its run window shows the budget bar, and a click on Raise and go on raises
// it by one turn, recorded as the window's person's; the run then waits for the reply.
// A screenshot of the bar goes to $SEGWI_SCREENSHOTS.
func TestARunAtItsBudgetIsRaisedFromItsRunWindow(t *testing.T) {
	t.Parallel() // one at a time on the test desktop: see desktopMu
	conn := needDesktop(t)
	shots := screenshotDir(t)
	bin := buildSegwi(t)

	srv := fakeapi.New(t, fakeapi.Turns(fakeapi.Say(fakeapi.Text("Fixed the form's double post. Shall I do the tests too?"))))
	env := claudetest.Env(t, srv.URL)
	checkout := claudetest.Checkout(t)
	writeConfig(t, env, checkout)
	cfg := filepath.Join(env.Get("XDG_CONFIG_HOME"), "segwi", "config.yaml")
	b, err := os.ReadFile(cfg)
	if err != nil {
		t.Fatal(err)
	}
	withBudget := strings.Replace(string(b), "    stopGrace: 2s\n", "    stopGrace: 2s\n    budget: {turns: 1}\n", 1)
	if withBudget == string(b) {
		t.Fatal("the test's settings have no runs section to put a budget in")
	}
	writeFile(t, cfg, withBudget)
	stateDir := filepath.Join(env.Get("XDG_STATE_HOME"), "segwi")

	app := launchTray(t, bin, env.Vars(), filepath.Join(shots, "segwi-budget.log"))
	tr, _ := waitForTray(t, conn, app.cmd.Process.Pid, app.launched, 30*time.Second)

	startRun(t, tr, "New build run…", "Fix the login form")
	win := waitForWindow(t, "^Fix the login form · build run in demo$", windowWait)
	waitForLabel(t, tr, regexp.MustCompile(`^demo · build · `+regexp.QuoteMeta(segwitray.WaitingBudget)+` `), 60*time.Second)
	infos, _, _ := runs.List(stateDir)
	if len(infos) != 1 {
		t.Fatalf("%d runs recorded, want 1", len(infos))
	}
	id := infos[0].ID
	xdotool(t, "windowraise", win)

	var clicked time.Time
	shot := false
	await.For(t, 60*time.Second, "the budget raised from the run window", func() error {
		info, err := runs.Load(stateDir, id)
		if err != nil {
			return err
		}
		if len(info.BudgetRaises) > 0 {
			return nil
		}
		if !clicked.IsZero() && time.Since(clicked) < 3*time.Second {
			return errors.New("clicked Raise and go on; not raised yet")
		}
		img, err := windowImage(t, win)
		if err != nil {
			return err
		}
		x, y, ok := primaryButton(img)
		if !ok {
			return errors.New("no Raise and go on button in the run window")
		}
		if !shot {
			screenshot(t, shots, "run-window-budget")
			shot = true
		}
		clickAt(t, win, x, y)
		clicked = time.Now()
		return fmt.Errorf("clicked Raise and go on at %d,%d", x, y)
	})
	info, err := runs.Load(stateDir, id)
	if err != nil {
		t.Fatal(err)
	}
	if info.Budget == nil || *info.Budget != (runs.Budget{Turns: 2}) || len(info.BudgetRaises) != 1 ||
		info.BudgetRaises[0].By != (runs.Budget{Turns: 1}) || info.BudgetRaises[0].Who != "you, in the run window" {
		t.Errorf("the run's budget is %+v, raised %+v; want 2 turns, raised by one from the run window", info.Budget, info.BudgetRaises)
	}
	waitForLabel(t, tr, regexp.MustCompile(`^demo · build · `+regexp.QuoteMeta(segwitray.WaitingReply)+` `), 30*time.Second)
}

// primaryButton finds the button of the theme's primary colour in the lower half of img
// (the run window's Raise and go on: the selected tab's underline, of the same colour, is
// in the upper half, and thinner), and returns its middle.
func primaryButton(img image.Image) (x, y int, ok bool) {
	b := img.Bounds()
	for _, variant := range []fyne.ThemeVariant{theme.VariantDark, theme.VariantLight} {
		primary := theme.DefaultTheme().Color(theme.ColorNamePrimary, variant)
		minX, minY, maxX, maxY, rows := b.Max.X, b.Max.Y, -1, -1, 0
		for py := b.Min.Y + b.Dy()/2; py < b.Max.Y; py++ {
			run, start := 0, 0
			for px := b.Min.X; px < b.Max.X; px++ {
				if !near(img.At(px, py), primary, 8) {
					run = 0
					continue
				}
				if run == 0 {
					start = px
				}
				if run++; run == 60 { // wider than any letter: a button's face
					rows++
					minX, maxX = min(minX, start), max(maxX, start+run)
					minY, maxY = min(minY, py), max(maxY, py)
				}
			}
		}
		if rows >= 10 {
			return (minX + maxX) / 2, (minY + maxY) / 2, true
		}
	}
	return 0, 0, false
}
