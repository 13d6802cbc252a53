package gitcmd

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
)

// ErrNotRegular is wrapped by the errors of ReadRegular and CopyRegular for a file that is
// not a regular file: a FIFO, a socket or a device, which reading could block on forever.
var ErrNotRegular = errors.New("not a regular file")

// openRegular opens path for reading, following symbolic links, without blocking on a
// FIFO, and fails with ErrNotRegular unless it is a regular file of at most max bytes.
func openRegular(path string, max int64) (*os.File, fs.FileInfo, error) {
	f, err := os.OpenFile(path, os.O_RDONLY|oNonblock, 0)
	if err != nil {
		return nil, nil, err
	}
	st, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, nil, err
	}
	if !st.Mode().IsRegular() {
		f.Close()
		return nil, nil, &fs.PathError{Op: "read", Path: path, Err: fmt.Errorf("%w: it is %s", ErrNotRegular, kind(st.Mode()))}
	}
	if st.Size() > max {
		f.Close()
		return nil, nil, &fs.PathError{Op: "read", Path: path, Err: fmt.Errorf("larger than %d bytes", max)}
	}
	return f, st, nil
}

// ReadRegular reads the file at path, which must be a regular file (after symbolic links)
// of at most max bytes. A missing file is an error wrapping fs.ErrNotExist.
func ReadRegular(path string, max int64) ([]byte, error) {
	f, _, err := openRegular(path, max)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, max+1))
	if err == nil && int64(len(b)) > max {
		err = &fs.PathError{Op: "read", Path: path, Err: fmt.Errorf("larger than %d bytes", max)}
	}
	return b, err
}

// CopyRegular copies the regular file src (at most max bytes) to dst, made 0600, keeping
// src's modification time: git's check of a racily clean index entry compares it with the
// index file's. A missing src is an error wrapping fs.ErrNotExist.
func CopyRegular(src, dst string, max int64) error {
	in, st, err := openRegular(src, max)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := os.OpenFile(dst, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return err
	}
	_, err = io.Copy(out, io.LimitReader(in, max))
	if cerr := out.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return err
	}
	return os.Chtimes(dst, st.ModTime(), st.ModTime())
}

// regularOrAbsent fails unless path is missing or a regular file (after symbolic links):
// what git is about to open itself, checked so that a FIFO there fails at once rather than
// at the deadline.
func regularOrAbsent(path string) error {
	st, err := os.Stat(path)
	switch {
	case errors.Is(err, fs.ErrNotExist) || errors.Is(err, errNotDir):
		return nil
	case err != nil:
		return err
	case !st.Mode().IsRegular():
		return &fs.PathError{Op: "read", Path: path, Err: fmt.Errorf("%w: it is %s", ErrNotRegular, kind(st.Mode()))}
	}
	return nil
}

// kind names what a file that is not regular is, for a person.
func kind(m fs.FileMode) string {
	switch {
	case m&fs.ModeNamedPipe != 0:
		return "a FIFO (named pipe)"
	case m&fs.ModeSocket != 0:
		return "a socket"
	case m&fs.ModeDevice != 0:
		return "a device"
	case m.IsDir():
		return "a folder"
	}
	return "not a file (" + m.Type().String() + ")"
}
