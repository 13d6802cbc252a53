package desktop

import (
	"bufio"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/godbus/dbus/v5"

	"github.com/segwi/segwi/internal/testing/await"
	"github.com/segwi/segwi/internal/testing/claudetest"
	"github.com/segwi/segwi/internal/testing/sessionbus"
	segwitray "github.com/segwi/segwi/tray"
)

// Goals of issues 12, 21 and 22 for segwi's tray process at idle, with and without a
// repository configured: its resident memory, and how often it wakes in idleWindow.
// TestIdleCostOfTheTrayProcess asserts both.
const (
	idleRSSGoalKB    = 25 * 1024
	idleSwitchesGoal = 30
	idleWindow       = 30 * time.Second
)

// pixmap is a StatusNotifierItem icon: (iiay), width, height and ARGB bytes.
type pixmap struct {
	W, H int32
	Pix  []byte
}

// idleProcess is one program measured at idle.
type idleProcess struct {
	name     string
	trayOnly bool // testdata/trayonly, which prints its clicks, rather than segwi itself
	bin      string
	home     string // its HOME, when not the test's shared one
	asserted bool   // segwi's own tray, held to the goals; the others are baselines
	cmd      *exec.Cmd
	out      string // its stdout and stderr
	tray     *tray
	done     chan struct{} // closed once it exited, with err set
	err      error

	rss5, rss35 memory
	switches    int

	// The second measurement, taken only when the first missed a goal: 30 s later.
	rss65     memory
	switches2 int
}

