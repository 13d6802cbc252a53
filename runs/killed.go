package runs

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// A run's Claude Code that dies of a signal segwi did not send was killed by someone else:
// another program or a person (kill), or the kernel's out-of-memory killer. segwi cannot
// learn who sent a signal to its child (wait reports the signal, not its sender), but the
// kernel says when its out-of-memory killer kills: it counts each kill, for the machine
// (/proc/vmstat's oom_kill) and for the memory cgroup of the process killed (memory.events
// in cgroup v2, memory.oom_control in v1), and it logs the pid it killed ("Killed process
// 1234 (claude)") in the kernel log. So a run reads the counts when its process starts and
// again when it dies, and reads the kernel log's records since that start only once the
// process died of a SIGKILL segwi did not send, and the run's reason says what those show,
// without guessing beyond them. The kernel log is often closed to users
// (kernel.dmesg_restrict); the counts are readable by anyone.

// killWitness is what a run read when its Claude Code started, to tell later who killed it.
type killWitness struct {
	pid     int
	machine oomCount      // /proc/vmstat's oom_kill
	cgroup  oomCount      // the memory cgroup's count of the process, where it is readable
	group   string        // that memory cgroup, as /proc/PID/cgroup names it; "" when unknown
	file    string        // the file its count is read from
	since   time.Duration // when it started, by the kernel log's clock (kernelLogNow)
}

// oomCount is a count of out-of-memory kills, or why it could not be read.
type oomCount struct {
	n   int64
	err error
}

// watchKills reads what tells later who killed process pid, which has just started.
func watchKills(pid int) *killWitness {
	w := &killWitness{pid: pid}
	w.machine = readVmstatOOM()
	w.group, w.file = memoryCgroupFile(pid)
	w.cgroup = readCgroupOOM(w.file)
	w.since = kernelLogNow()
	return w
}

// verdict says who killed the process with sig, from what the kernel counted and logged
// since it started; "" without a witness. segwi sent no signal to it (its stop would have
// said so).
func (w *killWitness) verdict(sig syscall.Signal) string {
	if w == nil {
		return ""
	}
	f := killFacts{sig: sig, pid: w.pid, group: w.group}
	if sig == syscall.SIGKILL {
		f.machineBefore, f.machineAfter = w.machine, readVmstatOOM()
		f.cgroupBefore, f.cgroupAfter = w.cgroup, readCgroupOOM(w.file)
		if log, err := openKernelLogFunc(); err != nil {
			f.logErr = err
		} else {
			f.logLine, f.logErr = log.killed(w.pid, w.since)
			log.close()
		}
	}
	return f.say()
}

// killFacts are what segwi knows about a signal that killed a run's Claude Code.
type killFacts struct {
	sig                         syscall.Signal
	pid                         int
	machineBefore, machineAfter oomCount
	cgroupBefore, cgroupAfter   oomCount
	group                       string
	logLine                     string // the kernel log's line about killing pid; "" when none
	logErr                      error  // why the kernel log could not be read; nil when it was
}

// say puts the facts in words: who killed the process, as far as the kernel tells.
func (f killFacts) say() string {
	what := signalWords(f.sig)
	switch f.sig {
	case syscall.SIGKILL:
	case syscall.SIGSEGV, syscall.SIGBUS, syscall.SIGILL, syscall.SIGFPE, syscall.SIGABRT, syscall.SIGTRAP, syscall.SIGSYS:
		return fmt.Sprintf("claude ended on %s, which segwi never sends: claude crashed, or another program sent it", what)
	default:
		return fmt.Sprintf("claude was killed by %s, which segwi did not send: another program or a person sent it", what)
	}
	if f.logLine != "" {
		return "the kernel's out-of-memory killer killed claude (SIGKILL): the kernel log says \"" + f.logLine + "\""
	}
	notOOM := "claude was killed by SIGKILL, which segwi did not send, and not by the kernel's out-of-memory killer (%s): another program or a person sent it"
	if f.logErr == nil {
		return fmt.Sprintf(notOOM, fmt.Sprintf("the kernel log names no out-of-memory kill of process %d", f.pid))
	}
	// The machine's count is the proof that no out-of-memory kill happened: it counts every
	// one, wherever the process was. The cgroup's count narrows a kill down to claude's
	// cgroup, as it was when claude started (a process moved since is counted elsewhere).
	cg, cgOK := f.cgroupAfter.n-f.cgroupBefore.n, f.cgroupBefore.err == nil && f.cgroupAfter.err == nil
	mc, mcOK := f.machineAfter.n-f.machineBefore.n, f.machineBefore.err == nil && f.machineAfter.err == nil
	unread := "the kernel log, which names the process killed, is not readable by segwi here (" + logHint(f.logErr) + ")"
	maybe := "claude was killed by SIGKILL, which segwi did not send; meanwhile the kernel's out-of-memory killer killed %s. " +
		"Whether claude was one segwi cannot tell: %s"
	switch {
	case mcOK && mc == 0:
		return fmt.Sprintf(notOOM, "the kernel counted no out-of-memory kill on this machine meanwhile")
	case cgOK && cg > 0:
		return fmt.Sprintf(maybe, processes(int(cg))+" in claude's memory cgroup "+f.group, unread)
	case mcOK:
		return fmt.Sprintf(maybe, processes(int(mc))+" on this machine", unread)
	case cgOK:
		return fmt.Sprintf(notOOM, "it killed nothing in claude's memory cgroup "+f.group+" meanwhile")
	}
	return "claude was killed by SIGKILL, which segwi did not send: another program or a person sent it, or the kernel's " +
		"out-of-memory killer; segwi cannot tell which, as it can read neither the kernel's count of out-of-memory kills " +
		"nor the kernel log here"
}

