//go:build !linux

package runs

import (
	"errors"
	"time"
)

// kernelLog is the kernel log, which segwi reads on Linux only.
type kernelLog struct{}

func openKernelLog() (*kernelLog, error) {
	return nil, errors.New("segwi reads the kernel log on Linux only")
}

// kernelLogNow is zero here.
func kernelLogNow() time.Duration { return 0 }

func (*kernelLog) killed(int, time.Duration) (string, error) { return "", nil }

func (*kernelLog) close() {}
