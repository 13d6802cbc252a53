package desktop

import (
	"fmt"
	"path/filepath"
	"testing"
	"time"

	"github.com/segwi/segwi/internal/testing/claudetest"
)

// What stops a run is said at launch, in a window, before the person presses Start: a
// claude that is not there, a repository that is not a git checkout, a misspelt key.
func TestTraySaysAtLaunchWhatStopsARun(t *testing.T) {
	t.Parallel() // one at a time on the test desktop: see desktopMu
	conn := needDesktop(t)
	shots := screenshotDir(t)
	bin := buildSegwi(t)
	env := claudetest.Env(t, "http://127.0.0.1:9") // no run starts: no model is asked
	config := filepath.Join(env.Get("XDG_CONFIG_HOME"), "segwi", "config.yaml")
	writeFile(t, config, fmt.Sprintf(`segwi:
  claude:
    path: /nowhere/claude
  repositories:
    - {name: notes, path: %q}
  runs:
    idelTimeout: 5m
`, t.TempDir()))

	app := launchTray(t, bin, env.Vars(), filepath.Join(shots, "segwi-warnings.log"))
	waitForTray(t, conn, app.cmd.Process.Pid, app.launched, 30*time.Second)
	win := waitForWindow(t, "segwi: check your settings", 20*time.Second)
	screenshot(t, shots, "setup-warnings")
	if w, h := windowSize(t, win); w == 0 || h == 0 {
		t.Errorf("the warning window is %dx%d", w, h)
	}
}
