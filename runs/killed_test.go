package runs

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/segwi/segwi/internal/testing/await"
)

// What a run's reason says of a signal segwi did not send, from what the kernel counted
// and logged: the out-of-memory killer only when the kernel says so, and what it cannot
// tell when the kernel log is closed to it.
func TestAKilledRunSaysWhoKilledItAsFarAsTheKernelTells(t *testing.T) {
	closed := fmt.Errorf("open /dev/kmsg: %w", os.ErrPermission)
	count := func(n int64) oomCount { return oomCount{n: n} }
	unread := oomCount{err: errors.New("unreadable")}
	for _, tc := range []struct {
		name  string
		facts killFacts
		want  []string
		never []string
	}{
		{"a SIGTERM from outside names the signal and says segwi did not send it",
			killFacts{sig: syscall.SIGTERM},
			[]string{"SIGTERM (terminated)", "segwi did not send", "another program or a person"}, []string{"killed by killed", "out-of-memory"}},
		{"a SIGSEGV says claude crashed or another program sent it",
			killFacts{sig: syscall.SIGSEGV},
			[]string{"SIGSEGV (segmentation fault)", "claude crashed"}, nil},
		{"the kernel log naming the process says the out-of-memory killer, quoting it",
			killFacts{sig: syscall.SIGKILL, pid: 42, logLine: "Out of memory: Killed process 42 (claude)"},
			[]string{"out-of-memory killer killed claude", `"Out of memory: Killed process 42 (claude)"`}, nil},
		{"a readable kernel log without the kill says it was not the out-of-memory killer",
			killFacts{sig: syscall.SIGKILL, pid: 42, machineBefore: count(3), machineAfter: count(4)},
			[]string{"SIGKILL, which segwi did not send, and not by the kernel's out-of-memory killer", "names no out-of-memory kill of process 42",
				"another program or a person"}, nil},
		{"a closed kernel log and no kill counted on the machine say it was not the out-of-memory killer",
			killFacts{sig: syscall.SIGKILL, logErr: closed, machineBefore: count(3), machineAfter: count(3), cgroupBefore: unread, cgroupAfter: unread},
			[]string{"not by the kernel's out-of-memory killer", "counted no out-of-memory kill on this machine"}, nil},
		{"a closed kernel log and a kill counted in claude's cgroup say so, and that segwi cannot tell more",
			killFacts{sig: syscall.SIGKILL, logErr: closed, group: "/user.slice/app.scope", machineBefore: count(3), machineAfter: count(4),
				cgroupBefore: count(0), cgroupAfter: count(1)},
			[]string{"killed 1 process in claude's memory cgroup /user.slice/app.scope", "Whether claude was one segwi cannot tell",
				"kernel.dmesg_restrict", "sudo dmesg"}, []string{"not by the kernel's"}},
		{"a closed kernel log and kills counted only elsewhere on the machine say so",
			killFacts{sig: syscall.SIGKILL, logErr: closed, group: "/app.scope", machineBefore: count(3), machineAfter: count(5),
				cgroupBefore: count(0), cgroupAfter: count(0)},
			[]string{"killed 2 processes on this machine", "cannot tell"}, nil},
		{"nothing readable says what segwi cannot tell",
			killFacts{sig: syscall.SIGKILL, logErr: closed, machineBefore: unread, machineAfter: unread, cgroupBefore: unread, cgroupAfter: unread},
			[]string{"another program or a person sent it, or the kernel's out-of-memory killer", "cannot tell which"}, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := tc.facts.say()
			for _, w := range tc.want {
				if !strings.Contains(got, w) {
					t.Errorf("said %q, want it to hold %q", got, w)
				}
			}
			for _, n := range tc.never {
				if strings.Contains(got, n) {
					t.Errorf("said %q, which should not hold %q", got, n)
				}
			}
		})
	}
}

// A run whose Claude Code gets a signal from outside segwi ends failed, its reason naming
// the signal in words, saying segwi did not send it, and, for SIGKILL, that the kernel's
// out-of-memory killer did not either.
func TestARunKilledFromOutsideSaysSegwiDidNotSendTheSignal(t *testing.T) {
	for _, tc := range []struct {
		sig  syscall.Signal
		want string
	}{
		{syscall.SIGTERM, "claude was killed by SIGTERM (terminated), which segwi did not send"},
		{syscall.SIGKILL, "claude was killed by SIGKILL, which segwi did not send, and not by the kernel's out-of-memory killer"},
	} {
		t.Run(unixName(tc.sig), func(t *testing.T) {
			m, recDir := testManager(t, nil)
			r := start(t, m, Spec{Prompt: "fake:silent"})
			rec := waitStart(t, recDir, r.ID())
			if err := syscall.Kill(rec.PID, tc.sig); err != nil {
				t.Fatal(err)
			}
			info := wait(t, r)
			if info.State != StateFailed || !strings.HasPrefix(info.Reason, tc.want) {
				t.Errorf("run ended %s: %q, want failed: %q…", info.State, info.Reason, tc.want)
			}
			if strings.Contains(info.Reason, "killed by killed") || strings.Contains(info.Reason, "killed by terminated") {
				t.Errorf("reason %q names the signal by its bare description", info.Reason)
			}
		})
	}
}

