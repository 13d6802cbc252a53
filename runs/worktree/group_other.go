//go:build !unix

package worktree

import (
	"os/exec"
)

// oNoFollow is 0 where the system has no O_NOFOLLOW.
const oNoFollow = 0

// ownGroup leaves cmd as it is: this system has no process groups.
func ownGroup(*exec.Cmd) {}

// killGroup does nothing where there are no process groups.
func killGroup(int) {}
