package desktop

import (
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/godbus/dbus/v5"

	"github.com/segwi/segwi/internal/testing/await"
	"github.com/segwi/segwi/internal/testing/claudetest"
	"github.com/segwi/segwi/internal/testing/fakeapi"
	"github.com/segwi/segwi/internal/testing/parallel"
	"github.com/segwi/segwi/runs"
	segwitray "github.com/segwi/segwi/tray"
)

// need skips (or, under SEGWI_TEST_STRICT=1, fails) when the desktop is not there.
func need(t *testing.T, ok bool, what string) {
	t.Helper()
	if ok {
		return
	}
	if os.Getenv("SEGWI_TEST_STRICT") == "1" {
		t.Fatalf("%s: run the tests with scripts/test.sh, which provides it", what)
	}
	t.Skipf("%s: run the tests with scripts/test.sh, which provides it", what)
}

// needTools skips the test (see need) unless the display, the session bus, the X tools
// and the other tools named are there.
func needTools(t *testing.T, tools ...string) {
	t.Helper()
	need(t, os.Getenv("DISPLAY") != "", "no X display (DISPLAY)")
	need(t, os.Getenv("DBUS_SESSION_BUS_ADDRESS") != "", "no session bus")
	for _, tool := range append([]string{"xdotool", "import"}, tools...) {
		_, err := exec.LookPath(tool)
		need(t, err == nil, tool+" is not installed")
	}
}

// needDesktop skips the test (see need) unless the test desktop (display, session bus, a
// tray host), the X tools and the other tools named are there, holds the desktop for the
// test (holdDesktop: call t.Parallel first) and returns a connection to its bus.
func needDesktop(t *testing.T, tools ...string) *dbus.Conn {
	t.Helper()
	needTools(t, tools...)
	holdDesktop(t)
	conn, err := dbus.ConnectSessionBus()
	need(t, err == nil, fmt.Sprintf("cannot reach the session bus (%v)", err))
	t.Cleanup(func() { conn.Close() })
	var hasHost bool
	conn.BusObject().Call("org.freedesktop.DBus.NameHasOwner", 0, "org.kde.StatusNotifierWatcher").Store(&hasHost)
	need(t, hasHost, "no tray host (status-notifier-watcher) on the session bus")
	return conn
}

// needClaudeCode skips the test (or, under SEGWI_TEST_STRICT=1, fails it) when the pinned
// Claude Code is not installed. A test that runs Claude Code calls it first: building
// segwi (buildSegwi) takes 35 to 38 s on two cores, and a test that built it only to skip
// for want of Claude Code wasted them.
func needClaudeCode(t *testing.T) { t.Helper(); claudetest.Binary(t) }

// screenshotDir returns where screenshots and figures go: $SEGWI_SCREENSHOTS, else a temp
// folder.
func screenshotDir(t *testing.T) string {
	t.Helper()
	shots := os.Getenv("SEGWI_SCREENSHOTS")
	if shots == "" {
		shots = t.TempDir()
	}
	if err := os.MkdirAll(shots, 0o755); err != nil {
		t.Fatal(err)
	}
	t.Logf("screenshots and figures go to %s", shots)
	return shots
}