func unixName(sig syscall.Signal) string { return strings.ReplaceAll(sig.String(), " ", "-") }

// A run whose Claude Code the kernel's out-of-memory killer kills (in a memory cgroup with a
// small limit, which the fake joins) says so, quoting the kernel log when segwi can read it,
// and when it cannot, what the kernel counted and that it cannot tell more. It needs a
// memory cgroup the test may make (root, cgroup v1's memory controller or v2's): skipped
// elsewhere.
func TestARunTheOutOfMemoryKillerKilledSaysSo(t *testing.T) {
	for _, logClosed := range []bool{false, true} {
		name := "with the kernel log"
		if logClosed {
			name = "without the kernel log"
		}
		t.Run(name, func(t *testing.T) {
			dir := limitedMemoryCgroup(t, 48<<20)
			if logClosed {
				orig := openKernelLogFunc
				openKernelLogFunc = func() (*kernelLog, error) {
					return nil, fmt.Errorf("open /dev/kmsg: %w", os.ErrPermission)
				}
				t.Cleanup(func() { openKernelLogFunc = orig })
			} else if l, err := openKernelLog(); err != nil {
				t.Skipf("the kernel log is not readable here: %v", err)
			} else {
				l.close()
			}
			m, _ := testManager(t, nil)
			r := start(t, m, Spec{Prompt: "fake:oom=" + dir})
			info := waitWithin(t, r, time.Minute)
			want := "the kernel's out-of-memory killer killed claude (SIGKILL): the kernel log says \"Memory cgroup out of memory: Killed process"
			if logClosed {
				want = "claude was killed by SIGKILL, which segwi did not send; meanwhile the kernel's out-of-memory killer killed"
			}
			if info.State != StateFailed || !strings.Contains(info.Reason, want) {
				t.Fatalf("run ended %s: %q, want failed: %q…", info.State, info.Reason, want)
			}
			if logClosed && !strings.Contains(info.Reason, "Whether claude was one segwi cannot tell") {
				t.Errorf("reason %q does not say what segwi cannot tell", info.Reason)
			}
			t.Logf("reason: %s", info.Reason)
		})
	}
}

// limitedMemoryCgroup makes a memory cgroup under this process's own, holding at most limit
// bytes and no swap, removed at the end of the test; it skips the test where none can be made.
func limitedMemoryCgroup(t *testing.T, limit int64) string {
	t.Helper()
	mounts := cgroupMounts()
	data, err := os.ReadFile("/proc/self/cgroup")
	if err != nil {
		t.Skipf("no cgroups here: %v", err)
	}
	// The limits go in this order: cgroup v1 refuses memory+swap below the memory limit.
	type limitFile struct {
		name  string
		value int64
	}
	var dir string
	var files []limitFile
	for _, line := range strings.Split(string(data), "\n") {
		parts := strings.SplitN(line, ":", 3)
		if len(parts) != 3 {
			continue
		}
		if hasWord(parts[1], "memory") && mounts.memory != "" {
			dir = filepath.Join(mounts.memory, parts[2])
			files = []limitFile{{"memory.limit_in_bytes", limit}, {"memory.memsw.limit_in_bytes", limit}}
			break
		}
		if parts[0] == "0" && parts[1] == "" && mounts.unified != "" {
			parent := filepath.Join(mounts.unified, parts[2])
			if c, _ := os.ReadFile(filepath.Join(parent, "cgroup.subtree_control")); strings.Contains(string(c), "memory") {
				dir, files = parent, []limitFile{{"memory.max", limit}, {"memory.swap.max", 0}}
			}
		}
	}
	if dir == "" {
		t.Skip("no memory cgroup controller to limit a process with here")
	}
	dir = filepath.Join(dir, fmt.Sprintf("segwi-oom-test-%d", os.Getpid()))
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Skipf("cannot make a memory cgroup here: %v", err)
	}
	t.Cleanup(func() {
		// The fake is dead by now; its cgroup empties as the kernel reaps it.
		await.For(t, 10*time.Second, "the test's memory cgroup to be removed", func() error { return os.Remove(dir) })
	})
	for _, lf := range files {
		f := filepath.Join(dir, lf.name)
		if _, err := os.Stat(f); err != nil {
			continue // no swap accounting here
		}
		if err := os.WriteFile(f, []byte(fmt.Sprint(lf.value)), 0o644); err != nil {
			t.Fatalf("limiting %s: %v", f, err)
		}
	}
	return dir
}