// TestIdleCostOfTheTrayProcess measures, side by side under the same display and tray
// host, what a tray costs with no run and no window, 5 s after launch and 30 s later:
// segwi's tray process without and with a repository configured, and for comparison package tray's systray tray alone (the floor)
// and the same in a binary whose package inits are all of segwi's, Fyne's included, as
// segwi's one binary was before the windows got a program of their own (what merely
// linking Fyne costs: package init, cgo, the libraries the loader maps). It checks
// what the systray tray shows and does, and that none of them starts GL or opens the X
// display (TestTrayAppOnARealDesktop sees both in the window process: the checks can
// fail). It holds segwi's tray to idleRSSGoalKB and idleSwitchesGoal, with and without a
// repository; the figures go to the test log and tray-idle.txt. Its trays run on an X
// display, a session bus and a tray host of the test's own, beside the package's other
// tests, whose windows and tray items never reach them.
func TestIdleCostOfTheTrayProcess(t *testing.T) {
	needTools(t, "ss", "Xvfb", "dbus-daemon", "status-notifier-watcher")
	t.Parallel() // on a desktop of its own, beside the others: see desktopMu
	ownDisplay(t)
	addr := sessionbus.Private(t)
	startTrayHost(t, addr)
	conn, err := dbus.Connect(addr)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	shots := screenshotDir(t)
	home := t.TempDir()
	// A claude segwi finds: without one the tray says so at launch, in a window, and the
	// window process it starts is not the idle tray measured here. It is never run.
	claude := filepath.Join(t.TempDir(), "claude")
	writeFile(t, claude, "#!/bin/sh\nexit 1\n")
	if err := os.Chmod(claude, 0o755); err != nil {
		t.Fatal(err)
	}
	writeFile(t, filepath.Join(home, ".config", "segwi", "config.yaml"), fmt.Sprintf("segwi:\n  claude:\n    path: %q\n", claude))
	// The same with one repository: it made 55 context switches in 30 s, against 3 without
	// (issue 21).
	withRepo := t.TempDir()
	writeFile(t, filepath.Join(withRepo, ".config", "segwi", "config.yaml"), fmt.Sprintf(
		"segwi:\n  claude:\n    path: %q\n  repositories:\n    - name: demo\n      path: %q\n", claude, claudetest.Checkout(t)))
	segwi := buildSegwi(t)
	procs := []*idleProcess{
		{name: "segwi's tray process", bin: segwi, asserted: true},
		{name: "segwi's tray process with one repository", bin: segwi, home: withRepo, asserted: true},
		{name: "systray tray alone (no Fyne linked, cgo off)", trayOnly: true, bin: buildTrayOnly(t, false)},
		{name: "systray tray in a binary linking the package inits of Fyne and all of segwi", trayOnly: true, bin: buildTrayOnly(t, true)},
	}
	launched := time.Now()
	for _, p := range procs {
		p.start(t, home, addr)
	}
	for _, p := range procs {
		p.tray, _ = waitForTray(t, conn, p.cmd.Process.Pid, launched, 30*time.Second)
	}

	idle := segwitray.Snapshot{Now: time.Now()}
	var wantLabels []string
	for _, it := range segwitray.Menu(idle) {
		if !it.Separator {
			wantLabels = append(wantLabels, it.Label)
		}
	}
	for _, p := range procs {
		t.Run(p.name+" shows the title, tooltip, icon and menu", func(t *testing.T) {
			item := conn.Object(p.tray.dest, "/StatusNotifierItem")
			for prop, want := range map[string]string{"Title": "segwi", "Id": "segwi"} {
				if v, err := item.GetProperty("org.kde.StatusNotifierItem." + prop); err != nil || v.Value() != want {
					t.Errorf("%s = %v (%v), want %q", prop, v.Value(), err, want)
				}
			}
			var tip struct { // (sa(iiay)ss): icon name, icons, title, description
				Name   string
				Icons  []pixmap
				Title  string
				Detail string
			}
			if v, err := item.GetProperty("org.kde.StatusNotifierItem.ToolTip"); err != nil || dbus.Store([]any{v.Value()}, &tip) != nil || tip.Title != "segwi: no runs going" {
				t.Errorf("ToolTip = %+v (%v), want the title %q", tip, err, "segwi: no runs going")
			}
			var icons []pixmap
			if v, err := item.GetProperty("org.kde.StatusNotifierItem.IconPixmap"); err != nil || dbus.Store([]any{v.Value()}, &icons) != nil || len(icons) != 1 || icons[0].W == 0 {
				t.Errorf("IconPixmap = %d icons (%v), want the idle icon", len(icons), err)
			}
			var got []string
			for _, it := range p.tray.items(t) {
				got = append(got, it.Label)
			}
			if !slices.Equal(got, wantLabels) {
				t.Errorf("menu = %q, want %q", got, wantLabels)
			}
		})
	}

	// The figures are taken at fixed points, 5 s after launch and 30 s later, so that
	// they compare from run to run; these waits are the measurement's clock. A loaded
	// machine stretches the tray's start (reading the records, checking the repository
	// with git) past 5 s, and a busy one preempts it: when segwi's tray misses a goal in
	// that window, it is measured over a second window of 30 s, and the lower of the two
	// figures is held to the goal. A wake-up that recurs shows in both windows; a tail of
	// the start or a burst of the machine's does not. This tolerates load without hiding
	// a regression: a tray that wakes on a timer, or grows, misses in both windows.
	time.Sleep(time.Until(launched.Add(5 * time.Second)))
	before := map[*idleProcess]int{}
	for _, p := range procs {
		p.rss5, before[p] = readMemory(t, p.cmd.Process.Pid), contextSwitches(t, p.cmd.Process.Pid)
	}
	time.Sleep(idleWindow)
	for _, p := range procs {
		pid := p.cmd.Process.Pid
		p.rss35, p.switches = readMemory(t, pid), contextSwitches(t, pid)-before[p]
		before[p] += p.switches
	}
	if slices.ContainsFunc(procs, (*idleProcess).missedGoal) {
		time.Sleep(idleWindow)
		for _, p := range procs {
			pid := p.cmd.Process.Pid
			p.rss65, p.switches2 = readMemory(t, pid), contextSwitches(t, pid)-before[p]
		}
	}
	load, _ := os.ReadFile("/proc/loadavg")
	var figures []string
	for _, p := range procs {
		pid := p.cmd.Process.Pid
		line := fmt.Sprintf("%s: idle RSS %.1f MB after 5 s, %.1f MB 30 s later (goal <= %d MB); %d context switches in those 30 s (goal <= %d); %s",
			p.name, float64(p.rss5.RSS)/1024, float64(p.rss35.RSS)/1024, idleRSSGoalKB/1024, p.switches, idleSwitchesGoal,
			p.rss35)
		if p.rss65.RSS > 0 {
			line += fmt.Sprintf("; then %.1f MB and %d context switches in the next 30 s", float64(p.rss65.RSS)/1024, p.switches2)
		}
		line += fmt.Sprintf("; %s; load average %s", glAndX(pid), strings.Join(strings.Fields(string(load))[:3], " "))
		t.Log(line)
		figures = append(figures, line)
		for _, l := range strings.Split(p.output(), "\n") {
			if strings.HasPrefix(l, "heap after init: ") {
				n, _ := strconv.Atoi(strings.TrimPrefix(l, "heap after init: "))
				figures = append(figures, fmt.Sprintf("  Go heap in use after package init: %.1f MB", float64(n)/(1<<20)))
			}
		}
		figures = append(figures, "  largest mappings: "+strings.Join(largestMappings(pid, 6), ", "))
	}
	os.WriteFile(filepath.Join(shots, "tray-idle.txt"), []byte(strings.Join(figures, "\n")+"\n"), 0o644)
	for _, p := range procs {
		if !p.asserted {
			continue
		}
		rss, switches := p.best()
		if rss > idleRSSGoalKB {
			t.Errorf("%s: idle RSS %.1f MB, want at most %d MB", p.name, float64(rss)/1024, idleRSSGoalKB/1024)
		}
		if switches > idleSwitchesGoal {
			t.Errorf("%s: %d context switches in %s at idle, want at most %d", p.name, switches, idleWindow, idleSwitchesGoal)
		}
	}

	for _, p := range procs {
		pid := p.cmd.Process.Pid
		if gl, x := usesGL(pid), xConnections(t, pid); gl || x > 0 {
			t.Errorf("%s started GL (%v) or opened the X display (%d connections)", p.name, gl, x)
		}
	}
	for _, p := range procs[2:] {
		t.Run(p.name+" calls the action of a clicked item, and quits on SIGTERM", func(t *testing.T) {
			p.tray.click(t, segwitray.LabelHistory)
			await.For(t, 10*time.Second, "the history action", func() bool {
				return strings.Contains(p.output(), "clicked history")
			})
			p.cmd.Process.Signal(syscall.SIGTERM)
			select {
			case <-p.done:
				if p.err != nil {
					t.Errorf("exited with %v after SIGTERM:\n%s", p.err, p.output())
				}
			case <-time.After(10 * time.Second):
				t.Errorf("still running 10 s after SIGTERM")
			}
		})
	}
}

