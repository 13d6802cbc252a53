package settings

import (
	"errors"
	"fmt"
	"io/fs"
	"strings"

	"github.com/segwi/segwi/migrate"
)

// Result is what Load found in a settings file.
type Result struct {
	// Settings are the loaded settings. When Problems is not empty, each bad value is left
	// at its default: use Settings only when Err returns nil.
	Settings Settings
	// File is the settings file that was read (or looked for).
	File string
	// Found is false when the file does not exist; Settings are then the defaults.
	Found bool
	// Unknown lists keys segwi does not know, as full key paths the way the person wrote
	// them (e.g. "segwi.runs.maxConcurent"), sorted. Retired keys are not in it.
	Unknown []string
	// Retired lists the retired keys in the file. They have no effect on Settings.
	Retired []migrate.Retired
	// Problems lists the values that failed validation, in the order keys are checked.
	Problems []Problem
}

// UnknownHint is what a front end says of each of Result.Unknown, after the key.
const UnknownHint = "segwi does not know this key and ignores it: check its spelling and that it sits under segwi:, or delete it"

// Err returns the validation problems joined into one error, or nil when there are none.
func (r *Result) Err() error {
	if len(r.Problems) == 0 {
		return nil
	}
	errs := make([]error, len(r.Problems))
	for i, p := range r.Problems {
		errs[i] = p
	}
	return errors.Join(errs...)
}

// Problem is a value that failed validation.
type Problem struct {
	File    string // the settings file
	Key     string // the key path as the person wrote it, e.g. "segwi.runs.maxConcurrent"
	Message string // what is wrong, and what to write instead
}

// Error reads like "FILE: segwi.runs.maxConcurrent: must be between 1 and 64, got 0".
func (p Problem) Error() string { return p.File + ": " + p.Key + ": " + p.Message }

// Load reads the settings file at path. A missing file gives the defaults and no error.
// The error is non-nil only when the file exists but cannot be read or parsed (it names the
// file); values that fail validation are reported in Result.Problems instead, so a caller
// such as "segwi config check" can show every problem, unknown key and retired key at once.
// A path that is not a regular file (a named pipe, a device) or a file larger than
// MaxFileBytes is an error, found without waiting on the file.
func Load(path string, opts ...Option) (*Result, error) {
	typ, err := format(path)
	if err != nil {
		return nil, fmt.Errorf("reading settings: %w", err)
	}
	data, err := readFile(path)
	return loadData(path, typ, data, err, opts...)
}

// loadData is Load on what readFile returned for the file.
func loadData(path, typ string, data []byte, readErr error, opts ...Option) (*Result, error) {
	res := &Result{Settings: Default(), File: path}
	if errors.Is(readErr, fs.ErrNotExist) {
		return res, nil
	}
	if readErr != nil {
		return nil, fmt.Errorf("reading settings: %w", readErr)
	}
	res.Found = true
	return res, res.parse(typ, data, opts...)
}

// Option changes how Load checks the file's values.
type Option func(*loader)

// AllowLoopbackHTTP makes Load accept a plain-HTTP segwi.github.apiURL on this machine
// (127.0.0.1, ::1, localhost), as push and pull requests do with the same option. It is for
// tests, whose servers have no certificate; without it the API URL must be HTTPS.
func AllowLoopbackHTTP() Option {
	return func(l *loader) { l.allowLoopbackHTTP = true }
}

// parse fills res from the file's contents.
func (res *Result) parse(typ string, data []byte, opts ...Option) error {
	raw, err := decodeRaw(typ, data)
	var tooMuch *boundsError
	if errors.As(err, &tooMuch) {
		return fmt.Errorf("reading settings: %s: %w", res.File, err)
	}
	if err != nil {
		return fmt.Errorf("reading settings: %s: %v: fix the %s syntax", res.File, err, strings.ToUpper(typ))
	}
	res.Retired = migrate.Find(raw)
	w := walker{file: res.File, retired: res.Retired, written: map[string]string{}}
	w.walk(raw, schema, "")
	res.Unknown = w.unknown
	res.Problems = w.problems
	l := &loader{tree: raw, file: res.File, written: w.written}
	for _, o := range opts {
		o(l)
	}
	res.Settings = l.settings()
	res.Problems = append(res.Problems, l.problems...)
	return nil
}
