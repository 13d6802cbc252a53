package record

import "errors"

// ErrNoSession is wrapped by Continue's error for a run whose Claude Code session is not
// recorded (it never started, or failed before its init).
var ErrNoSession = errors.New("no Claude Code session recorded")

// Spec says what run to start.
type Spec struct {
	Kind     Kind
	Checkout string // the folder the run works in
	Prompt   string // the task (build), the question (ask), or optional notes (ready)
	Model    string // overrides Config.Model for this run when set
	// KeepOpen keeps the run's input open after a result, so that a person may send a
	// follow-up; the run then ends on CloseInput, Stop or the idle timeout. Without it
	// (the CLI), the run ends once every message sent has its result.
	KeepOpen bool
	// Resume is the Claude Code session to resume (--resume), for a run that continues an
	// earlier one: Manager.Continue sets it, with ContinuedFrom, the earlier run's id.
	Resume        string
	ContinuedFrom string
	// Where says where the run works: in Checkout itself, in a new git worktree of it made
	// for the run (see where.go), or, left empty, as Checkout's repository says
	// (Repository.Worktree, for build and ready runs).
	Where Where
	// Runtime names the runtime the run's agent runs on, one of Config.Runtimes; "" for
	// Config.Runtime, segwi's default (Claude Code).
	Runtime string
	// Budget is the run's own budget over Config.Budget (Budget.Over): a field of 0 turns
	// that bound off, a negative one keeps the setting's; nil keeps them all.
	Budget *Budget
}

// Errors a caller may branch on.
var (
	ErrInputClosed = errors.New("the run's input is closed")
	ErrNotRunning  = errors.New("the run is not running")
	ErrClosed      = errors.New("segwi is stopping its runs")
)
