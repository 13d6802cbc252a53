//go:build !unix

package gitcmd

import (
	"errors"
	"io/fs"
)

const oNonblock = 0

var errNotDir = errors.New("not a directory")

// ownedBySelf is true: this system's owners are not checked.
func ownedBySelf(string) bool { return true }

// sameDevice is true: this system's devices are not compared.
func sameDevice(a, b fs.FileInfo) bool { return true }
