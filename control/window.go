package control

import (
	"errors"
	"fmt"

	"github.com/segwi/segwi/migrate"
	"github.com/segwi/segwi/runs/record"
	"github.com/segwi/segwi/settings"
)

// SettingsReport is the settings the tray runs with and what is wrong with the file: sent
// to the window process at connect and after each reload. It does not open a window by
// itself (the tray sends a Show for what the person must see); a window already open
// follows it: the bad-settings window closes once the file is good again, the
// window asking about an edit of guarded settings once none waits.
type SettingsReport struct {
	File string `json:"file"`
	// StateDir is the folder of the run records, which the window process reads (never
	// writes) for the history and the run windows.
	StateDir string `json:"stateDir"`
	Found    bool   `json:"found"` // false: the file does not exist
	// Settings are what the file says, a bad value reset to its default, with the guarded
	// values the person confirmed: what the settings window shows and saves.
	Settings settings.Settings `json:"settings"`
	// InForce are the settings segwi runs with: the file's, the defaults after a bad
	// start, or the last good ones after a bad edit.
	InForce settings.Settings `json:"inForce"`
	// Error is why the settings in force are not the file's (a parse error, or the
	// problems joined); empty when they are. Problems are the values refused.
	Error    string             `json:"error,omitempty"`
	Problems []settings.Problem `json:"problems,omitempty"`
	Retired  []migrate.Retired  `json:"retired,omitempty"` // retired keys, ignored
	Unknown  []string           `json:"unknown,omitempty"` // keys segwi does not know
	// Edit is an edit of guarded settings that widens them and waits for the person, or
	// that they declined; nil when there is none.
	Edit *settings.GuardedEdit `json:"edit,omitempty"`
}

// MessageType returns TypeSettings.
func (SettingsReport) MessageType() Type { return TypeSettings }

// Err is what is wrong with the file as an error: the problems joined (each a
// settings.Problem, as settings.Result.Err gives them), else Error; nil when nothing is.
func (r SettingsReport) Err() error {
	if len(r.Problems) > 0 {
		errs := make([]error, len(r.Problems))
		for i, p := range r.Problems {
			errs[i] = p
		}
		return errors.Join(errs...)
	}
	if r.Error != "" {
		return errors.New(r.Error)
	}
	return nil
}

// PageStatus is the approval page on the tailnet as the tray serves it: sent to the window
// process at connect and each time it changes, for the settings window to say where the
// page is served, or why it is not and what to do.
type PageStatus struct {
	On      bool   `json:"on"`                // segwi.remote.enabled, in force
	URL     string `json:"url,omitempty"`     // where the owner's other devices open it, while it is served
	Problem string `json:"problem,omitempty"` // why it is not served, and what to do
}

// MessageType returns TypePage.
func (PageStatus) MessageType() Type { return TypePage }

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
	ShowUsage     Window = "usage"     // what the runs of the last 30 days cost
	ShowSettings  Window = "settings"  // the settings window
	ShowCanary    Window = "canary"    // run the canary and show its report
	ShowApprovals Window = "approvals" // raise every waiting approval's popup
	ShowQuit      Window = "quit"      // ask whether to stop the runs going and quit
	// The warnings.
	ShowSettingsProblems Window = "settings-problems" // what is wrong with the settings (SettingsReport), at Show.Moment
	ShowRetired          Window = "retired"           // Show.Retired: retired keys not shown before
	ShowSettingsWarnings Window = "settings-warnings" // Show.Unknown and Show.Checks not shown before
	ShowGuardedEdit      Window = "guarded-edit"      // the edit of SettingsReport.Edit
	ShowDamaged          Window = "damaged"           // Show.Damaged: run records segwi could not read
)

// Moment says when bad settings were found, which decides what segwi runs with.
type Moment string

// The moments.
const (
	AtStartup Moment = "startup"    // the file was bad at start: segwi runs with the defaults
	AfterEdit Moment = "after-edit" // an edit made it bad: segwi keeps the last good settings
)

