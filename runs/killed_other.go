//go:build !linux

package runs

import "errors"

// kernelLog is the kernel log, which segwi reads on Linux only.
type kernelLog struct{}

func openKernelLog() (*kernelLog, error) {
	return nil, errors.New("segwi reads the kernel log on Linux only")
}

func (*kernelLog) killed(int) (string, error) { return "", nil }

func (*kernelLog) close() {}
