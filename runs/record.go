package runs

import (
	"fmt"
	"os"
	"path/filepath"
)

// writeInfo replaces dir/run.json with info, atomically (a temporary file, synced, then
// renamed over it): what a power cut must not lose.
func writeInfo(dir string, info Info) error { return replaceInfo(dir, info, true) }

// replaceInfo is writeInfo, the temporary file synced only when durable is set. Unsynced,
// the record survives segwi's end (it is in the kernel's cache) but maybe not a power cut,
// which leaves the version before it or, on a file system that does not write a file's
// data before the rename over another (ext4 does), an empty run.json (a damaged record).
// A run's record is synced when it is made and at its final state: the states between,
// the cgroup it runs in, are of a live run, which a power cut makes interrupted anyway.
func replaceInfo(dir string, info Info, durable bool) error {
	b, err := info.AppendJSON(nil)
	if err != nil {
		return fmt.Errorf("writing %s: %w", filepath.Join(dir, infoFile), err)
	}
	tmp := filepath.Join(dir, infoFile+".tmp")
	f, err := os.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o600)
	if err != nil {
		return fmt.Errorf("writing run record: %w", err)
	}
	_, err = f.Write(append(b, '\n'))
	if err == nil && durable {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp, filepath.Join(dir, infoFile))
	}
	if err != nil {
		return fmt.Errorf("writing run record %s: %w", filepath.Join(dir, infoFile), err)
	}
	return nil
}