// DamagedRecord is a run record segwi could not read or update (record.Damaged).
type DamagedRecord struct {
	Dir  string `json:"dir"`
	File string `json:"file"`
	Err  string `json:"err"`
}

// DamagedOf is the DamagedRecord of d.
func DamagedOf(d record.Damaged) DamagedRecord {
	return DamagedRecord{Dir: d.Dir, File: d.File, Err: fmt.Sprint(d.Err)}
}

// Damaged is the record as runs names it, with its advice.
func (d DamagedRecord) Damaged() record.Damaged {
	return record.Damaged{Dir: d.Dir, File: d.File, Err: errors.New(d.Err)}
}

// Section names a section of the settings window, which a Show of it scrolls to.
type Section string

// The sections a Show of the settings window may name.
const (
	SectionRemote Section = "remote" // Remote approvals: the approval page, where it is served or why not
	SectionCanary Section = "canary" // Canary: the guard deny file
)

// Show asks the window process to open (or raise) a window: a tray menu click, a
// notification's action, a warning. Its reply is an error when the window could not be
// shown.
type Show struct {
	Window  Window            `json:"window"`
	Section Section           `json:"section,omitempty"` // ShowSettings: the section to show; empty: the top
	Kind    record.Kind       `json:"kind,omitempty"`
	Run     string            `json:"run,omitempty"`
	Moment  Moment            `json:"moment,omitempty"`
	Retired []migrate.Retired `json:"retired,omitempty"`
	Unknown []string          `json:"unknown,omitempty"` // unknown keys of the settings file
	Checks  []string          `json:"checks,omitempty"`  // what stops a run (core.Checks), in words
	Damaged []DamagedRecord   `json:"damaged,omitempty"`
}

// MessageType returns TypeShow.
func (Show) MessageType() Type { return TypeShow }

func (s Show) check() error {
	switch s.Window {
	case ShowNewRun:
		_, err := record.ParseKind(string(s.Kind))
		return err
	case ShowRun:
		return needRun(s.Run)
	case ShowSettingsProblems:
		if s.Moment != AtStartup && s.Moment != AfterEdit {
			return fmt.Errorf("unknown moment %q", s.Moment)
		}
		return nil
	case ShowRetired:
		if len(s.Retired) == 0 {
			return errors.New("no retired keys to show")
		}
		return nil
	case ShowSettingsWarnings:
		if len(s.Unknown)+len(s.Checks) == 0 {
			return errors.New("no settings warnings to show")
		}
		return nil
	case ShowDamaged:
		if len(s.Damaged) == 0 {
			return errors.New("no damaged records to show")
		}
		return nil
	case ShowSettings:
		switch s.Section {
		case "", SectionRemote, SectionCanary:
			return nil
		}
		return fmt.Errorf("unknown settings section %q", s.Section)
	case ShowHistory, ShowUsage, ShowCanary, ShowApprovals, ShowQuit, ShowGuardedEdit:
		return nil
	}
	return fmt.Errorf("unknown window %q", s.Window)
}

// MaxRunWindows bounds the run windows a RunWindows names.
const MaxRunWindows = 256

// RunWindows tells the tray which run windows the window process has open, each time that
// changes: when the window process ends with run windows open while the tray goes on (it
// crashed, was killed, or its channel broke), the tray starts another and asks it to show
// them again (Show of ShowRun), as it shows the waiting approvals again.
type RunWindows struct {
	Runs []string `json:"runs"` // the runs whose windows are open, by id
}

// MessageType returns TypeRunWindows.
func (RunWindows) MessageType() Type { return TypeRunWindows }

func (r RunWindows) check() error {
	if len(r.Runs) > MaxRunWindows {
		return fmt.Errorf("%d run windows, more than %d", len(r.Runs), MaxRunWindows)
	}
	for _, id := range r.Runs {
		if err := needRun(id); err != nil {
			return err
		}
	}
	return nil
}
