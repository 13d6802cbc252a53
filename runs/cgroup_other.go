//go:build !linux

package runs

import (
	"errors"
	"syscall"
)

// cgroup is a run's cgroup; this system has none (they are Linux's), so every run falls
// back to the sweep.
type cgroup struct{ dir string }

var errNoCgroups = errors.New("this system has no cgroups")

// sweepReach says what the sweep reaches, for a run without a cgroup: with no /proc here,
// not what left the group.
const sweepReach = "segwi reaches only Claude Code's process group"

// runCgroupHome says this system has no cgroups.
func runCgroupHome() (string, error) { return "", errNoCgroups }

// newRunCgroup says this system has no cgroups.
func newRunCgroup(string) (*cgroup, error) { return nil, errNoCgroups }

func (*cgroup) attach(*syscall.SysProcAttr) {}

func (*cgroup) end() ([]ProcessInfo, error) { return nil, nil }

func (*cgroup) remove() error { return nil }

func (*cgroup) closeFD() {}

// openRecordedCgroup finds nothing: no segwi here made a cgroup.
func openRecordedCgroup(id, dir string) (*cgroup, error) { return nil, nil }

// leftRunCgroups finds none here.
func leftRunCgroups() []string { return nil }

// cgroupLeft finds nothing left here.
func cgroupLeft(string) bool { return false }
