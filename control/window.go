package control

import (
	"errors"
	"fmt"

	"github.com/segwi/segwi/migrate"
	"github.com/segwi/segwi/runs"
	"github.com/segwi/segwi/settings"
)

// SettingsReport is the settings the tray runs with and what is wrong with the file: sent
// at connect and after each reload.
type SettingsReport struct {
	File     string             `json:"file"`
	Found    bool               `json:"found"` // false: the file does not exist, Settings are the defaults
	Settings settings.Settings  `json:"settings"`
	Problems []settings.Problem `json:"problems,omitempty"` // values refused; the last good ones stay
	Retired  []migrate.Retired  `json:"retired,omitempty"`  // retired keys, ignored
	Unknown  []string           `json:"unknown,omitempty"`  // keys segwi does not know
}

// MessageType returns TypeSettings.
func (SettingsReport) MessageType() Type { return TypeSettings }

// Level says how much a Notice matters.
type Level string

// The levels of a Notice.
const (
	Info    Level = "info"
	Warning Level = "warning"
)

// Notice is something to tell the person: a warning window, or a line in a run window
// when Run is set.
type Notice struct {
	Level Level  `json:"level"`
	Title string `json:"title"`
	Text  string `json:"text"`
	Run   string `json:"run,omitempty"`
}

// MessageType returns TypeNotice.
func (Notice) MessageType() Type { return TypeNotice }

func (n Notice) check() error {
	switch n.Level {
	case Info, Warning:
	default:
		return fmt.Errorf("unknown level %q", n.Level)
	}
	if n.Title == "" && n.Text == "" {
		return errors.New("no title and no text")
	}
	return nil
}

// Window names a window the tray asks the window process to show.
type Window string

// The windows.
const (
	ShowNewRun    Window = "new-run"   // the new-run dialog for Show.Kind
	ShowRun       Window = "run"       // the run window of Show.Run
	ShowHistory   Window = "history"   // the run history
	ShowSettings  Window = "settings"  // the settings window
	ShowCanary    Window = "canary"    // the canary report
	ShowApprovals Window = "approvals" // raise every waiting approval's popup
)

// Show asks the window process to open (or raise) a window: a tray menu click, or a
// notification's action. Its reply is an error when the window could not be shown.
type Show struct {
	Window Window    `json:"window"`
	Kind   runs.Kind `json:"kind,omitempty"`
	Run    string    `json:"run,omitempty"`
}

// MessageType returns TypeShow.
func (Show) MessageType() Type { return TypeShow }

func (s Show) check() error {
	switch s.Window {
	case ShowNewRun:
		_, err := runs.ParseKind(string(s.Kind))
		return err
	case ShowRun:
		return needRun(s.Run)
	case ShowHistory, ShowSettings, ShowCanary, ShowApprovals:
		return nil
	}
	return fmt.Errorf("unknown window %q", s.Window)
}
