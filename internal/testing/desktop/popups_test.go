package desktop

import (
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/segwi/segwi/internal/testing/await"
	"github.com/segwi/segwi/internal/testing/fakeapi"
)

// TestTwoPopupsOfTwoRunsInOneCheckoutCascade starts a build run and an ask run in one
// checkout, each asking for a command: their two popups are both on the screen,
// each titled by its run and its task, the second placed down and right of the first
// rather than exactly on top of it (issue 15).
func TestTwoPopupsOfTwoRunsInOneCheckoutCascade(t *testing.T) {
	t.Parallel() // on a desktop of its own, beside the others: see desktopMu
	conn, _ := ownDesktop(t)
	needClaudeCode(t) // before the build
	shots := screenshotDir(t)
	bin := buildSegwi(t)

	touch := fakeapi.ToolUse("Bash", fakeapi.Input{"command": "touch asked.txt", "description": "Create asked.txt"})
	srv := fakeapi.New(t, fakeapi.Turns(
		fakeapi.Say(fakeapi.Text("I will create the file."), touch),
		fakeapi.Say(fakeapi.Text("Done.")),
	))
	env, checkout := touchAsksTheDesktop(t, srv.URL)
	app := launchTray(t, bin, env.Vars(), filepath.Join(shots, "segwi-popups.log"))
	tr, _ := waitForTray(t, conn, app.cmd.Process.Pid, app.launched, 30*time.Second)

	startRun(t, tr, "New build run…", "Build the thing")
	// The second run starts once the first waits for its popup's answer.
	waitForWindow(t, `^Approve Bash\? · build run in demo`, 60*time.Second) // xdotool reads a regular expression
	waitForLabel(t, tr, regexp.MustCompile(`^Waiting approvals \(1\)$`), 10*time.Second)
	startRun(t, tr, "Ask…", "What is in here")

	var popups []string
	await.For(t, 90*time.Second, "two approval popups on the screen", func() bool {
		popups = shownWindows(t, "^Approve Bash")
		return len(popups) == 2
	})
	screenshot(t, shots, "two-popups")
	type place struct{ x, y int }
	var titles []string
	var places []place
	for _, id := range popups {
		title, _ := xdotool(t, "getwindowname", id)
		titles = append(titles, title)
		out, err := xdotool(t, "getwindowgeometry", "--shell", id)
		if err != nil {
			t.Fatalf("the geometry of popup %s: %v: %s", id, err, out)
		}
		var p place
		for _, line := range strings.Split(out, "\n") {
			if v, ok := strings.CutPrefix(line, "X="); ok {
				p.x, _ = strconv.Atoi(v)
			}
			if v, ok := strings.CutPrefix(line, "Y="); ok {
				p.y, _ = strconv.Atoi(v)
			}
		}
		places = append(places, p)
	}
	t.Logf("popups %q at %v", titles, places)
	for _, want := range []string{"Approve Bash? · build run in demo · Build the thing", "Approve Bash? · ask run in demo · What is in here"} {
		found := false
		for _, title := range titles {
			found = found || title == want
		}
		if !found {
			t.Errorf("no popup titled %q; the titles are %q", want, titles)
		}
	}
	if dx, dy := places[0].x-places[1].x, places[0].y-places[1].y; abs(dx) < 20 || abs(dy) < 20 {
		t.Errorf("the popups lie %d, %d pixels apart; want them cascaded, a step down and right", dx, dy)
	}
	for _, id := range popups {
		xdotool(t, "windowraise", id)
		clickAllow(t, id)
	}
	await.For(t, 60*time.Second, "asked.txt in the checkout", func() bool {
		_, err := os.Stat(filepath.Join(checkout, "asked.txt"))
		return err == nil
	})
	app.terminate(t)
}

func abs(n int) int {
	if n < 0 {
		return -n
	}
	return n
}