// logHint says why the kernel log cannot be read, and where a person can read it.
func logHint(err error) string {
	if errors.Is(err, os.ErrPermission) {
		return "kernel.dmesg_restrict keeps it from users; sudo dmesg shows it"
	}
	return err.Error()
}

// openKernelLogFunc opens the kernel log; tests replace it to see what segwi says when the
// log is closed to it.
var openKernelLogFunc = openKernelLog

// readVmstatOOM reads the machine's count of out-of-memory kills.
func readVmstatOOM() oomCount {
	data, err := os.ReadFile("/proc/vmstat")
	if err != nil {
		return oomCount{err: err}
	}
	return fieldCount(data, "oom_kill", "/proc/vmstat")
}

// readCgroupOOM reads a memory cgroup's count of out-of-memory kills from file: cgroup v2's
// memory.events.local or memory.events, or v1's memory.oom_control.
func readCgroupOOM(file string) oomCount {
	if file == "" {
		return oomCount{err: errors.New("no memory cgroup found")}
	}
	data, err := os.ReadFile(file)
	if err != nil {
		return oomCount{err: err}
	}
	return fieldCount(data, "oom_kill", file)
}

// fieldCount reads the number after key in a "key value" per line file.
func fieldCount(data []byte, key, file string) oomCount {
	sc := bufio.NewScanner(bytes.NewReader(data))
	for sc.Scan() {
		k, v, ok := strings.Cut(sc.Text(), " ")
		if ok && k == key {
			n, err := strconv.ParseInt(strings.TrimSpace(v), 10, 64)
			if err != nil {
				return oomCount{err: fmt.Errorf("%s: %s: %w", file, key, err)}
			}
			return oomCount{n: n}
		}
	}
	return oomCount{err: fmt.Errorf("%s has no %s", file, key)}
}

// memoryCgroupFile returns process pid's memory cgroup, as /proc/PID/cgroup names it, and
// the file that counts its out-of-memory kills; "" for the file when there is none (no
// cgroups, a cgroup v2 without the memory controller).
func memoryCgroupFile(pid int) (group, file string) {
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/cgroup", pid))
	if err != nil {
		return "", ""
	}
	mounts := cgroupMounts()
	sc := bufio.NewScanner(bytes.NewReader(data))
	var v1, v2 string
	for sc.Scan() {
		parts := strings.SplitN(sc.Text(), ":", 3)
		if len(parts) != 3 {
			continue
		}
		switch {
		case parts[0] == "0" && parts[1] == "":
			v2 = parts[2]
		case hasWord(parts[1], "memory"):
			v1 = parts[2]
		}
	}
	if v1 != "" && mounts.memory != "" {
		if f := filepath.Join(mounts.memory, v1, "memory.oom_control"); exists(f) {
			return v1, f
		}
	}
	if v2 != "" && mounts.unified != "" {
		for _, name := range []string{"memory.events.local", "memory.events"} {
			if f := filepath.Join(mounts.unified, v2, name); exists(f) {
				return v2, f
			}
		}
	}
	return "", ""
}

// cgroupMounts are where the cgroup hierarchies are mounted: cgroup v2's, and cgroup v1's
// memory controller's.
type cgroupMountPoints struct{ unified, memory string }

// cgroupMounts reads /proc/self/mountinfo for the cgroup mounts.
func cgroupMounts() cgroupMountPoints {
	var m cgroupMountPoints
	data, err := os.ReadFile("/proc/self/mountinfo")
	if err != nil {
		return m
	}
	sc := bufio.NewScanner(bytes.NewReader(data))
	for sc.Scan() {
		// id parent major:minor root mountpoint options [optional...] - fstype source super
		pre, post, ok := strings.Cut(sc.Text(), " - ")
		fields, tail := strings.Fields(pre), strings.Fields(post)
		if !ok || len(fields) < 5 || len(tail) < 3 {
			continue
		}
		switch {
		case tail[0] == "cgroup2" && m.unified == "":
			m.unified = fields[4]
		case tail[0] == "cgroup" && hasWord(tail[2], "memory") && m.memory == "":
			m.memory = fields[4]
		}
	}
	return m
}

// hasWord reports whether the comma-separated list holds word.
func hasWord(list, word string) bool {
	for _, w := range strings.Split(list, ",") {
		if w == word {
			return true
		}
	}
	return false
}

func exists(path string) bool {
	_, err := os.Stat(path)
	return err == nil
}
