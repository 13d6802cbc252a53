package cli

import (
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"

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
	// Terminal is Options.Terminal.
	Terminal func() (io.ReadWriteCloser, error)

	configFlag string // --config
}

// openTerminal opens the person's terminal (Terminal, else the controlling terminal,
// /dev/tty), to ask what only a person may answer: never stdin, which a script or another
// program may fill.
func (e *Env) openTerminal() (io.ReadWriteCloser, error) {
	if e.Terminal != nil {
		return e.Terminal()
	}
	return os.OpenFile("/dev/tty", os.O_RDWR, 0)
}

// ConfigPath returns the settings file in use: --config, else settings.Path.
func (e *Env) ConfigPath() (string, error) {
	if e.configFlag != "" {
		return settings.ExpandHome(e.configFlag)
	}
	return settings.Path()
}

// LoadSettings loads the settings for a command, and what is in force for them after the
// record of what the person confirmed (settings.Stand): a command runs with the Standing's
// Settings. It warns on Stderr about each retired key (once per process, through Warner),
// each unknown key and each edit of a guarded setting that waits for the person, and
// returns an error when the file cannot be read or a value is invalid, pointing at segwi
// config check.
func (e *Env) LoadSettings() (*settings.Result, settings.Standing, error) {
	path, err := e.ConfigPath()
	if err != nil {
		return nil, settings.Standing{}, err
	}
	res, err := settings.Load(path, e.settingsOptions()...)
	if err != nil {
		return nil, settings.Standing{}, err
	}
	e.Warner.Warn(e.Stderr, res.File, res.Retired)
	for _, k := range res.Unknown {
		fmt.Fprintf(e.Stderr, "warning: %s: %s: %s\n", res.File, k, settings.UnknownHint)
	}
	if err := res.Err(); err != nil {
		return res, settings.Standing{}, fmt.Errorf("the settings have problems (segwi config check lists them all):\n%w", err)
	}
	st := settings.Stand(res)
	if st.Problem != nil {
		fmt.Fprintf(e.Stderr, "warning: %v\n", st.Problem)
	}
	if st.Edit != nil {
		fmt.Fprintf(e.Stderr, "warning: %s: changed outside segwi's settings window, and waits for your confirmation; "+
			"until then segwi uses the values you confirmed:\n", res.File)
		for _, c := range st.Edit.Changes() {
			fmt.Fprintf(e.Stderr, "warning:   %s\n", changeLine(c))
		}
		fmt.Fprintf(e.Stderr, "warning: confirm the new values with segwi config confirm, or in the tray's window\n")
	}
	return res, st, nil
}

// changeLine says what an edit does to one guarded setting: "KEY: OLD -> NEW (WHY)", or
// for a list the entries it adds and removes.
func changeLine(c settings.KeyChange) string {
	if !c.List {
		return fmt.Sprintf("%s: %s -> %s (%s)", c.Key, strings.Join(c.Old, ""), strings.Join(c.New, ""), c.Why)
	}
	var parts []string
	if len(c.Added) > 0 {
		parts = append(parts, "adds "+quoteAll(c.Added))
	}
	if len(c.Removed) > 0 {
		parts = append(parts, "removes "+quoteAll(c.Removed))
	}
	if len(parts) == 0 {
		parts = append(parts, "orders "+quoteAll(c.New)) // the same entries in another order
	}
	return fmt.Sprintf("%s: %s (%s)", c.Key, strings.Join(parts, ", "), c.Why)
}

// quoteAll quotes each entry and joins them with commas.
func quoteAll(list []string) string {
	q := make([]string, len(list))
	for i, e := range list {
		q[i] = strconv.Quote(e)
	}
	return strings.Join(q, ", ")
}

// settingsOptions are how this segwi checks its settings file.
func (e *Env) settingsOptions() []settings.Option {
	if e.AllowLoopbackHTTP {
		return []settings.Option{settings.AllowLoopbackHTTP()}
	}
	return nil
}
