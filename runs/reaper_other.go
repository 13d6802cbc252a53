//go:build !linux

package runs

import "os/exec"

// adoptOrphans does nothing where the kernel has no child subreaper: a process that
// leaves a run is adopted by init.
func adoptOrphans() bool { return false }

// startChild starts cmd from the spawner thread.
func startChild(cmd *exec.Cmd) error { return startOnSpawner(cmd) }

// childWaited has nothing to do here.
func childWaited(int) {}

// isChild has nothing to tell here.
func isChild(int) bool { return false }

// reapOrphans has nothing to reap here.
func reapOrphans() {}
