//go:build !linux

package procexit

import "os"

func await(*os.Process) {}
