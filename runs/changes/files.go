package changes

import (
	"io/fs"
	"os"
	"path/filepath"
)

// lstat is os.Lstat of the work tree's file path (forward slashes) under top.
func lstat(top, path string) (fs.FileInfo, error) {
	return os.Lstat(filepath.Join(top, filepath.FromSlash(path)))
}
