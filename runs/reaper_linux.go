package runs

import (
	"os"
	"os/exec"
	"os/signal"
	"strconv"
	"strings"
	"sync"
	"syscall"

	"golang.org/x/sys/unix"
)

// The reaper. A process that leaves a run (a tool's background job whose shell exited,
// `setsid -f`, a daemon) would be adopted by init, out of segwi's sight. segwi is made a
// child subreaper instead, so that such orphans become segwi's children while segwi lives;
// it must then reap them when they end, or they stay zombies. It reaps only those: never
// with a blanket wait (which would take the exit status of claude, or of git, from the
// os/exec call that waits for it), but each orphan by its pid. An orphan is a child in
// another session than segwi's (a run's processes all start in claude's session; segwi's
// other children, such as git, stay in segwi's own) that segwi did not start itself
// (startChild). Reaping is woken by SIGCHLD: nothing happens while no child ends. So any
// child this process starts in a session of its own must be started by startChild, or the
// reaper may take its exit status.
var reaper struct {
	once    sync.Once
	on      bool         // this process is a child subreaper
	mu      sync.Mutex   // held while a child is started in a session of its own, and while reaping
	started map[int]bool // children started by startChild and not yet waited for
}

// adoptOrphans makes this process a child subreaper, marks its own environment with
// outsideRunEnv, and starts reaping orphans; only the first call does anything. It says
// whether this process adopts orphans.
func adoptOrphans() bool {
	reaper.once.Do(func() {
		reaper.started = map[int]bool{}
		if err := unix.Prctl(unix.PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0); err != nil {
			return // orphans go to init, as before; the run's SEGWI_RUN_ID still finds them
		}
		os.Setenv(outsideRunEnv, strconv.Itoa(os.Getpid()))
		reaper.on = true
		ch := make(chan os.Signal, 1)
		signal.Notify(ch, syscall.SIGCHLD)
		go func() {
			for range ch {
				reapOrphans()
			}
		}()
	})
	return reaper.on
}

// startChild starts cmd, which makes a session of its own, from the spawner thread, and
// keeps its pid from the reaper until childWaited.
func startChild(cmd *exec.Cmd) error {
	reaper.mu.Lock()
	defer reaper.mu.Unlock()
	if err := startOnSpawner(cmd); err != nil {
		return err
	}
	if reaper.started != nil {
		reaper.started[cmd.Process.Pid] = true
	}
	return nil
}

// childWaited tells the reaper that os/exec has reaped pid, a child of startChild.
func childWaited(pid int) {
	reaper.mu.Lock()
	defer reaper.mu.Unlock()
	delete(reaper.started, pid)
}

// isChild says whether pid is a child of startChild not yet waited for.
func isChild(pid int) bool {
	reaper.mu.Lock()
	defer reaper.mu.Unlock()
	return reaper.started[pid]
}

// reapOrphans reaps the orphans (see reaper) that ended. It runs at every SIGCHLD, each
// git call's included, so it reads as little as it can: the list where orphans are.
func reapOrphans() {
	if !reaper.on {
		return
	}
	reaper.mu.Lock()
	defer reaper.mu.Unlock()
	_, _, sid := selfIDs()
	for _, pid := range adoptedPIDs() {
		p, ok := readProc(pid)
		if !ok || !p.Zombie || p.SID == sid || reaper.started[pid] || p.PPID != os.Getpid() {
			continue
		}
		var ws syscall.WaitStatus
		syscall.Wait4(pid, &ws, syscall.WNOHANG, nil)
	}
}

// adoptedPIDs returns the children of this process's main thread, where the kernel puts
// the orphans a child subreaper adopts (find_new_reaper in kernel/exit.c gives them to
// the reaper's first live thread, its leader, which a Go program never ends), with the
// children that thread started itself: one small file, where every thread's list would
// be read otherwise. Where the kernel keeps no such list, they are found in the whole
// process table.
func adoptedPIDs() []int {
	self := os.Getpid()
	b, err := os.ReadFile("/proc/self/task/" + strconv.Itoa(self) + "/children")
	if err != nil {
		procs, _ := scanProcs()
		var pids []int
		for _, p := range procs {
			if p.PPID == self {
				pids = append(pids, p.PID)
			}
		}
		return pids
	}
	var pids []int
	for _, f := range strings.Fields(string(b)) {
		if pid, err := strconv.Atoi(f); err == nil {
			pids = append(pids, pid)
		}
	}
	return pids
}
