//go:build !unix

package worktree

import (
	"io/fs"
	"os/exec"
)

// oNoFollow is 0 where the system has no O_NOFOLLOW.
const oNoFollow = 0

// ownGroup leaves cmd as it is: this system has no process groups.
func ownGroup(*exec.Cmd) {}

// killGroup does nothing where there are no process groups.
func killGroup(int) {}

// onDisk is how much disk a file takes: its size, where blocks are not known.
func onDisk(info fs.FileInfo) int64 { return info.Size() }
