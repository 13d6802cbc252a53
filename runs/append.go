package runs

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"syscall"
	"time"

	"github.com/segwi/segwi/internal/lib/redact"
)

// ErrRunLive is wrapped by AppendEvent's error when a segwi process still owns the run.
var ErrRunLive = errors.New("the run is still going")

// AppendEvent appends e to the events.jsonl of the ended run id (or unique part of it) under
// stateDir, for what happens to a run after it ended, such as a push attempt. It sets
// e's RunID, Seq (after the last recorded one) and Time (when zero), redacts the whole
// event (the common secret shapes and secrets) and syncs the file. It returns the event as
// written. It fails, wrapping ErrRunLive, while a segwi process still owns the run, and
// wraps ErrNotFound for an unknown id.
func AppendEvent(stateDir, id string, e Event, secrets ...string) (Event, error) {
	dir, lock, err := lockEnded(stateDir, id)
	if err != nil {
		return Event{}, err
	}
	defer lock.Close()
	return appendLocked(dir, e, secrets...)
}

// lockEnded finds the ended run id (or unique part of it) under stateDir and takes its
// folder's lock, for recording on it: the lock keeps that from interleaving with a live
// run's writer or another segwi recording at the same time. Close the lock when done. It
// fails, wrapping ErrRunLive, while a segwi process still owns the run, and wraps
// ErrNotFound for an unknown id.
func lockEnded(stateDir, id string) (dir string, lock *os.File, err error) {
	dir, err = findRun(stateDir, id)
	if err != nil {
		return "", nil, err
	}
	lock, err = lockRun(dir)
	if errors.Is(err, syscall.EWOULDBLOCK) {
		return "", nil, fmt.Errorf("recording on run %s: %w (a segwi process still owns it); try again once it ended", filepath.Base(dir), ErrRunLive)
	}
	if err != nil {
		return "", nil, fmt.Errorf("recording on run %s: %w", filepath.Base(dir), err)
	}
	return dir, lock, nil
}

// appendLocked is AppendEvent for the run in dir, whose folder lock the caller holds. It is
// the one way an event is added to the record of a run no segwi is running: a push
// attempt, the leftovers killed after the run ended, the mark of an interrupted run.
func appendLocked(dir string, e Event, secrets ...string) (Event, error) {
	id := filepath.Base(dir)
	path := filepath.Join(dir, eventsFile)
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE|os.O_APPEND, 0o600)
	if err != nil {
		return Event{}, fmt.Errorf("recording on run %s: %w", id, err)
	}
	defer f.Close()
	prefix := ""
	if st, err := f.Stat(); err == nil && st.Size() > 0 {
		tail := make([]byte, 1)
		if _, err := f.ReadAt(tail, st.Size()-1); err == nil && tail[0] != '\n' {
			prefix = "\n" // the last line was cut short by a crash
		}
	}
	e.RunID, e.Seq = id, lastSeq(f)+1
	if e.Time.IsZero() {
		e.Time = time.Now()
	}
	cutFields(&e)
	b, err := e.AppendJSON(nil)
	if err != nil {
		return Event{}, fmt.Errorf("recording on run %s: %w", id, err)
	}
	b = redact.New(secrets...).Bytes(b) // redaction keeps the JSON valid
	var written Event
	if err := json.Unmarshal(b, &written); err != nil {
		return Event{}, fmt.Errorf("recording on run %s: redacting the event: %w", id, err)
	}
	if _, err := f.WriteString(prefix + string(b) + "\n"); err != nil {
		return Event{}, fmt.Errorf("recording on run %s in %s: %w", id, path, err)
	}
	if err := f.Sync(); err != nil {
		return Event{}, fmt.Errorf("recording on run %s in %s: %w", id, path, err)
	}
	return written, nil
}

// lastSeq returns the highest sequence number in the last 1 MiB of an events file.
func lastSeq(f *os.File) int64 {
	st, err := f.Stat()
	if err != nil {
		return 0
	}
	off := max(st.Size()-1<<20, 0)
	b, err := io.ReadAll(io.NewSectionReader(f, off, st.Size()-off))
	if err != nil {
		return 0
	}
	var seq int64
	for _, line := range bytes.Split(b, []byte("\n")) {
		var e struct {
			Seq int64 `json:"seq"`
		}
		if json.Unmarshal(line, &e) == nil && e.Seq > seq {
			seq = e.Seq
		}
	}
	return seq
}
