package e2e

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
	"unsafe"

	"github.com/segwi/segwi/internal/testing/claudetest"
	"github.com/segwi/segwi/internal/testing/syncbuf"
	"github.com/segwi/segwi/runs"
)

// The figures of a run that prints a flood of output, measured from segwi's own CPU time
// (its /proc/PID/stat once it has exited, before it is reaped: its threads, the garbage
// collector's included, and not Claude Code's), with Claude Code's stand-in
// (runs/claude/testdata/fakeclaude) printing a known volume as fast as the pty takes it.
// `go test -run Flood -v` prints them.
const (
	// floodBytes is the volume of stream-json the fake claude prints: 200 MiB of 4 KB
	// messages, about 51,000 events.
	floodBytes = 200 << 20
	// floodGoal is the goal for segwi run's recording, in MiB of output per CPU-second.
	floodGoal = 50.0
	// floodTries is how many times each figure is measured; the best counts, so that a
	// machine busy with other work does not fail the test.
	floodTries = 3
)

// TestSegwiRunRecordsAFloodOfOutputQuickly runs segwi run on a claude that prints 200 MiB,
// and segwi runs events on what it recorded. A yardstick measured in the same test (the
// CPU time to check that the same stream-json is valid JSON, in this process) tells a slow
// machine from a slow segwi: the test fails when segwi run's rate falls well below it.
func TestSegwiRunRecordsAFloodOfOutputQuickly(t *testing.T) {
	alone(t)
	if testing.Short() {
		t.Skip("200 MiB of output, three times: not in -short")
	}
	s := newFloodScenario(t)
	yard := yardstick(t)

	var best float64
	var id string
	for try := range floodTries {
		m := s.measure(t, "run", "fake:flood="+strconv.Itoa(floodBytes))
		if m.code != 0 {
			t.Fatalf("segwi run exited %d:\n%s", m.code, m.stderr)
		}
		rate := float64(floodBytes) / (1 << 20) / m.cpu.Seconds()
		t.Logf("segwi run, try %d: %s of segwi's CPU (%.1f MiB per CPU-second), %s wall, %d bytes printed",
			try+1, m.cpu.Round(time.Millisecond), rate, m.wall.Round(time.Millisecond), m.stdout)
		best = max(best, rate)
		id = runLine.FindStringSubmatch(m.stderr)[1]
	}
	t.Logf("segwi run records a flood at %.1f MiB per CPU-second (best of %d; goal %.0f); the yardstick runs at %.1f, a ratio of %.2f",
		best, floodTries, floodGoal, yard, best/yard)
	if best < floodGoal {
		t.Logf("below the goal: on a machine this busy, compare the ratio (0.23 met the goal at a load of 20 on 2 cores)")
	}
	// Before the printer cut texts before escaping them and printed in batches, segwi
	// run's ratio to this yardstick was 0.10 (18.8 MiB per CPU-second where the yardstick
	// ran at 182); since, 0.23 (53.2 where it ran at 227), its single tries down to 0.18.
	if best/yard < 0.15 {
		t.Errorf("segwi run records at %.1f MiB per CPU-second, %.2f of the yardstick's %.1f: want at least 0.15 of it", best, best/yard, yard)
	}

	t.Run("segwi runs events prints the run in under a second", func(t *testing.T) {
		st, err := os.Stat(filepath.Join(runs.RunsDir(s.stateDir()), id, "events.jsonl"))
		if err != nil {
			t.Fatal(err)
		}
		if st.Size() > runs.MaxEventsBytes+1<<20 {
			t.Errorf("events.jsonl of the 200 MiB run holds %d bytes, want at most its cap of %d and what is kept past it", st.Size(), runs.MaxEventsBytes)
		}
		wall, cpu, share := s.bestOf(t, "runs", "events", id)
		t.Logf("segwi runs events of the 200 MiB run (events.jsonl %.1f MiB): %s wall, %s of CPU (best of %d); the fastest had %.0f%% of a core",
			float64(st.Size())/(1<<20), wall.Round(time.Millisecond), cpu.Round(time.Millisecond), floodTries, 100*share)
		// Its wall time is judged where the machine gave it most of a core: in the test
		// command, beside other packages, it once took 1.07 s for 230 ms of CPU (a fifth of
		// a core), where alone it takes 156 to 221 ms. Its CPU is judged always.
		switch {
		case wall >= time.Second && share >= 0.5:
			t.Errorf("segwi runs events took %s with %.0f%% of a core, want under a second", wall.Round(time.Millisecond), 100*share)
		case wall >= time.Second:
			t.Logf("the machine was too busy to judge the wall time (%.0f%% of a core); the CPU is judged instead", 100*share)
		}
		if cpu >= time.Second {
			t.Errorf("segwi runs events took %s of CPU, want under a second", cpu.Round(time.Millisecond))
		}
	})

	t.Run("segwi runs events reads an uncapped record of 200 MiB quickly", func(t *testing.T) {
		// As a segwi without the cap recorded such a run: every one of its events.
		old := writeUncappedRecord(t, s.stateDir(), floodBytes)
		wall, cpu, _ := s.bestOf(t, "runs", "events", old)
		t.Logf("segwi runs events of an uncapped 200 MiB record: %s wall, %s of CPU (best of %d)",
			wall.Round(time.Millisecond), cpu.Round(time.Millisecond), floodTries)
		// Before: 7 to 9 CPU-seconds, 36% of them escaping whole texts.
		if cpu >= 2*time.Second {
			t.Errorf("segwi runs events took %s of CPU, want under 2 s", cpu.Round(time.Millisecond))
		}
	})
}

