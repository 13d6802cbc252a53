package procexit

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/segwi/segwi/internal/testing/await"
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
	parent, err := os.FindProcess(os.Getppid())
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	go func() { Await(parent); close(done) }() // not a child: waitid says ECHILD
	await.Recv(t, 10*time.Second, "Await of a process that is not a child to return", done)
}

// While Await waits, no thread of this process is in a waitid system call, where a
// blocking Wait keeps one (and, with it, one of Go's Ps, which sysmon then watches every
// 20 µs). The control, a blocking Wait, shows the check can see such a thread.
func TestAwaitLeavesNoThreadInWaitid(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("reads the threads' system calls in /proc")
	}
	start := func() *exec.Cmd {
		t.Helper()
		cmd := exec.Command("sleep", "60")
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { cmd.Process.Kill() })
		return cmd
	}

	blocking := start()
	waited := make(chan struct{})
	go func() { blocking.Wait(); close(waited) }()
	await.For(t, 10*time.Second, "a thread of this process in waitid, under a blocking Wait", func() bool {
		return threadsInWaitid(t) > 0
	})
	blocking.Process.Kill()
	<-waited

	awaited := start()
	done := make(chan struct{})
	go func() { Await(awaited.Process); close(done) }()
	// What the goroutine does within the first 300 ms, sampled every millisecond: it has
	// long reached its wait by then.
	for end := time.Now().Add(300 * time.Millisecond); time.Now().Before(end); time.Sleep(time.Millisecond) {
		if n := threadsInWaitid(t); n > 0 {
			t.Fatalf("%d threads of this process in waitid while Await waits", n)
		}
	}
	select {
	case <-done:
		t.Fatal("Await returned while its child runs")
	default:
	}
	awaited.Process.Kill()
	await.Recv(t, 10*time.Second, "Await to return once its child was killed", done)
	if err := awaited.Wait(); err == nil {
		t.Error("Wait after a kill says the child exited 0")
	}
}

// threadsInWaitid counts the threads of this process that are in a waitid system call
// (/proc/self/task/*/syscall starts with its number).
func threadsInWaitid(t *testing.T) int {
	t.Helper()
	tasks, err := filepath.Glob("/proc/self/task/*/syscall")
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, path := range tasks {
		b, err := os.ReadFile(path)
		if err != nil {
			continue // a thread that ended
		}
		if nr, _, _ := strings.Cut(string(b), " "); nr == strconv.Itoa(unix.SYS_WAITID) {
			n++
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
