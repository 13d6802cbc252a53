package canary

import "github.com/segwi/segwi/canary/guard"

// What a person is told of a guard hook and how segwi sets one up are declared in package
// canary/guard, a leaf that the window program links without the canary's run; these are
// their names here.
var (
	ErrNoGuardDeny  = guard.ErrNoDeny
	GuardHelp       = guard.Help
	ErrGuardChanged = guard.ErrChanged
)

// The guard hook's setup, as package guard declares it.
type (
	GuardSetup  = guard.Setup
	GuardFile   = guard.File
	GuardAction = guard.Action
)

// The actions of a GuardFile.
const (
	GuardCreate = guard.Create
	GuardAdd    = guard.Add
	GuardKeep   = guard.Keep
)

// GuardCommand is guard.Command.
func GuardCommand(path string) (string, error) { return guard.Command(path) }

// PlanGuardSetup is guard.PlanSetup.
func PlanGuardSetup(home string) (GuardSetup, error) { return guard.PlanSetup(home) }
