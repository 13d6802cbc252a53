package runs

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// cgroup is a run's cgroup (cgroup v2): a folder of its own under the cgroup hierarchy,
// which Claude Code starts inside (CLONE_INTO_CGROUP), so that every process of the run is
// in it however it forks, detaches or empties its environment, and cgroup.kill ends them
// all at once. A sweep of /proc (leftovers.go) races a process that keeps forking; the
// kernel's list of a cgroup's processes does not move under segwi's feet.
//
// segwi acts on the cgroup through a descriptor opened when it was made: what it kills
// and removes is that cgroup, whatever becomes of its name meanwhile.
type cgroup struct {
	dir string // where it was made: home/segwi-run-ID (see cgroupHome)
	fd  int    // the folder, opened O_PATH
}

// sweepReach says what the sweep reaches, for a run without a cgroup.
const sweepReach = "segwi finds them by reading /proc, which a process that keeps forking can escape"

// cgroupFreezeWait bounds the wait for a run's cgroup to freeze before segwi reads the list
// of its processes; a process stuck in the kernel (a hung network file system) can hold
// the freeze up, and is killed anyway.
const cgroupFreezeWait = time.Second

// newRunCgroup makes the cgroup of run id under this process's cgroup home, or says why
// it cannot: no cgroup v2, no place segwi may write, a kernel without cgroup.kill.
func newRunCgroup(id string) (*cgroup, error) {
	home, err := runCgroupHome()
	if err != nil {
		return nil, err
	}
	dir := filepath.Join(home, cgroupPrefix+id)
	if err := os.Mkdir(dir, 0o755); err != nil {
		return nil, fmt.Errorf("making cgroup %s: %w", dir, unwrapPath(err))
	}
	fd, err := unix.Open(dir, unix.O_PATH|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		unix.Rmdir(dir)
		return nil, fmt.Errorf("opening cgroup %s: %w", dir, err)
	}
	c := &cgroup{dir: dir, fd: fd}
	if err := unix.Faccessat(fd, "cgroup.kill", unix.W_OK, 0); err != nil {
		c.remove()
		return nil, fmt.Errorf("cgroup %s has no cgroup.kill to end its processes with (it needs Linux 5.14 or later): %w", dir, err)
	}
	return c, nil
}

// attach makes the process attr starts begin inside the cgroup, from its first instruction.
func (c *cgroup) attach(attr *syscall.SysProcAttr) {
	attr.UseCgroupFD, attr.CgroupFD = true, c.fd
}

// end ends every process in the cgroup and removes it. It freezes the cgroup first, so
// that the list it reads holds every process and none forks or ends meanwhile; reads each
// one's command line; writes cgroup.kill; waits until the cgroup is empty, at most
// leftoverWait; and removes it. It returns each process found, Killed unless it was still
// running at the deadline; a cgroup it could not remove is left for the next segwi
// (endRecordedCgroup), and its error says so.
func (c *cgroup) end() ([]ProcessInfo, error) {
	defer unix.Close(c.fd)
	frozen := c.write("cgroup.freeze") == nil && c.waitEvents(cgroupFreezeWait, "frozen 1")
	pids, err := c.procs()
	if err != nil {
		return nil, err
	}
	found := make([]ProcessInfo, 0, len(pids))
	for _, pid := range pids {
		found = append(found, ProcessInfo{PID: pid, Command: commandLine(pid), Killed: true})
	}
	if err := c.write("cgroup.kill"); err != nil {
		for i := range found {
			found[i].Killed, found[i].Error = false, err.Error()
		}
		return found, err
	}
	if !frozen {
		// A process may have forked between the list and the kill; name it too.
		if late, err := c.procs(); err == nil {
			for _, pid := range late {
				if !slices.ContainsFunc(found, func(p ProcessInfo) bool { return p.PID == pid }) {
					found = append(found, ProcessInfo{PID: pid, Command: commandLine(pid), Killed: true})
				}
			}
		}
	}
	if !c.waitEvents(leftoverWait, "populated 0") {
		alive, _ := c.procs()
		for i := range found {
			if slices.Contains(alive, found[i].PID) {
				found[i].Killed = false
				found[i].Error = fmt.Sprintf("still running %s after SIGKILL", leftoverWait)
			}
		}
	}
	return found, c.remove()
}

// procs returns the pids of the processes in the cgroup and in the cgroups a process of
// the run made inside it, from their cgroup.procs.
func (c *cgroup) procs() ([]int, error) {
	b, err := c.read("cgroup.procs")
	if err != nil {
		return nil, err
	}
	for _, dir := range c.inner() {
		if more, err := os.ReadFile(filepath.Join(dir, "cgroup.procs")); err == nil {
			b = append(append(b, '\n'), more...)
		}
	}
	var pids []int
	for f := range strings.FieldsSeq(string(b)) {
		if pid, err := strconv.Atoi(f); err == nil && !slices.Contains(pids, pid) {
			pids = append(pids, pid)
		}
	}
	return pids, nil
}

// waitEvents waits until the cgroup's cgroup.events holds the line want ("frozen 1",
// "populated 0"), or no process is left in it, for at most limit, reaping meanwhile the
// orphans of this process that ended (see reaper). It says whether want came.
func (c *cgroup) waitEvents(limit time.Duration, want string) bool {
	deadline := time.Now().Add(limit)
	pause := 100 * time.Microsecond
	for {
		b, err := c.read("cgroup.events")
		if err != nil {
			return false
		}
		lines := strings.Split(string(b), "\n")
		if slices.Contains(lines, want) || slices.Contains(lines, "populated 0") {
			return true
		}
		if time.Now().After(deadline) {
			return false
		}
		reapOrphans()
		time.Sleep(pause)
		pause = min(2*pause, 5*time.Millisecond)
	}
}

