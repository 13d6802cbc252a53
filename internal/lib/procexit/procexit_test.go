package procexit

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"
)

// Await returns once the child exited, and leaves it to Wait: Wait still reaps it and
// tells its exit status.
func TestAwaitLeavesTheExitToWait(t *testing.T) {
	cmd := exec.Command("sh", "-c", "sleep 0.2; exit 3")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	Await(cmd.Process)
	if took := time.Since(start); took < 150*time.Millisecond {
		t.Errorf("Await returned after %v, before the child's 200 ms were up", took)
	}
	if runtime.GOOS == "linux" {
		if st := procState(t, cmd.Process.Pid); st != "Z" {
			t.Errorf("after Await the child is in state %q, want Z: exited and not reaped", st)
		}
	}
	var ee *exec.ExitError
	if err := cmd.Wait(); !errors.As(err, &ee) || ee.ExitCode() != 3 {
		t.Errorf("Wait after Await = %v, want exit status 3", err)
	}
}

// A process that is not a child, or one already reaped, is not waited for.
func TestAwaitReturnsForWhatItCannotWaitFor(t *testing.T) {
	cmd := exec.Command("true")
	if err := cmd.Run(); err != nil {
		t.Fatal(err)
	}
	Await(cmd.Process) // reaped: returns at once
	self, err := os.FindProcess(os.Getppid())
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	go func() { Await(self); close(done) }() // not a child: waitid says ECHILD
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("Await of a process that is not a child did not return")
	}
}

// Waiting with Await wakes this process's threads a handful of times, where a blocking
// Wait wakes Go's sysmon thread every 20 µs for a millisecond and then less and less
// often until 10 ms have passed: about 60 context switches a wait.
func TestAwaitWaitsWithoutWakingTheProcess(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("counts the threads' context switches in /proc")
	}
	waitFor := func(await bool) int {
		var all []int
		for range 7 {
			cmd := exec.Command("sleep", "0.1")
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			before := switches(t)
			if await {
				Await(cmd.Process)
			}
			cmd.Wait()
			all = append(all, switches(t)-before)
		}
		slices.Sort(all)
		return all[len(all)/2]
	}
	blocking, awaited := waitFor(false), waitFor(true)
	t.Logf("context switches of this process while a child runs 100 ms, median of 7: %d with a blocking Wait, %d with Await first", blocking, awaited)
	if awaited*3 > blocking {
		t.Errorf("waiting with Await took %d context switches, a blocking Wait %d: want under a third", awaited, blocking)
	}
}

// switches returns the voluntary and involuntary context switches of this process's
// threads.
func switches(t *testing.T) int {
	t.Helper()
	tasks, err := filepath.Glob("/proc/self/task/*/status")
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, path := range tasks {
		b, err := os.ReadFile(path)
		if err != nil {
			continue // a thread that ended
		}
		for line := range strings.Lines(string(b)) {
			if k, v, ok := strings.Cut(line, ":"); ok && strings.HasSuffix(k, "ctxt_switches") {
				c, _ := strconv.Atoi(strings.TrimSpace(v))
				n += c
			}
		}
	}
	return n
}

// procState is the state letter of process pid (R, S, Z...).
func procState(t *testing.T, pid int) string {
	t.Helper()
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		t.Fatal(err)
	}
	s := string(b)
	f := strings.Fields(s[strings.LastIndexByte(s, ')')+1:])
	return f[0]
}