// missedGoal reports whether p is held to the idle goals and missed one in the first
// window.
func (p *idleProcess) missedGoal() bool {
	return p.asserted && (p.rss35.RSS > idleRSSGoalKB || p.switches > idleSwitchesGoal)
}

// best returns p's lower RSS and fewer context switches of its one or two windows.
func (p *idleProcess) best() (rssKB, switches int) {
	rssKB, switches = p.rss35.RSS, p.switches
	if p.rss65.RSS > 0 {
		rssKB, switches = min(rssKB, p.rss65.RSS), min(switches, p.switches2)
	}
	return rssKB, switches
}

// start starts p with the test's display, the session bus at bus, and a home of its own.
func (p *idleProcess) start(t *testing.T, home, bus string) {
	t.Helper()
	if p.home != "" {
		home = p.home
	}
	p.cmd = onDisplay(t, exec.Command(p.bin))
	p.cmd.Env = append(p.cmd.Env, "DBUS_SESSION_BUS_ADDRESS="+bus, "HOME="+home, "XDG_CONFIG_HOME="+filepath.Join(home, ".config"),
		"XDG_STATE_HOME="+filepath.Join(home, ".state"), "LANG=en_US.UTF-8")
	p.out = filepath.Join(t.TempDir(), "out.log")
	f, err := os.Create(p.out)
	if err != nil {
		t.Fatal(err)
	}
	p.cmd.Stdout, p.cmd.Stderr = f, f
	if err := p.cmd.Start(); err != nil {
		t.Fatalf("starting %s: %v", p.bin, err)
	}
	p.done = make(chan struct{})
	go func() {
		p.err = p.cmd.Wait()
		f.Close()
		close(p.done)
	}()
	t.Cleanup(func() {
		p.cmd.Process.Kill()
		<-p.done
	})
}

// output is what p printed so far.
func (p *idleProcess) output() string {
	b, _ := os.ReadFile(p.out)
	return string(b)
}

// buildTrayOnly builds testdata/trayonly, linking Fyne and all of segwi with linkAll, else
// with cgo off so that nothing of Fyne can be linked.
func buildTrayOnly(t *testing.T, linkAll bool) string {
	t.Helper()
	root, err := claudetest.ModuleRoot()
	if err != nil {
		t.Fatal(err)
	}
	bin := filepath.Join(t.TempDir(), "trayonly")
	args := []string{"build", "-o", bin}
	if linkAll {
		args = append(args, "-tags", "linkall")
	}
	cmd := exec.Command("go", append(args, "./internal/testing/desktop/testdata/trayonly")...)
	cmd.Dir = root
	if !linkAll {
		cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
	}
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("building the tray alone: %v\n%s", err, out)
	}
	return bin
}

