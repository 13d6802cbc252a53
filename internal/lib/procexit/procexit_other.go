//go:build !linux

package procexit

import "os"

func awaitExit(*os.Process) {}
