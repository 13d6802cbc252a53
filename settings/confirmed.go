package settings

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
)

// The record of what the person confirmed: a small JSON file beside the settings file,
// holding the guarded values (see Guarded) they last confirmed, by their keys. Every face
// of segwi reads it: the tray app, which watches it with the settings file, and every
// command, so that an edit the person has not confirmed waits in each of them alike. It is
// written when the person confirms an edit (in the tray's window, or with segwi config
// confirm), when they save from the settings window, when an edit narrows a guarded value,
// and once when there is none yet: the settings as found then are taken as confirmed, as
// the person wrote them before this segwi (or as the defaults, without a settings file).

// ConfirmedPath returns the record of what the person confirmed for the settings file at
// settingsFile: the file's name with ".confirmed" added, in its folder.
func ConfirmedPath(settingsFile string) string { return settingsFile + ".confirmed" }

// confirmedRecord is the record's JSON.
type confirmedRecord struct {
	About     string  `json:"about"`
	Confirmed Guarded `json:"confirmed"`
}

// confirmedAbout is the record's own note, for a person who opens it.
const confirmedAbout = "segwi: the guarded settings you last confirmed. An edit of the settings file that widens " +
	"one of them waits until you confirm it in segwi's window or with segwi config confirm."

// ReadConfirmed reads the record of settingsFile. found is false, and the error nil, when
// there is none. It reads only a regular file, as the settings file is read.
func ReadConfirmed(settingsFile string) (g Guarded, found bool, err error) {
	path := ConfirmedPath(settingsFile)
	data, err := readFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return Guarded{}, false, nil
	}
	if err != nil {
		return Guarded{}, false, fmt.Errorf("reading what you confirmed: %w", err)
	}
	// A key the record lacks (one an older segwi did not guard) counts as confirmed at its
	// default; a key it has that this segwi does not know (a newer one's) is left alone.
	rec := confirmedRecord{Confirmed: GuardedOf(Default())}
	if err := json.Unmarshal(data, &rec); err != nil {
		return Guarded{}, false, fmt.Errorf("reading what you confirmed: %s: %w", path, err)
	}
	return rec.Confirmed, true, nil
}

// WriteConfirmed records g as what the person confirmed for settingsFile, replacing the
// record by a rename so that no reader sees half of it.
func WriteConfirmed(settingsFile string, g Guarded) error {
	data, err := json.MarshalIndent(confirmedRecord{About: confirmedAbout, Confirmed: g}, "", "  ")
	if err != nil {
		return fmt.Errorf("recording what you confirmed: %w", err)
	}
	if err := writeAtomic(ConfirmedPath(settingsFile), append(data, '\n'), 0o600); err != nil {
		return fmt.Errorf("recording what you confirmed: %w", err)
	}
	return nil
}

// Standing is what is in force for a settings file that loaded without problems: its
// settings, with each guarded value at what the person confirmed while an edit that widens
// it waits.
type Standing struct {
	// Settings are the settings in force.
	Settings Settings
	// Confirmed are the guarded values the person confirmed, with what edits narrowed since:
	// those of Settings.
	Confirmed Guarded
	// Edit is the edit of the file that waits for the person; nil when none does.
	Edit *GuardedEdit
	// Record is the record's path (ConfirmedPath).
	Record string
	// Adopted is set when there was no record: the file's guarded values were taken as
	// confirmed and recorded.
	Adopted bool
	// Problem is set when the record could not be read (its guarded values are then the
	// defaults: every other value waits) or written (what is in force is still right, for
	// this process).
	Problem error
}

// Stand returns what is in force for res, a load without problems of a settings file, after
// the record of what the person confirmed (see ConfirmedPath): Standing says what waits.
// It writes the record when there was none (see Standing.Adopted) and when the file narrows
// a guarded value; a record that cannot be written is a Standing.Problem, not an error.
func Stand(res *Result) Standing {
	st := Standing{Record: ConfirmedPath(res.File)}
	file := GuardedOf(res.Settings)
	confirmed, found, err := ReadConfirmed(res.File)
	switch {
	case err != nil:
		st.Problem = fmt.Errorf("%w: segwi takes the defaults as confirmed until you confirm again (segwi config confirm)", err)
		confirmed = GuardedOf(Default())
	case !found:
		confirmed, st.Adopted = file, true
	}
	st.Confirmed = resolve(confirmed, file)
	st.Settings = st.Confirmed.Put(res.Settings)
	if !st.Confirmed.Equal(file) {
		st.Edit = &GuardedEdit{Old: st.Confirmed, New: file}
	}
	if (st.Adopted || err == nil && !st.Confirmed.Equal(confirmed)) && st.Problem == nil {
		if werr := WriteConfirmed(res.File, st.Confirmed); werr != nil {
			st.Problem = werr
		}
	}
	return st
}