// contextSwitches sums the voluntary and involuntary context switches of pid's threads.
func contextSwitches(t *testing.T, pid int) int {
	t.Helper()
	tasks, err := filepath.Glob(fmt.Sprintf("/proc/%d/task/*/status", pid))
	if err != nil || len(tasks) == 0 {
		t.Fatalf("reading the threads of pid %d: %v", pid, err)
	}
	sum := 0
	for _, status := range tasks {
		f, err := os.Open(status)
		if err != nil {
			continue // a thread that ended
		}
		sc := bufio.NewScanner(f)
		for sc.Scan() {
			k, v, _ := strings.Cut(sc.Text(), ":")
			if k == "voluntary_ctxt_switches" || k == "nonvoluntary_ctxt_switches" {
				n, _ := strconv.Atoi(strings.TrimSpace(v))
				sum += n
			}
		}
		f.Close()
	}
	return sum
}

// usesGL reports whether pid has a GL driver loaded: Mesa loads its DRI driver (and
// LLVM) only when a GL context is made, unlike libGL, which the loader maps for any
// binary linked with it.
func usesGL(pid int) bool {
	maps, _ := os.ReadFile(fmt.Sprintf("/proc/%d/maps", pid))
	s := string(maps)
	return strings.Contains(s, "_dri.so") || strings.Contains(s, "libLLVM") || strings.Contains(s, "libgallium")
}

// xConnections counts pid's connections to the X server, from the socket table (ss):
// the server's end of a connection bears the name of the X socket, its peer is pid's.
func xConnections(t *testing.T, pid int) int {
	t.Helper()
	out, err := exec.Command("ss", "-xpn").Output()
	if err != nil {
		t.Fatalf("ss -xpn: %v", err)
	}
	mine := map[string]bool{}
	var xPeers []string
	for _, line := range strings.Split(string(out), "\n") {
		f := strings.Fields(line)
		if len(f) < 8 {
			continue
		}
		// Netid State Recv-Q Send-Q Local Port Peer Port [Process]
		local, localIno, peerIno := f[4], f[5], f[7]
		if strings.Contains(line, fmt.Sprintf("pid=%d,", pid)) {
			mine[localIno] = true
		}
		if strings.Contains(local, ".X11-unix/") {
			xPeers = append(xPeers, peerIno)
		}
	}
	n := 0
	for _, ino := range xPeers {
		if mine[ino] {
			n++
		}
	}
	return n
}

// glAndX says in words whether pid started GL and how many X connections it has.
func glAndX(pid int) string {
	maps, _ := os.ReadFile(fmt.Sprintf("/proc/%d/maps", pid))
	var libs []string
	for _, lib := range []string{"libGL.so", "libGLX", "libX11.so", "_dri.so", "libLLVM"} {
		if strings.Contains(string(maps), lib) {
			libs = append(libs, lib)
		}
	}
	status, _ := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	threads := ""
	for _, l := range strings.Split(string(status), "\n") {
		if v, ok := strings.CutPrefix(l, "Threads:"); ok {
			threads = strings.TrimSpace(v)
		}
	}
	return fmt.Sprintf("%s threads, GL driver loaded: %v, libraries mapped: %s", threads, usesGL(pid), strings.Join(libs, " "))
}

// largestMappings lists pid's n largest resident mappings by file ("[anon]" for the
// rest), as "NAME 12.3 MB".
func largestMappings(pid, n int) []string {
	f, err := os.Open(fmt.Sprintf("/proc/%d/smaps", pid))
	if err != nil {
		return nil
	}
	defer f.Close()
	rss := map[string]int{}
	name := ""
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		fields := strings.Fields(sc.Text())
		switch {
		case len(fields) >= 5 && strings.Contains(fields[0], "-") && !strings.HasSuffix(fields[0], ":"):
			name = "[anon]"
			if len(fields) >= 6 {
				name = filepath.Base(fields[5])
			}
		case len(fields) >= 2 && fields[0] == "Rss:":
			kb, _ := strconv.Atoi(fields[1])
			rss[name] += kb
		}
	}
	names := make([]string, 0, len(rss))
	for k := range rss {
		names = append(names, k)
	}
	slices.SortFunc(names, func(a, b string) int { return rss[b] - rss[a] })
	var out []string
	for _, k := range names[:min(n, len(names))] {
		out = append(out, fmt.Sprintf("%s %.1f MB", k, float64(rss[k])/1024))
	}
	return out
}
