package settings

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// mkfifo makes a named pipe at dir/name. Until the test ends, its cleanup opens the pipe
// for writing and closes it again, which ends a read that is stuck in opening it: a
// failing test then fails instead of hanging.
func mkfifo(t *testing.T, dir, name string) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := syscall.Mkfifo(p, 0o600); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { unblockFIFO(p) })
	return p
}

// unblockFIFO lets a reader stuck in opening the FIFO at p go on, and read its end.
func unblockFIFO(p string) {
	if f, err := os.OpenFile(p, os.O_WRONLY|syscall.O_NONBLOCK, 0); err == nil {
		f.Close()
	}
}

// loadWithin is Load that fails the test when Load does not return within d.
func loadWithin(t *testing.T, path string, d time.Duration) (res *Result, err error) {
	t.Helper()
	returnsWithin(t, "Load("+path+")", d, func() { res, err = Load(path) })
	return res, err
}

// returnsWithin runs f and fails the test when f does not return within d.
func returnsWithin(t *testing.T, what string, d time.Duration, f func()) {
	t.Helper()
	done := make(chan struct{})
	go func() {
		defer close(done)
		f()
	}()
	select {
	case <-done:
	case <-time.After(d):
		t.Fatalf("%s did not return within %s", what, d)
	}
}

func TestLoadReadsOnlyARegularFileOfAtMost1MiB(t *testing.T) {
	dir := t.TempDir()
	link := func(name, target string) string {
		p := filepath.Join(dir, name)
		if err := os.Symlink(target, p); err != nil {
			t.Fatal(err)
		}
		return p
	}
	big := writeConfig(t, "config.yaml", "segwi: {}\n#"+strings.Repeat("x", MaxFileBytes)+"\n")
	tests := []struct {
		name, path, want string
	}{
		{"a named pipe is refused at once, without waiting for a writer", mkfifo(t, dir, "fifo.yaml"),
			"fifo.yaml: is a named pipe (FIFO), not a regular file: segwi reads its settings only from a regular file (a link to one is fine): replace it with one, or point SEGWI_CONFIG or --config at one"},
		{"a link to a device is refused without reading it", link("null.yaml", "/dev/null"),
			"null.yaml: is a device, not a regular file"},
		{"a directory is refused", link("dir.yaml", t.TempDir()),
			"dir.yaml: is a directory, not a regular file"},
		{"a file over 1 MiB is refused", big,
			"config.yaml: is larger than 1 MiB, the most segwi reads: segwi's settings take a few KiB, so check that this is your settings file"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := loadWithin(t, tt.path, 10*time.Second)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("got error %v, want one containing %q", err, tt.want)
			}
			if err != nil && !strings.HasPrefix(err.Error(), "reading settings: "+tt.path) {
				t.Errorf("got error %q, want it to start with %q", err, "reading settings: "+tt.path)
			}
		})
	}

	t.Run("a link to a regular file is read", func(t *testing.T) {
		target := writeConfig(t, "real.yaml", "segwi:\n  claude:\n    model: opus\n")
		res, err := loadWithin(t, link("linked.yaml", target), 10*time.Second)
		if err != nil || res.Settings.Claude.Model != "opus" {
			t.Errorf("got model %q and error %v, want opus and none", res.Settings.Claude.Model, err)
		}
	})
	t.Run("a file of exactly 1 MiB is read", func(t *testing.T) {
		body := "segwi:\n  claude:\n    model: opus\n#"
		body += strings.Repeat("x", MaxFileBytes-len(body)-1) + "\n"
		res, err := loadWithin(t, writeConfig(t, "config.yaml", body), 10*time.Second)
		if err != nil || res.Settings.Claude.Model != "opus" {
			t.Errorf("got error %v, want the file read", err)
		}
	})
}

func TestSaveRefusesANamedPipeAtOnce(t *testing.T) {
	p := mkfifo(t, t.TempDir(), "config.yaml")
	var err error
	returnsWithin(t, "Save", 10*time.Second, func() { err = Save(p, Default()) })
	if err == nil || !strings.Contains(err.Error(), "saving settings: "+p+": is a named pipe (FIFO), not a regular file") {
		t.Errorf("got error %v, want one saying %s is a named pipe", err, p)
	}
	if fi, err := os.Lstat(p); err != nil || fi.Mode()&os.ModeNamedPipe == 0 {
		t.Errorf("the named pipe was replaced: %v, %v", fi.Mode(), err)
	}
}

func TestWatcherRefusesANamedPipeAndKeepsTheLastGoodSettings(t *testing.T) {
	p := writeConfig(t, "config.yaml", "segwi:\n  runs:\n    maxConcurrent: 2\n")
	w, changes := watch(t, p, load(t, p).Settings)
	fifo := mkfifo(t, t.TempDir(), "fifo")
	if err := os.Rename(fifo, p); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { // before the watcher's own Close: a reload stuck on the pipe would hold Close
		closed := make(chan struct{})
		go func() { w.Close(); close(closed) }()
		for {
			select {
			case <-closed:
				return
			case <-time.After(10 * time.Millisecond):
				unblockFIFO(p)
			}
		}
	})

	c := next(t, changes)
	if c.Err == nil || !strings.Contains(c.Err.Error(), p+": is a named pipe (FIFO), not a regular file") {
		t.Errorf("got error %v, want one saying %s is a named pipe", c.Err, p)
	}
	if got := w.Settings().Runs.MaxConcurrent; got != 2 {
		t.Errorf("got maxConcurrent %d in force, want the last good 2", got)
	}
}
