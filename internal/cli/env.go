package cli

import (
	"fmt"
	"io"

	"github.com/segwi/segwi/migrate"
	"github.com/segwi/segwi/settings"
)

// Env is what commands, and the tray app, share for one run of segwi.
type Env struct {
	Stdin          io.Reader
	Stdout, Stderr io.Writer
	// Warner remembers which retired settings were warned about, once per process.
	Warner *migrate.Warner
	// AllowLoopbackHTTP is Options.AllowLoopbackHTTP: for tests only.
	AllowLoopbackHTTP bool

	configFlag string // --config
}

// ConfigPath returns the settings file in use: --config, else settings.Path.
func (e *Env) ConfigPath() (string, error) {
	if e.configFlag != "" {
		return settings.ExpandHome(e.configFlag)
	}
	return settings.Path()
}

// LoadSettings loads the settings for a command. It warns on Stderr about each retired key
// (once per process, through Warner) and each unknown key, and returns an error when the
// file cannot be read or a value is invalid, pointing at segwi config check.
func (e *Env) LoadSettings() (*settings.Result, error) {
	path, err := e.ConfigPath()
	if err != nil {
		return nil, err
	}
	res, err := settings.Load(path, e.settingsOptions()...)
	if err != nil {
		return nil, err
	}
	e.Warner.Warn(e.Stderr, res.File, res.Retired)
	for _, k := range res.Unknown {
		fmt.Fprintf(e.Stderr, "warning: %s: %s: %s\n", res.File, k, settings.UnknownHint)
	}
	if err := res.Err(); err != nil {
		return res, fmt.Errorf("the settings have problems (segwi config check lists them all):\n%w", err)
	}
	return res, nil
}

// settingsOptions are how this segwi checks its settings file.
func (e *Env) settingsOptions() []settings.Option {
	if e.AllowLoopbackHTTP {
		return []settings.Option{settings.AllowLoopbackHTTP()}
	}
	return nil
}
