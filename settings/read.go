package settings

import (
	"fmt"
	"io"
	"io/fs"
	"os"
	"syscall"
)

// MaxFileBytes is the largest settings file segwi reads: 1 MiB. segwi's own settings take
// a few KiB.
const MaxFileBytes = 1 << 20

// readFile returns the contents of the settings file at path. It reads only a regular file
// (a symbolic link to one is fine) of at most MaxFileBytes: a named pipe would block the
// read until some writer came, a device such as /dev/zero would never end. It opens the
// file without blocking, so that a named pipe cannot hold up the open either, and checks
// what it opened rather than the path, which may have changed since. When the file does
// not exist, the error wraps fs.ErrNotExist.
func readFile(path string) ([]byte, error) {
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK|syscall.O_NOCTTY, 0)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if !fi.Mode().IsRegular() {
		return nil, fmt.Errorf("%s: is %s, not a regular file: segwi reads its settings only from a regular file "+
			"(a link to one is fine): replace it with one, or point SEGWI_CONFIG or --config at one", path, fileKind(fi.Mode()))
	}
	tooLarge := fmt.Errorf("%s: is larger than 1 MiB, the most segwi reads: segwi's settings take a few KiB, "+
		"so check that this is your settings file", path)
	if fi.Size() > MaxFileBytes {
		return nil, tooLarge
	}
	// The file may grow between the Stat and the read: read one byte past the limit to see.
	data, err := io.ReadAll(io.LimitReader(f, MaxFileBytes+1))
	if err != nil {
		return nil, err
	}
	if len(data) > MaxFileBytes {
		return nil, tooLarge
	}
	return data, nil
}

// fileKind names the kind of a file that is not a regular one, for a person.
func fileKind(m fs.FileMode) string {
	switch {
	case m.IsDir():
		return "a directory"
	case m&fs.ModeNamedPipe != 0:
		return "a named pipe (FIFO)"
	case m&fs.ModeSocket != 0:
		return "a socket"
	case m&fs.ModeDevice != 0:
		return "a device"
	default:
		return "a special file"
	}
}