func TestTrayAppOnARealDesktop(t *testing.T) {
	t.Parallel() // one at a time on the test desktop: see desktopMu
	conn := needDesktop(t)
	needClaudeCode(t) // before the build
	shots := screenshotDir(t)
	var figures []string
	figure := func(format string, args ...any) {
		line := fmt.Sprintf(format, args...)
		t.Log(line)
		figures = append(figures, line)
	}
	t.Cleanup(func() {
		os.WriteFile(filepath.Join(shots, "figures.txt"), []byte(strings.Join(figures, "\n")+"\n"), 0o644)
	})

	bin := buildSegwi(t)
	figure("the programs as built: %s", programSizes(t, filepath.Dir(bin), "segwi", "segwi-windows"))

	// The run asks to touch a file; the person's own ask rule sends that to segwi's popup.
	touch := fakeapi.ToolUse("Bash", fakeapi.Input{"command": "touch approved.txt", "description": "Create approved.txt"})
	srv := fakeapi.New(t, fakeapi.Turns(
		fakeapi.Say(fakeapi.Text("I will create the file."), touch),
		fakeapi.Say(fakeapi.Text("Created approved.txt.")),
	))
	env, checkout := touchAsksTheDesktop(t, srv.URL)

	app := launchTray(t, bin, env.Vars(), filepath.Join(shots, "segwi.log"))
	exited := app.exited
	tr, took := waitForTray(t, conn, app.cmd.Process.Pid, app.launched, 30*time.Second)
	figure("launch to tray item registered: %d ms", took.Milliseconds())

	t.Run("the tray menu offers every action", func(t *testing.T) {
		tr.item(t, "Quit") // the menu is complete
		var labels []string
		for _, it := range tr.items(t) {
			labels = append(labels, it.Label)
		}
		os.WriteFile(filepath.Join(shots, "tray-menu.txt"), []byte(strings.Join(labels, "\n")+"\n"), 0o644)
		for _, want := range []string{"New build run…", "New ready run…", "Ask…", "Run history…", "Usage…", "Settings…", "Quit"} {
			if !slices.Contains(labels, want) {
				t.Errorf("the tray menu lacks %q; it has %q", want, labels)
			}
		}
		if it := tr.item(t, "Waiting approvals (0)"); it.Enabled {
			t.Errorf("Waiting approvals (0) is enabled with nothing waiting")
		}
	})

	// Idle: the tray alone, no window yet. The figure is taken at a fixed point, 3 s after
	// the tray item registered, so that figures compare from run to run; this wait is the
	// measurement's clock, not a wait for a condition.
	time.Sleep(3 * time.Second)
	figure("idle tray process, no window: %s", readMemory(t, app.cmd.Process.Pid))

	t.Run("Settings… opens the settings window", func(t *testing.T) {
		tr.click(t, "Settings…")
		win := waitForWindow(t, "segwi settings", windowWait)
		screenshot(t, shots, "settings")
		xdotool(t, "windowunmap", win)
	})

	var runWin string
	t.Run("a build run from the tray asks the person and runs once allowed", func(t *testing.T) {
		tr.click(t, "New build run…")
		dialog := waitForWindow(t, "segwi: new run", windowWait)
		// The dialog opens with the cursor in the task box, and Ctrl+Enter starts: the
		// person types the task and presses it, no click needed. (With no window manager
		// the test gives the window the keyboard, as a window manager would on opening.)
		if out, err := xdotool(t, "windowfocus", "--sync", dialog); err != nil {
			t.Fatalf("focusing the dialog: %v: %s", err, out)
		}
		if out, err := xdotool(t, "type", "--delay", "10", "Create approved.txt"); err != nil {
			t.Fatalf("typing the task: %v: %s", err, out)
		}
		screenshot(t, shots, "new-run")
		if out, err := xdotool(t, "key", "ctrl+Return"); err != nil {
			t.Fatalf("pressing Ctrl+Enter: %v: %s", err, out)
		}
		windowGone(t, "segwi: new run", 20*time.Second)

		runWin = waitForWindow(t, "^Create approved.txt · build run in demo$", windowWait) // titled by its task
		popup := waitForWindow(t, "Approve Bash", 60*time.Second)
		xdotool(t, "windowraise", popup) // with no window manager, the newest window is not always on top
		screenshot(t, shots, "approval-popup")
		waitForLabel(t, tr, regexp.MustCompile(`^Waiting approvals \(1\)$`), 10*time.Second)
		waitForLabel(t, tr, regexp.MustCompile(`^demo · build · .*waiting`), 10*time.Second)

		clickAllow(t, popup)
		windowGone(t, "Approve Bash", windowWait)
		await.For(t, 60*time.Second, "approved.txt in the checkout", func() bool {
			_, err := os.Stat(filepath.Join(checkout, "approved.txt"))
			return err == nil
		})
		waitForLabel(t, tr, regexp.MustCompile(`^Waiting approvals \(0\)$`), 10*time.Second)
	})
	if runWin == "" {
		t.Fatal("no run window to measure")
	}
	// The picture is of the run's whole turn: wait for its result on the record.
	stateDir := filepath.Join(env.Get("XDG_STATE_HOME"), "segwi")
	await.For(t, 30*time.Second, "the run's result on its record", func() bool {
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
	t.Run("once its turn is over the tray says the run waits for your reply", func(t *testing.T) {
		waitForLabel(t, tr, regexp.MustCompile(`^demo · build · `+regexp.QuoteMeta(segwitray.WaitingReply)+` `), 10*time.Second)
	})
	xdotool(t, "windowraise", runWin)
	screenshot(t, shots, "run-window")
	figure("tray process with one run window open: %s", readMemory(t, app.cmd.Process.Pid))
	figure("window process with one run window open: %s", readMemory(t, waitForWindowProcess(t, app.cmd.Process.Pid, 10*time.Second)))

	t.Run("the channel between the processes has nothing to connect to", func(t *testing.T) {
		tray, windows := app.cmd.Process.Pid, waitForWindowProcess(t, app.cmd.Process.Pid, 10*time.Second)
		if got := listening(t, windows); len(got) > 0 {
			t.Errorf("the window process listens on %q; it should reach the tray only through the socket pair", got)
		}
		// The tray listens only on loopback, for the runs' approval tool (the MCP server);
		// that it is seen shows the check sees the tray's sockets.
		ls := listening(t, tray)
		if len(ls) == 0 {
			t.Errorf("ss shows no listening socket of the tray, not even the approvals server's: the check sees nothing")
		}
		for _, l := range ls {
			if !strings.HasPrefix(l, "LISTEN ") || !strings.Contains(l, " 127.0.0.1:") {
				t.Errorf("the tray process listens on %q; want only the approvals server on 127.0.0.1", l)
			}
		}
	})

	t.Run("Quit with a run going asks first, in the middle of the screen", func(t *testing.T) {
		tr.click(t, "Quit")
		quit := waitForWindow(t, "segwi: quit\\?", windowWait)
		xdotool(t, "windowraise", quit) // with no window manager, a new window is not always on top
		screenshot(t, shots, "quit-confirm")
		x, y, w, h := windowGeometry(t, quit)
		out, err := xdotool(t, "getdisplaygeometry")
		var sw, sh int
		if _, scanErr := fmt.Sscan(out, &sw, &sh); err != nil || scanErr != nil {
			t.Fatalf("reading the screen's size: %v %v: %q", err, scanErr, out)
		}
		if dx, dy := x+w/2-sw/2, y+h/2-sh/2; abs(dx) > 40 || abs(dy) > 40 {
			t.Errorf("the quit question's window is at %d,%d (%dx%d) on a %dx%d screen: its middle is %d,%d off the screen's",
				x, y, w, h, sw, sh, dx, dy)
		}
		select {
		case <-exited:
			t.Fatal("segwi quit without asking, with a run going")
		default:
		}
	})

	t.Run("SIGTERM stops the run and quits, leaving no agent and no window process behind", func(t *testing.T) {
		windows := waitForWindowProcess(t, app.cmd.Process.Pid, 10*time.Second) // the quit question's
		app.terminate(t)
		await.For(t, 10*time.Second, "no process left in the run's checkout", func() bool {
			return len(processesIn(checkout)) == 0
		})
		if alive(windows) {
			t.Errorf("window process %d outlived the tray", windows)
		}
	})
}

// trayProcess is the tray app a test started.
type trayProcess struct {
	cmd      *exec.Cmd
	launched time.Time
	log      string        // where its stdout and stderr go
	exited   chan struct{} // closed once it has exited
	err      error         // what Wait returned, once exited is closed
}

// launchTray starts the segwi binary bin with no arguments (the tray app) in the environment
// vars plus the test's display and bus (unless vars names a bus of its own), its output
// going to logPath; it is killed at the end of the test if still running.
func launchTray(t *testing.T, bin string, vars []string, logPath string) *trayProcess {
	t.Helper()
	p := &trayProcess{cmd: exec.Command(bin), log: logPath, exited: make(chan struct{})}
	p.cmd.Env = append(vars, "DISPLAY="+displayFor(t), "LANG=en_US.UTF-8")
	if !slices.ContainsFunc(vars, func(kv string) bool { return strings.HasPrefix(kv, "DBUS_SESSION_BUS_ADDRESS=") }) {
		p.cmd.Env = append(p.cmd.Env, "DBUS_SESSION_BUS_ADDRESS="+busFor(t))
	}
	logFile, err := os.Create(logPath)
	if err != nil {
		t.Fatal(err)
	}
	p.cmd.Stdout, p.cmd.Stderr = logFile, logFile
	p.launched = time.Now()
	if err := p.cmd.Start(); err != nil {
		logFile.Close()
		t.Fatalf("starting %s: %v", bin, err)
	}
	go func() { p.err = p.cmd.Wait(); logFile.Close(); close(p.exited) }()
	t.Cleanup(func() {
		// SIGTERM first: the tray then ends its window process and waits for it, so that
		// nothing of theirs still writes in the test's folders when they are removed.
		select {
		case <-p.exited:
		default:
			p.cmd.Process.Signal(syscall.SIGTERM)
			select {
			case <-p.exited:
			case <-time.After(30 * time.Second):
				p.cmd.Process.Kill()
				<-p.exited
			}
		}
		// What the tray and its window process said, before the test's folders go: CI
		// keeps only the test's output.
		if t.Failed() {
			logTail(t, logPath, 80)
		}
	})
	return p
}

// logTail logs the last n lines of the file at path.
func logTail(t *testing.T, path string, n int) {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Logf("reading %s: %v", path, err)
		return
	}
	lines := strings.Split(strings.TrimRight(string(data), "\n"), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	t.Logf("the last %d lines of %s:\n%s", len(lines), path, strings.Join(lines, "\n"))
}

// terminate sends the tray SIGTERM and waits, up to 30 s, for it to exit cleanly.
func (p *trayProcess) terminate(t *testing.T) {
	t.Helper()
	p.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-p.exited:
		if p.err != nil {
			t.Errorf("segwi exited with %v after SIGTERM; want a clean exit", p.err)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("segwi did not quit within 30 s of SIGTERM")
	}
}

// touchAsksTheDesktop sets up what the approval tests share: Claude Code against the fake
// API at url, with the person's own ask rule for `touch` (so the call comes to segwi's
// popup), a checkout, and segwi's settings for it.
func touchAsksTheDesktop(t *testing.T, url string) (*claudetest.Environment, string) {
	t.Helper()
	env := claudetest.Env(t, url)
	env.WriteSettings(t, claudetest.Settings{Permissions: &claudetest.Permissions{Ask: []string{"Bash(touch:*)"}}})
	checkout := claudetest.Checkout(t)
	writeConfig(t, env, checkout)
	return env, checkout
}

// recordsOnly returns the environment of a tray that starts no run, only shows records a
// test writes: a model server that fails any request, one repository (checkout) in the
// settings, and the state folder the records go in.
func recordsOnly(t *testing.T) (env *claudetest.Environment, checkout, stateDir string) {
	t.Helper()
	srv := fakeapi.New(t, func(*fakeapi.Request) fakeapi.Reply { return fakeapi.Unexpected("no run is started") })
	env = claudetest.Env(t, srv.URL)
	checkout = claudetest.Checkout(t)
	writeConfig(t, env, checkout)
	return env, checkout, filepath.Join(env.Get("XDG_STATE_HOME"), "segwi")
}

// writeConfig writes segwi's settings file in env's config folder: the real Claude Code,
// one repository (demo, at checkout), a short stop grace and a long approval timeout.
func writeConfig(t *testing.T, env *claudetest.Environment, checkout string) {
	t.Helper()
	writeFile(t, filepath.Join(env.Get("XDG_CONFIG_HOME"), "segwi", "config.yaml"), fmt.Sprintf(`segwi:
  claude:
    path: %q
  repositories:
    - name: demo
      path: %q
  runs:
    stopGrace: 2s
  approvals:
    timeout: 5m
`, claudetest.Binary(t), checkout))
}

// output returns what the tray app wrote to its log so far.
func (p *trayProcess) output() string {
	b, _ := os.ReadFile(p.log)
	return string(b)
}

// built is segwi's two programs, built once for the package by buildSegwi: each test
// that built them anew spent several seconds of two cores linking (more beside the e2e
// suite), for the same binaries. TestMain removes them.
var built struct {
	once     sync.Once
	dir, bin string
	err      error
}

func TestMain(m *testing.M) {
	flag.Parse()
	// The late-answer test and the idle trays' measurement wait on their own desktops,
	// beside the test that holds the shared one (desktopMu). A test that waits for the
	// desktop holds one of go test's places while it sleeps on the lock, so every test
	// gets one, lest the waits queue behind it.
	parallel.AtLeast(32)
	code := m.Run()
	if built.dir != "" {
		os.RemoveAll(built.dir)
	}
	os.Exit(code)
}

// programSizes says how large the programs names in dir are: "segwi 29.8 MB, ...".
func programSizes(t *testing.T, dir string, names ...string) string {
	t.Helper()
	var out []string
	for _, name := range names {
		st, err := os.Stat(filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, fmt.Sprintf("%s %.1f MB", name, float64(st.Size())/1e6))
	}
	return strings.Join(out, ", ")
}

// buildSegwi returns the path of segwi built as scripts/run.sh and the package install it,
// into a folder no test writes to: segwi (without cgo, as shipped), whose tray starts the
// window process from that folder, and segwi-windows (Fyne). The first test to call it
// builds them; the others wait for that build and share it, or its failure.
func buildSegwi(t *testing.T) string {
	t.Helper()
	built.once.Do(func() { built.dir, built.bin, built.err = buildPrograms() })
	if built.err != nil {
		t.Fatal(built.err)
	}
	return built.bin
}

// buildPrograms builds segwi and segwi-windows into a new temp folder and returns the
// folder and segwi's path.
func buildPrograms() (dir, bin string, err error) {
	root, err := claudetest.ModuleRoot()
	if err != nil {
		return "", "", err
	}
	dir, err = os.MkdirTemp("", "segwi-desktop-")
	if err != nil {
		return "", "", err
	}
	for _, b := range []struct {
		name, pkg string
		cgo       string
	}{
		{"segwi", ".", "CGO_ENABLED=0"},
		{"segwi-windows", "./cmd/segwi-windows", "CGO_ENABLED=1"},
	} {
		cmd := exec.Command("go", "build", "-o", filepath.Join(dir, b.name), b.pkg)
		cmd.Dir = root
		cmd.Env = append(os.Environ(), b.cgo)
		if out, err := cmd.CombinedOutput(); err != nil {
			return dir, "", fmt.Errorf("building %s (%s go build -o %s %s): %v\n%s", b.name, b.cgo, filepath.Join(dir, b.name), b.pkg, err, out)
		}
	}
	return dir, filepath.Join(dir, "segwi"), nil
}

func writeFile(t *testing.T, path, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
}

// windowSize returns a window's width and height in pixels.
func windowSize(t *testing.T, win string) (int, int) {
	t.Helper()
	_, _, w, h := windowGeometry(t, win)
	return w, h
}

// windowGeometry returns a window's place on the screen and its size, in pixels.
func windowGeometry(t *testing.T, win string) (x, y, w, h int) {
	t.Helper()
	out, err := xdotool(t, "getwindowgeometry", "--shell", win)
	if err != nil {
		t.Fatalf("reading the geometry of window %s: %v: %s", win, err, out)
	}
	for _, line := range strings.Split(out, "\n") {
		for key, v := range map[string]*int{"X=": &x, "Y=": &y, "WIDTH=": &w, "HEIGHT=": &h} {
			if n, ok := strings.CutPrefix(line, key); ok {
				*v, _ = strconv.Atoi(n)
			}
		}
	}
	if w == 0 || h == 0 {
		t.Fatalf("window %s has no size: %s", win, out)
	}
	return x, y, w, h
}

// clickAt clicks the left button at (x, y) inside a window.
func clickAt(t *testing.T, win string, x, y int) {
	t.Helper()
	if out, err := xdotool(t, "mousemove", "--window", win, strconv.Itoa(x), strconv.Itoa(y), "click", "1"); err != nil {
		t.Fatalf("clicking at %d,%d in window %s: %v: %s", x, y, win, err, out)
	}
}

// startRun starts a run as a person does with the mouse: the tray menu's item opens the
// new-run dialog, a click in its task box, the task typed, then the keys given (a choice
// of the dialog's, reached from the task box), a click on Start; it returns once the
// dialog has closed.
func startRun(t *testing.T, tr *tray, item, task string, keys ...string) {
	t.Helper()
	tr.click(t, item)
	dialog := waitForWindow(t, "segwi: new run", windowWait)
	w, h := windowSize(t, dialog)
	clickAt(t, dialog, w/2, h*62/100) // the task box, in the middle of the dialog
	if out, err := xdotool(t, "type", "--delay", "10", task); err != nil {
		t.Fatalf("typing the task: %v: %s", err, out)
	}
	if len(keys) > 0 {
		if out, err := xdotool(t, append([]string{"key", "--delay", "50"}, keys...)...); err != nil {
			t.Fatalf("pressing %v in the new-run dialog: %v: %s", keys, err, out)
		}
	}
	clickAt(t, dialog, 95, h-22) // Start, at its bottom left
	windowGone(t, "segwi: new run", windowWait)
}

// waitForLabel waits until a tray menu item's label matches re.
func waitForLabel(t *testing.T, tr *tray, re *regexp.Regexp, within time.Duration) {
	t.Helper()
	await.For(t, within, fmt.Sprintf("a tray menu item matching %s", re), func() error {
		var labels []string
		for _, it := range tr.items(t) {
			if re.MatchString(it.Label) {
				return nil
			}
			labels = append(labels, it.Label)
		}
		return fmt.Errorf("the menu has %q", labels)
	})
}

// processesIn returns the pids whose working directory is dir: the run's agent and
// whatever it started there.
func processesIn(dir string) []int {
	want, err := filepath.EvalSymlinks(dir)
	if err != nil {
		return nil
	}
	entries, _ := os.ReadDir("/proc")
	var pids []int
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		cwd, err := os.Readlink(filepath.Join("/proc", e.Name(), "cwd"))
		if err == nil && cwd == want {
			pids = append(pids, pid)
		}
	}
	return pids
}