// write writes "1" to the cgroup's file name (cgroup.kill, cgroup.freeze).
func (c *cgroup) write(name string) error {
	fd, err := unix.Openat(c.fd, name, unix.O_WRONLY|unix.O_CLOEXEC, 0)
	if err != nil {
		return fmt.Errorf("writing %s: %w", filepath.Join(c.dir, name), err)
	}
	defer unix.Close(fd)
	if _, err := unix.Write(fd, []byte("1")); err != nil {
		return fmt.Errorf("writing %s: %w", filepath.Join(c.dir, name), err)
	}
	return nil
}

// read returns the content of the cgroup's file name.
func (c *cgroup) read(name string) ([]byte, error) {
	fd, err := unix.Openat(c.fd, name, unix.O_RDONLY|unix.O_CLOEXEC, 0)
	if err != nil {
		return nil, fmt.Errorf("reading %s: %w", filepath.Join(c.dir, name), err)
	}
	f := os.NewFile(uintptr(fd), name)
	defer f.Close()
	b, err := io.ReadAll(f)
	if err != nil {
		return nil, fmt.Errorf("reading %s: %w", filepath.Join(c.dir, name), err)
	}
	return b, nil
}

// where returns where the cgroup is now: the folder its descriptor names.
func (c *cgroup) where() string {
	if dir, err := os.Readlink("/proc/self/fd/" + strconv.Itoa(c.fd)); err == nil {
		return dir
	}
	return c.dir
}

// inner returns the cgroups inside the cgroup, deepest first: a process of the run may
// make some (cgroup.kill and the freeze reach into them).
func (c *cgroup) inner() []string {
	var dirs []string
	top := c.where()
	filepath.WalkDir(top, func(path string, d fs.DirEntry, err error) error {
		if err == nil && d.IsDir() && path != top {
			dirs = append(dirs, path)
		}
		return nil
	})
	slices.Reverse(dirs) // WalkDir lists a folder before what it holds
	return dirs
}

// remove removes the cgroup, and the cgroups inside it, where it is now.
func (c *cgroup) remove() error {
	var errs []error
	for _, dir := range append(c.inner(), c.where()) {
		if err := unix.Rmdir(dir); err != nil && !errors.Is(err, unix.ENOENT) {
			errs = append(errs, fmt.Errorf("removing cgroup %s: %w", dir, err))
		}
	}
	if err := errors.Join(errs...); err != nil {
		return fmt.Errorf("%w; the next segwi to start tries again", err)
	}
	return nil
}

// closeFD lets go of the descriptor of a cgroup that is not ended here.
func (c *cgroup) closeFD() { unix.Close(c.fd) }

// openRecordedCgroup opens the cgroup that run id's record names, to end what a segwi that
// is gone left in it. It refuses a path that is not a cgroup of that run's: the record is
// a file the run's own processes could rewrite, to make segwi kill another cgroup's. A
// cgroup that is gone already is (nil, nil).
func openRecordedCgroup(id, dir string) (*cgroup, error) {
	if !canBeRunCgroup(id, dir) {
		return nil, fmt.Errorf("the record of run %s names %q as its cgroup, which is not a cgroup segwi makes for that run: left alone", id, dir)
	}
	fd, err := unix.Open(dir, unix.O_PATH|unix.O_DIRECTORY|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
	if errors.Is(err, unix.ENOENT) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("opening cgroup %s of run %s: %w", dir, id, err)
	}
	var st unix.Statfs_t
	if err := unix.Fstatfs(fd, &st); err != nil || st.Type != unix.CGROUP2_SUPER_MAGIC {
		unix.Close(fd)
		return nil, fmt.Errorf("the record of run %s names %s as its cgroup, which is not in a cgroup v2 hierarchy: left alone", id, dir)
	}
	return &cgroup{dir: dir, fd: fd}, nil
}

// leftRunCgroups returns the runs' cgroups where this process makes its own: in its cgroup
// home, and where that is a scope systemd gave a segwi, in every segwi scope beside it.
func leftRunCgroups() []string {
	home, err := runCgroupHome()
	if err != nil {
		return nil
	}
	homes := []string{home}
	if strings.HasPrefix(filepath.Base(home), scopePrefix) {
		homes, _ = filepath.Glob(filepath.Join(filepath.Dir(home), scopePrefix+"*.scope"))
	}
	var found []string
	for _, h := range homes {
		runs, _ := filepath.Glob(filepath.Join(h, cgroupPrefix+"*"))
		found = append(found, runs...)
	}
	return found
}

// cgroupLeft says whether the cgroup a record names is still there: one a segwi that was
// killed, or could not remove it, left behind.
func cgroupLeft(dir string) bool {
	_, err := os.Lstat(filepath.Join(dir, "cgroup.procs"))
	return err == nil
}

// procCgroup returns the cgroup v2 path of process pid ("/user.slice/..."), from
// /proc/PID/cgroup; pid 0 is this process.
func procCgroup(pid int) (string, error) {
	path := "/proc/self/cgroup"
	if pid != 0 {
		path = "/proc/" + strconv.Itoa(pid) + "/cgroup"
	}
	b, err := os.ReadFile(path)
	if err != nil {
		return "", fmt.Errorf("reading %s: %w", path, unwrapPath(err))
	}
	for line := range bytes.SplitSeq(b, []byte("\n")) {
		if p, ok := bytes.CutPrefix(line, []byte("0::")); ok {
			return string(p), nil
		}
	}
	return "", fmt.Errorf("%s names no cgroup v2 (no line 0::PATH): the system uses cgroup v1 only", path)
}
