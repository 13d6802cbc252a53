//go:build unix

package record

import (
	"io/fs"
	"syscall"
)

// onDisk is how much disk a file takes: its blocks.
func onDisk(info fs.FileInfo) int64 {
	if st, ok := info.Sys().(*syscall.Stat_t); ok {
		return st.Blocks * 512
	}
	return info.Size()
}