// newFloodScenario is a scenario whose claude is Claude Code's stand-in: it needs
// no model server.
func newFloodScenario(t *testing.T) *scenario {
	t.Helper()
	s := &scenario{t: t, env: claudetest.Env(t, "http://127.0.0.1:9"), checkout: claudetest.Checkout(t), claude: fakeClaude(t)}
	s.writeConfig(config{})
	return s
}

var fakeClaudeBuild struct {
	once sync.Once
	path string
}

// fakeClaude builds runs/claude/testdata/fakeclaude once, beside the segwi binary.
func fakeClaude(t *testing.T) string {
	t.Helper()
	b := &fakeClaudeBuild
	b.once.Do(func() { b.path = claudetest.BuildFakeClaude(t, filepath.Dir(segwiBin)) })
	if b.path == "" {
		t.Fatal("building runs/claude/testdata/fakeclaude failed (see the first test that tried)")
	}
	return b.path
}

// measured is one segwi process measured.
type measured struct {
	cpu, wall time.Duration // segwi's own CPU (user and system, not its children's), and wall time
	stdout    int64         // bytes printed
	stderr    string
	code      int
}

// measure runs segwi with args in the checkout (no terminal) and measures it.
func (s *scenario) measure(t *testing.T, args ...string) measured {
	t.Helper()
	cmd := exec.Command(segwiBin, args...)
	cmd.Dir = s.checkout
	cmd.Env = s.env.Vars()
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	var out counter
	var errOut syncbuf.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	began := time.Now()
	if err := cmd.Start(); err != nil {
		t.Fatalf("starting segwi: %v", err)
	}
	cpu, err := cpuAtExit(cmd.Process.Pid)
	wall := time.Since(began)
	cmd.Wait()
	if err != nil {
		t.Fatalf("measuring segwi: %v", err)
	}
	return measured{cpu: cpu, wall: wall, stdout: out.n, stderr: errOut.String(), code: cmd.ProcessState.ExitCode()}
}

// bestOf measures segwi with args floodTries times and returns the best wall and CPU time,
// each the best of the tries, and the fastest try's share of a core: its CPU over its wall
// time, which tells a machine too busy to give segwi the CPU it asked for. It fails the
// test when segwi does not exit 0.
func (s *scenario) bestOf(t *testing.T, args ...string) (wall, cpu time.Duration, share float64) {
	t.Helper()
	for range floodTries {
		m := s.measure(t, args...)
		if m.code != 0 {
			t.Fatalf("segwi %s exited %d:\n%s", strings.Join(args, " "), m.code, m.stderr)
		}
		if wall == 0 || m.wall < wall {
			wall, share = m.wall, float64(m.cpu)/float64(m.wall)
		}
		if cpu == 0 || m.cpu < cpu {
			cpu = m.cpu
		}
	}
	return wall, cpu, share
}

