package runs

import (
	"fmt"
	"path/filepath"
)

// Annotate records what happened to the ended run id (or unique id prefix) under stateDir
// after it ended: it applies change to its run.json (nil: no change) and appends e to its
// events, as AppendEvent does, both under the run folder's lock. It returns the record as
// written. It fails, wrapping ErrRunLive, while a segwi process still owns the run, and
// wraps ErrNotFound for an unknown id.
func Annotate(stateDir, id string, e Event, change func(*Info), secrets ...string) (Info, error) {
	dir, lock, err := lockEnded(stateDir, id)
	if err != nil {
		return Info{}, err
	}
	defer lock.Close()
	id = filepath.Base(dir)
	info, err := readInfo(dir)
	if err != nil {
		return Info{}, fmt.Errorf("recording on run %s: %w", id, err)
	}
	if change != nil {
		change(&info)
		if err := writeInfo(dir, info); err != nil {
			return Info{}, fmt.Errorf("recording on run %s: %w", id, err)
		}
	}
	if _, err := appendLocked(dir, e, secrets...); err != nil {
		return Info{}, err
	}
	return info, nil
}
