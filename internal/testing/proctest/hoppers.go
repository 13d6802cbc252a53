package proctest

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/segwi/segwi/internal/testing/await"
	"github.com/segwi/segwi/internal/testing/claudetest"
)

// Hoppers are fork-hoppers (the forkhopper program) that a test has a run start: processes
// that fork, let their parent exit, and do it again every 300 µs for a while, and then
// become `sleep SECONDS` with an empty environment. No scan of /proc can tell whether one
// is still alive, so each holds a FIFO of the test's open for writing, in every process it
// becomes: once the test reads end of file, every one of them has ended.
type Hoppers struct {
	mu      sync.Mutex    // held while reading the FIFO: a fake model may ask Started
	path    string        // the forkhopper program
	fifo    string        // the FIFO they hold open
	fd      int           // the test's read end, non-blocking
	hop     time.Duration // how long each keeps forking
	seconds int           // the sleep each becomes: `sleep SECONDS`
	read    int           // bytes read from the FIFO: one per hopper started
	born    time.Time     // when the test started waiting for the first
}

// NewHoppers builds forkhopper into a folder of the test, and makes the FIFO the hoppers
// started with Command hold open. Each forks for hop and then becomes `sleep SECONDS`; use
// a number of seconds no other test uses. A hopper still alive when the test ends (the
// test failed) is killed once it has become that sleep.
func NewHoppers(t testing.TB, hop time.Duration, seconds int) *Hoppers {
	t.Helper()
	root, err := claudetest.ModuleRoot()
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	h := &Hoppers{path: filepath.Join(dir, "forkhopper"), fifo: filepath.Join(dir, "hoppers"), hop: hop, seconds: seconds, born: time.Now()}
	build := exec.Command("go", "build", "-o", h.path, "./internal/testing/proctest/forkhopper")
	build.Dir = root
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("proctest: building forkhopper: %v\n%s", err, out)
	}
	if err := unix.Mkfifo(h.fifo, 0o600); err != nil {
		t.Fatalf("proctest: making the hoppers' FIFO: %v", err)
	}
	// Non-blocking: open returns at once although no hopper writes yet.
	h.fd, err = unix.Open(h.fifo, unix.O_RDONLY|unix.O_NONBLOCK|unix.O_CLOEXEC, 0)
	if err != nil {
		t.Fatalf("proctest: opening the hoppers' FIFO: %v", err)
	}
	t.Cleanup(func() {
		if !h.gone() {
			h.killLanded(t)
		}
		unix.Close(h.fd)
	})
	return h
}

// Command returns the command line that starts one hopper.
func (h *Hoppers) Command() []string {
	return []string{h.path, "-fifo", h.fifo, "-hop", h.hop.String(), strconv.Itoa(h.seconds)}
}

// Seconds returns the length of the sleep each hopper becomes: `sleep SECONDS` is its
// command line then.
func (h *Hoppers) Seconds() int { return h.seconds }

// Path returns the forkhopper program's path, on every hopper's command line while it hops.
func (h *Hoppers) Path() string { return h.path }

// WaitStarted waits until n hoppers have started, for at most within.
func (h *Hoppers) WaitStarted(t testing.TB, n int, within time.Duration) {
	t.Helper()
	await.For(t, within, strconv.Itoa(n)+" fork-hoppers to start", func() bool { return h.Started(n) })
}

// Started says whether n hoppers have started.
func (h *Hoppers) Started(n int) bool {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.drain()
	if h.read >= n {
		h.born = time.Now()
		return true
	}
	return false
}

// Gone waits until every process the hoppers became has ended, for at most within, and
// says whether they have. Call it only once they started (WaitStarted).
func (h *Hoppers) Gone(within time.Duration) bool {
	deadline := time.Now().Add(within)
	for {
		if h.gone() {
			return true
		}
		if time.Now().After(deadline) {
			return false
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// drain reads what the hoppers wrote so far; it says whether it read end of file (no
// process holds the FIFO open for writing).
func (h *Hoppers) drain() (eof bool) {
	buf := make([]byte, 64)
	for {
		n, err := unix.Read(h.fd, buf)
		switch {
		case n > 0:
			h.read += n
		case err == nil: // 0 bytes: no writer left
			return true
		default: // EAGAIN: writers, nothing to read
			return false
		}
	}
}

// gone says whether the hoppers started and none of their processes is left.
func (h *Hoppers) gone() bool {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.drain() && h.read > 0
}

// killLanded waits until every hopper left has stopped forking, and kills the sleep each
// became.
func (h *Hoppers) killLanded(t testing.TB) {
	h.mu.Lock()
	landed := h.born.Add(h.hop + time.Second)
	h.mu.Unlock()
	time.Sleep(time.Until(landed)) // they fork until then; the clock is all there is
	want := "sleep\x00" + strconv.Itoa(h.seconds) + "\x00"
	entries, _ := os.ReadDir("/proc")
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		cmd, err := os.ReadFile("/proc/" + e.Name() + "/cmdline")
		if err == nil && string(cmd) == want && holds(pid, h.fifo) {
			if err := syscall.Kill(pid, syscall.SIGKILL); err != nil && !errors.Is(err, syscall.ESRCH) {
				t.Logf("proctest: killing hopper %d: %v", pid, err)
			}
		}
	}
}

// holds says whether process pid has path open.
func holds(pid int, path string) bool {
	fds, _ := os.ReadDir("/proc/" + strconv.Itoa(pid) + "/fd")
	for _, fd := range fds {
		if target, _ := os.Readlink("/proc/" + strconv.Itoa(pid) + "/fd/" + fd.Name()); strings.HasPrefix(target, path) {
			return true
		}
	}
	return false
}
