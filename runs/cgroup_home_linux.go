package runs

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"

	"golang.org/x/sys/unix"
)

// The cgroup home is the cgroup under which this process makes its runs' cgroups: its own.
// Where systemd manages the cgroups (a desktop), a process may only make cgroups in a
// subtree delegated to it, so segwi first asks the person's systemd for a scope of its own
// with delegation (systemdScope), as `systemd-run --user --scope -p Delegate=yes` would,
// and moves into it. Elsewhere (no systemd, or segwi started in a delegated cgroup) it
// makes them beside itself where it may write; where it may not, os.Mkdir says so and the
// run falls back to the sweep. The home is found once, by the first run.
var cgroupHome struct {
	once sync.Once
	dir  string
	err  error
}

// runCgroupHome returns this process's cgroup home, or why it has none.
func runCgroupHome() (string, error) {
	cgroupHome.once.Do(func() {
		cgroupHome.dir, cgroupHome.err = findCgroupHome(cgroupHost{
			own:        func() (string, error) { return cgroupDir(0) },
			systemd:    systemdBooted(),
			delegated:  delegated,
			askSystemd: systemdScope,
		})
	})
	return cgroupHome.dir, cgroupHome.err
}

// cgroupHost is what findCgroupHome learns from the system.
type cgroupHost struct {
	own        func() (string, error) // the folder of this process's cgroup
	systemd    bool                   // systemd manages the system's cgroups
	delegated  func(dir string) bool  // whether cgroup dir was delegated (to this process)
	askSystemd func() error           // moves this process into a delegated scope of its own
}

// findCgroupHome returns the cgroup home, as cgroupHome says.
func findCgroupHome(h cgroupHost) (string, error) {
	dir, err := h.own()
	if err != nil {
		return "", err
	}
	if !h.systemd || h.delegated(dir) {
		return dir, nil
	}
	if err := h.askSystemd(); err != nil {
		return "", fmt.Errorf("systemd manages this system's cgroups, and asking it for a scope of segwi's own failed: %w", err)
	}
	moved, err := h.own()
	if err != nil {
		return "", err
	}
	if moved == dir {
		return "", fmt.Errorf("systemd started a scope for segwi, but segwi is still in cgroup %s", dir)
	}
	return moved, nil
}

// systemdBooted says whether systemd manages this system (sd_booted(3)).
func systemdBooted() bool {
	fi, err := os.Lstat("/run/systemd/system")
	return err == nil && fi.IsDir()
}

// delegated says whether systemd delegated cgroup dir: it marks such a cgroup with the
// extended attribute trusted.delegate (its system manager) or user.delegate (a user's).
func delegated(dir string) bool {
	for _, name := range []string{"trusted.delegate", "user.delegate"} {
		buf := make([]byte, 8)
		if n, err := unix.Getxattr(dir, name, buf); err == nil && string(buf[:n]) == "1" {
			return true
		}
	}
	return false
}

// cgroupDir returns the folder of process pid's cgroup (cgroup v2) under the hierarchy's
// mount point; pid 0 is this process.
func cgroupDir(pid int) (string, error) {
	path, err := procCgroup(pid)
	if err != nil {
		return "", err
	}
	mountinfo, err := os.ReadFile("/proc/self/mountinfo")
	if err != nil {
		return "", fmt.Errorf("finding the cgroup v2 hierarchy: %w", err)
	}
	return cgroupFolder(mountinfo, path)
}

// cgroupFolder returns the folder of the cgroup at path (as /proc/PID/cgroup names it)
// under the first cgroup v2 mount of mountinfo (/proc/self/mountinfo) that holds it.
func cgroupFolder(mountinfo []byte, path string) (string, error) {
	mounted := false
	for line := range bytes.SplitSeq(mountinfo, []byte("\n")) {
		// ID PARENT MAJ:MIN ROOT MOUNTPOINT OPTIONS [OPTIONAL...] - TYPE SOURCE SUPEROPTIONS
		before, after, ok := bytes.Cut(line, []byte(" - "))
		if !ok || !bytes.HasPrefix(after, []byte("cgroup2 ")) {
			continue
		}
		f := strings.Fields(string(before))
		if len(f) < 5 {
			continue
		}
		mounted = true
		root, point := unescapeMount(f[3]), unescapeMount(f[4])
		rel, ok := strings.CutPrefix(path, root)
		if !ok || (rel != "" && root != "/" && !strings.HasPrefix(rel, "/")) {
			continue
		}
		return filepath.Join(point, rel), nil
	}
	if !mounted {
		return "", errors.New("no cgroup v2 hierarchy is mounted")
	}
	return "", fmt.Errorf("no cgroup v2 mount holds this process's cgroup %s", path)
}

// unescapeMount undoes mountinfo's octal escapes (\040 for a space).
func unescapeMount(s string) string {
	if !strings.Contains(s, `\`) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' && i+4 <= len(s) {
			if n, err := strconv.ParseUint(s[i+1:i+4], 8, 8); err == nil {
				b.WriteByte(byte(n))
				i += 3
				continue
			}
		}
		b.WriteByte(s[i])
	}
	return b.String()
}
