package record

import (
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
)

// Damaged is a file of a run's record that segwi could not read, or could not update: a
// run.json cut short by a crash, an events.jsonl that is not a readable file. segwi goes
// on without it; its Error says which file, what went wrong and what the person can do.
// List, ReadEvents and the Manager (Manager.Damaged) report them.
type Damaged struct {
	Dir  string // the run's folder
	File string // the damaged file, a full path in Dir
	Err  error  // what went wrong
}

// Error says which file is damaged, how, what it costs and what to do (Advice).
func (d Damaged) Error() string {
	switch filepath.Base(d.File) {
	case InfoFile:
		return fmt.Sprintf("run record %s cannot be read: %v; %s", d.File, d.Err, d.Advice())
	case EventsFile:
		return fmt.Sprintf("run events %s cannot be read or added to: %v; %s", d.File, d.Err, d.Advice())
	}
	if d.File == d.Dir {
		return fmt.Sprintf("%s: %v", d.File, d.Err) // the runs folder, not one run's
	}
	return fmt.Sprintf("run file %s: %v; %s", d.File, d.Err, d.Advice())
}

// Advice says what the damage costs and what the person can do about it: a run whose
// run.json cannot be read is left out of the runs listed; one whose events cannot be read
// is still listed. Empty for damage of the runs folder itself.
func (d Damaged) Advice() string {
	switch {
	case filepath.Base(d.File) == InfoFile:
		return fmt.Sprintf("the run is left out: repair the file, or move its folder %s away", d.Dir)
	case filepath.Base(d.File) == EventsFile:
		return fmt.Sprintf("the run is still listed: repair the file, or move its folder %s away", d.Dir)
	case d.File == d.Dir:
		return ""
	}
	return fmt.Sprintf("if this stays, move its folder %s away", d.Dir)
}

// Unwrap returns Err.
func (d Damaged) Unwrap() error { return d.Err }

// DamagedIn returns the Damaged records among the errors err joins (errors.Join, at any
// depth), and wraps each other error as the damage of the runs folder of stateDir.
func DamagedIn(stateDir string, err error) []Damaged {
	if err == nil {
		return nil
	}
	if j, ok := err.(interface{ Unwrap() []error }); ok {
		var out []Damaged
		for _, e := range j.Unwrap() {
			out = append(out, DamagedIn(stateDir, e)...)
		}
		return out
	}
	var d Damaged
	if !errors.As(err, &d) {
		d = Damaged{Dir: RunsDir(stateDir), File: RunsDir(stateDir), Err: err}
	}
	return []Damaged{d}
}

// UnwrapPath drops the operation and path of an *fs.PathError, which Damaged says itself.
func UnwrapPath(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}
