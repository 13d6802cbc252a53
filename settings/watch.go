package settings

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"sync"
	"time"

	"github.com/fsnotify/fsnotify"
)

// Change is what a Watcher reports after the settings file changed.
type Change struct {
	// Result is the new load result. It is nil when the file could not be read or
	// parsed; when it has Problems, its Settings are not in force.
	Result *Result
	// Err is non-nil for a bad edit (a parse error or validation problems) and for a
	// failure of the watch itself. The last good settings stay in force.
	Err error
	// Settings are the settings in force after the change: the new ones, or the last
	// good ones when Err is non-nil.
	Settings Settings
}

// Watcher reloads the settings file after each edit of it, or of the record of what the
// person confirmed beside it (ConfirmedPath: segwi config confirm writes it while the tray
// runs). It watches the file's directory rather than the file, so an editor's save by
// rename, or a file created later, is seen.
type Watcher struct {
	file     string
	record   string // ConfirmedPath(file)
	typ      string // the file's format
	onChange func(Change)
	fsw      *fsnotify.Watcher
	done     chan struct{}
	wg       sync.WaitGroup
	settle   time.Duration

	mu         sync.Mutex
	current    Settings
	last       []byte // the contents last loaded, to skip events that changed nothing
	loaded     bool
	lastRecord []byte // the record's contents at the last load (nil: none)
}

// settleTime lets an editor finish a save (truncate, write, rename) before the reload,
// so one save is loaded once and a half-written file is not reported as a bad edit.
const settleTime = 100 * time.Millisecond

// Watch starts watching the settings file at path. current are the settings in force now
// (from an earlier Load); they are what a bad edit keeps. onChange is called on the
// Watcher's own goroutine, one call at a time, for every edit that changes the file's
// contents, or the record's; it must not call Close. The file's directory must exist.
func Watch(path string, current Settings, onChange func(Change)) (*Watcher, error) {
	typ, err := format(path)
	if err != nil {
		return nil, fmt.Errorf("watching settings: %w", err)
	}
	fsw, err := fsnotify.NewWatcher()
	if err != nil {
		return nil, fmt.Errorf("watching settings: %w", err)
	}
	w := &Watcher{
		file:     filepath.Clean(path),
		record:   filepath.Clean(ConfirmedPath(path)),
		typ:      typ,
		onChange: onChange,
		fsw:      fsw,
		done:     make(chan struct{}),
		settle:   settleTime,
		current:  current,
	}
	dir := filepath.Dir(w.file)
	if err := fsw.Add(dir); err != nil {
		fsw.Close()
		return nil, fmt.Errorf("watching settings: %s: %w: create the directory first", dir, err)
	}
	if data, err := readFile(w.file); err == nil {
		w.last, w.loaded = data, true
	}
	w.lastRecord, _ = readFile(w.record)
	w.wg.Add(1)
	go w.loop()
	return w, nil
}

// Settings returns the settings in force: the last good ones.
func (w *Watcher) Settings() Settings {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.current
}

// Close stops the watch and waits for a callback in progress to return.
func (w *Watcher) Close() error {
	select {
	case <-w.done:
		return nil
	default:
	}
	close(w.done)
	err := w.fsw.Close()
	w.wg.Wait()
	return err
}

func (w *Watcher) loop() {
	defer w.wg.Done()
	timer := time.NewTimer(time.Hour)
	timer.Stop()
	for {
		select {
		case <-w.done:
			timer.Stop()
			return
		case ev, ok := <-w.fsw.Events:
			if !ok {
				return
			}
			if name := filepath.Clean(ev.Name); name != w.file && name != w.record || ev.Op == fsnotify.Chmod {
				continue
			}
			timer.Reset(w.settle)
		case err, ok := <-w.fsw.Errors:
			if !ok {
				return
			}
			w.onChange(Change{Err: fmt.Errorf("watching settings: %s: %w", w.file, err), Settings: w.Settings()})
		case <-timer.C:
			w.reload()
		}
	}
}

// reload loads the file again and reports the outcome, unless its contents and the
// record's are unchanged. It reads the file as Load does, so a named pipe or a device put
// in its place is refused at once rather than blocking the watch.
func (w *Watcher) reload() {
	data, readErr := readFile(w.file)
	record, _ := readFile(w.record)                              // read by whoever takes in the change; only compared here
	read := readErr == nil || errors.Is(readErr, fs.ErrNotExist) // a missing file reads as empty
	if read && w.loaded && bytes.Equal(data, w.last) && bytes.Equal(record, w.lastRecord) {
		return
	}
	w.last, w.loaded, w.lastRecord = data, read, record
	res, err := loadData(w.file, w.typ, data, readErr)
	if err == nil {
		err = res.Err()
	}
	w.mu.Lock()
	if err == nil {
		w.current = res.Settings
	}
	c := Change{Result: res, Err: err, Settings: w.current}
	w.mu.Unlock()
	w.onChange(c)
}