// cpuAtExit waits for the child pid to exit, without reaping it, and returns the CPU time
// it used itself (utime and stime of /proc/PID/stat: all its threads, none of its
// children).
func cpuAtExit(pid int) (time.Duration, error) {
	const pPID, wExited, wNoWait = 1, 4, 0x01000000
	var info [128]byte // siginfo_t
	for {
		_, _, errno := syscall.Syscall6(syscall.SYS_WAITID, pPID, uintptr(pid), uintptr(unsafe.Pointer(&info)), wExited|wNoWait, 0, 0)
		if errno == syscall.EINTR {
			continue
		}
		if errno != 0 {
			return 0, fmt.Errorf("waitid: %w", errno)
		}
		break
	}
	stat, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0, err
	}
	// pid (comm) state ppid ... utime stime: the 14th and 15th fields, after comm.
	f := strings.Fields(string(stat[bytes.LastIndexByte(stat, ')')+1:]))
	utime, err1 := strconv.ParseInt(f[11], 10, 64)
	stime, err2 := strconv.ParseInt(f[12], 10, 64)
	if err1 != nil || err2 != nil {
		return 0, fmt.Errorf("reading the CPU times of %q", stat)
	}
	const ticks = 100 // USER_HZ, which Linux fixes at 100 for /proc
	return time.Duration(utime+stime) * time.Second / ticks, nil
}

// counter counts the bytes written to it.
type counter struct{ n int64 }

func (c *counter) Write(b []byte) (int, error) {
	c.n += int64(len(b))
	return len(b), nil
}

// floodLine is a line of the fake claude's flood: an assistant message of about 4 KB.
func floodLine() []byte {
	chunk := strings.Repeat("lorem ipsum dolor sit amet, consectetur adipiscing elit. ", 70)
	line, _ := json.Marshal(map[string]any{"type": "assistant", "message": map[string]any{"content": []any{map[string]any{"type": "text", "text": chunk}}}})
	return append(line, '\n')
}

// yardstick returns how fast this machine, as loaded now, checks that stream-json is valid
// JSON (encoding/json's scanner on one thread), in MiB per CPU-second: best of three
// checks of 16 MiB.
func yardstick(t *testing.T) float64 {
	t.Helper()
	line := floodLine()
	lines := bytes.Repeat(line, (16<<20)/len(line))
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	var best float64
	for range floodTries {
		before := threadCPU()
		for l := range bytes.Lines(lines) {
			if !json.Valid(l) {
				t.Fatal("the yardstick's line is not JSON")
			}
		}
		best = max(best, float64(len(lines))/(1<<20)/(threadCPU()-before).Seconds())
	}
	return best
}

// threadCPU is the CPU time this thread has used.
func threadCPU() time.Duration {
	var ru syscall.Rusage
	syscall.Getrusage(1 /* RUSAGE_THREAD */, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// writeUncappedRecord writes the record of a run that printed about n bytes of the
// flood's messages, each recorded as a text event, as a segwi without events.jsonl's cap
// recorded it, and returns its id.
func writeUncappedRecord(t *testing.T, stateDir string, n int) string {
	t.Helper()
	const id = "20250102-150405-f100d0"
	dir := filepath.Join(runs.RunsDir(stateDir), id)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	at := time.Date(2025, 1, 2, 15, 4, 5, 0, time.UTC)
	info := runs.Info{ID: id, Kind: runs.KindBuild, Checkout: "/src/web", Prompt: "flood", State: runs.StateSucceeded, Created: at, Start: at, End: at}
	b, err := info.AppendJSON(nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "run.json"), b, 0o600); err != nil {
		t.Fatal(err)
	}
	f, err := os.Create(filepath.Join(dir, "events.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var text struct {
		Message struct {
			Content []struct{ Text string }
		}
	}
	line := floodLine()
	json.Unmarshal(line, &text)
	var buf []byte
	written := 0
	for seq := int64(1); written < n; seq++ {
		e := runs.Event{RunID: id, Seq: seq, Time: at, Type: runs.EventText, Text: text.Message.Content[0].Text}
		b, err := e.AppendJSON(buf[:0])
		if err != nil {
			t.Fatal(err)
		}
		buf = append(b, '\n')
		if _, err := f.Write(buf); err != nil {
			t.Fatal(err)
		}
		written += len(line)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	return id
}
