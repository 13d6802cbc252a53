//go:build !unix

package gitcmd

import (
	"os"
	"os/exec"
)

// ownGroup leaves cmd as it is: this system has no process groups segwi uses.
func ownGroup(*exec.Cmd) {}

// heldDir is f's name: this system gives no way to start a program in a held folder.
func heldDir(f *os.File) string { return f.Name() }
