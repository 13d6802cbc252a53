package desktop

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/segwi/segwi/internal/testing/await"
)

// windowProcess returns the pid of the window process the tray process tray started
// (segwi-windows, a child of the tray), or 0 when none runs.
func windowProcess(tray int) int {
	entries, _ := os.ReadDir("/proc")
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		stat, err := os.ReadFile(filepath.Join("/proc", e.Name(), "stat"))
		if err != nil {
			continue
		}
		// pid (comm) state ppid ...: comm may hold spaces, so read after its last ')'.
		rest := string(stat[strings.LastIndexByte(string(stat), ')')+1:])
		f := strings.Fields(rest)
		if len(f) < 2 || f[1] != strconv.Itoa(tray) {
			continue
		}
		exe, _ := os.Readlink(filepath.Join("/proc", e.Name(), "exe"))
		if filepath.Base(exe) == "segwi-windows" && f[0] != "Z" {
			return pid
		}
	}
	return 0
}

// waitForWindowProcess waits until the tray has a window process and returns its pid.
func waitForWindowProcess(t *testing.T, tray int, within time.Duration) int {
	t.Helper()
	var pid int
	await.For(t, within, fmt.Sprintf("the window process of tray %d", tray), func() bool {
		pid = windowProcess(tray)
		return pid != 0
	})
	return pid
}

// noWindowProcess waits until the tray has no window process.
func noWindowProcess(t *testing.T, tray int, within time.Duration) {
	t.Helper()
	await.For(t, within, fmt.Sprintf("tray %d to have no window process", tray), func() error {
		if pid := windowProcess(tray); pid != 0 {
			return fmt.Errorf("window process %d runs", pid)
		}
		return nil
	})
}

// alive reports whether the process pid exists and is not a zombie.
func alive(pid int) bool {
	stat, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return false
	}
	f := strings.Fields(string(stat[strings.LastIndexByte(string(stat), ')')+1:]))
	return len(f) > 0 && f[0] != "Z"
}

// figures collects the figures a test measures: logged, and written to dir/name at the
// end of the test.
type figures struct {
	t     *testing.T
	lines []string
}

func newFigures(t *testing.T, dir, name string) *figures {
	f := &figures{t: t}
	t.Cleanup(func() {
		os.WriteFile(filepath.Join(dir, name), []byte(strings.Join(f.lines, "\n")+"\n"), 0o644)
	})
	return f
}

// add logs a figure and keeps it for the file.
func (f *figures) add(format string, args ...any) {
	line := fmt.Sprintf(format, args...)
	f.t.Log(line)
	f.lines = append(f.lines, line)
}

// closeWindow closes the window id, on test t's display, as a window manager's close
// button does.
func closeWindow(t *testing.T, id string) {
	t.Helper()
	if err := CloseWindow(displayFor(t), id); err != nil {
		t.Fatal(err)
	}
}

// ms is d in milliseconds, for figures.
func ms(d time.Duration) int64 { return d.Milliseconds() }

// listening returns what the process pid listens on, as ss prints it: unix sockets
// (named or abstract) and TCP ports. A socket pair listens on nothing.
func listening(t *testing.T, pid int) []string {
	t.Helper()
	var out []string
	for _, args := range [][]string{{"-xlpn"}, {"-tlpn"}} {
		b, err := exec.Command("ss", args...).Output()
		if err != nil {
			t.Fatalf("ss %s: %v", args[0], err)
		}
		for _, line := range strings.Split(string(b), "\n") {
			if strings.Contains(line, fmt.Sprintf("pid=%d,", pid)) {
				out = append(out, strings.Join(strings.Fields(line), " "))
			}
		}
	}
	return out
}
