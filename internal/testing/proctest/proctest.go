// Package proctest starts and finds processes for the tests of what a run leaves running:
// a process that left the run as `setsid -f` leaves it, and whether one is still alive.
// Only tests import it; it reads /proc, so it works on Linux only.
package proctest

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/segwi/segwi/internal/testing/await"
)

// Detach starts `setsid -f sh -c 'echo $$ >FILE; exec sleep SECONDS'` with env, as a
// process that leaves a run does (a session of its own, its parent gone at once), and
// returns its pid once it runs. Use a sleep length no other test uses: the command line
// "sleep SECONDS" tells the process apart. It is killed at the end of the test if it is
// still alive, so that a failing test leaves nothing behind.
func Detach(t testing.TB, env []string, seconds int) int {
	t.Helper()
	file := filepath.Join(t.TempDir(), "pid")
	cmd := exec.Command("setsid", "-f", "sh", "-c", `echo $$ >"$0"; exec sleep `+strconv.Itoa(seconds), file)
	cmd.Env = env // and no output pipe: the process would hold it open
	if err := cmd.Run(); err != nil {
		t.Fatalf("proctest: setsid -f sh -c 'exec sleep %d': %v", seconds, err)
	}
	var pid int
	await.For(t, 10*time.Second, fmt.Sprintf("the detached sleep %d to start", seconds), func() bool {
		b, err := os.ReadFile(file)
		if err == nil && strings.HasSuffix(string(b), "\n") {
			pid, _ = strconv.Atoi(strings.TrimSpace(string(b)))
		}
		return pid != 0
	})
	marker := "sleep " + strconv.Itoa(seconds)
	// sh's own command line holds the marker too: wait until the process is sleep.
	await.For(t, 10*time.Second, fmt.Sprintf("process %d to become %q", pid, marker), func() bool {
		return Alive(pid, marker) && strings.HasPrefix(cmdline(pid), marker)
	})
	KillAtEnd(t, pid, marker)
	return pid
}

// Alive says whether pid is a live process (a zombie is not) whose command line, its
// arguments joined by spaces, holds s.
func Alive(pid int, s string) bool {
	st, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil || strings.Contains(string(st), ") Z ") {
		return false
	}
	return strings.Contains(cmdline(pid), s)
}

// cmdline is process pid's command line, its arguments joined by spaces; "" when gone.
func cmdline(pid int) string {
	cmd, _ := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/cmdline")
	return strings.TrimSpace(strings.ReplaceAll(string(cmd), "\x00", " "))
}

// KillAtEnd kills pid with SIGKILL at the end of the test if it is still the process
// whose command line holds s.
func KillAtEnd(t testing.TB, pid int, s string) {
	t.Helper()
	t.Cleanup(func() {
		if pid > 0 && Alive(pid, s) {
			syscall.Kill(pid, syscall.SIGKILL)
		}
	})
}
