package runs

import (
	"io"
	"os/exec"

	"github.com/segwi/segwi/approvals"
)

// A Runtime is an agent program segwi runs, and how: Claude Code's is package
// runs/claude. A Manager drives every run through the one its Config names; the run, its
// record, the sweep of what it leaves, its limits and its approvals know nothing more of
// the agent than this.
type Runtime interface {
	// Name is the agent's program as a person calls it in a run's reasons: "claude
	// exited with code 1".
	Name() string
	// Check says whether the agent can be started, before a run is queued; its error,
	// which Manager.Start returns, says what to do.
	Check() error
	// Start starts the agent for l, through l.Start, and returns its session once its
	// process has started, or why it could not start.
	Start(l Launch) (Session, error)
}

// Launch is what a Runtime is given to start one run's agent.
type Launch struct {
	RunID    string
	Kind     Kind
	Checkout string // the folder the agent works in
	Model    string // the model it is to use; "" for its default
	Resume   string // the agent's session to resume (a continued run); "" for a new one
	// MaxCostUSD bounds the cost of the agent's whole process, for a runtime that keeps
	// to it itself, mid-turn (TurnCostBounder): the cost budget of a run that sends its
	// agent one message (not kept open); 0 for none.
	MaxCostUSD float64
	// Env is the run's environment: the person's, less what no run gets (forge tokens,
	// unless the settings pass them; retired variables), plus SEGWI_RUN_ID and
	// SEGWI_RUN_KIND, which every process of the run inherits.
	Env []string
	// Dir is the run's folder: a file the agent reads as it starts goes here, mode 0600,
	// and goes again once the agent has read it (Session.Connected) or the run ends.
	Dir string
	// Approvals is where the agent asks a person's approval for a tool call: segwi's
	// approvals server and the run's bearer token. Nil when none is wired.
	Approvals *approvals.Registration
	// Start starts cmd as the agent's process, in a session and process group of its own
	// that segwi stops in two steps and sweeps, killed if segwi dies. The runtime calls it
	// once, with cmd ready: its path, arguments, folder, environment and standard files.
	// It starts nothing, and says so, for a run stopped meanwhile.
	Start func(cmd *exec.Cmd) error
}

// A Session is a started agent as its runtime speaks to it. The run calls Send and
// CloseInput from one goroutine, in the order it decided them; Output and Parse from
// another, its reader; Connected and Close from its owner.
type Session interface {
	// Send writes text to the agent as the person's message. It returns once written, or
	// with an error, within seconds when the agent does not read.
	Send(text string) error
	// CloseInput says no message follows: the agent finishes its turn and exits. It may
	// wait for what the session does to close (a Lingering one's agent is ended once it
	// has returned), bounded by the session.
	CloseInput() error
	// Output is what the agent prints, which the run reads line by line until it ends.
	Output() io.Reader
	// Parse turns one line of the output into segwi's events, and hands each to emit.
	// The line comes redacted, without its newline and its terminal control sequences;
	// a line that is not one of the agent's events is an output event (OutputEvent), one
	// of a kind the runtime does not know a raw one (RawEvent), and an empty one none.
	// A turn's end is an EventResult.
	Parse(line []byte, emit func(Event))
	// Connected tells the session that the agent reached the approvals server: what held
	// the run's token for it can go. Its error says what could not.
	Connected() error
	// Close lets go of what the session holds once the agent's process has exited: a
	// read of Output returns, and what its start left for the agent goes. A second call
	// does nothing.
	Close() error
}

// A Lingering session's agent may not exit when its input closes: an ACP agent waits for
// its client to end it (claude-agent-acp 0.23.1 does). Once the run's input is closed, the
// session's CloseInput has returned and every message has its result, the run ends the
// agent with the two-step stop, and ends as its results say, as though the agent had
// exited.
type Lingering interface {
	Session
	// Lingers says whether the agent is to be ended once its input is closed and its last
	// turn over.
	Lingers() bool
}

// A Canceler session is told of a stop (Run.Stop, a limit) before its agent's process
// group gets the stop's signal: an ACP agent is sent session/cancel. Cancel returns at
// once, without waiting for the agent.
type Canceler interface {
	Session
	Cancel()
}

// A Failing session can tell that it cannot go on while its agent's process may live: an
// ACP agent that did not shake hands (it exited before it answered initialize, did not
// answer in time, or answered with an error) neither exits nor ends a turn. The run then
// fails at once, for Failure's reason: its owner stops the agent with the two-step stop
// (a stop asked before stands), or, when the agent exited first, ends the run as failed
// for that reason rather than as the exit alone says. The run's owner asks both from
// goroutines of its own: they are safe for concurrent use.
type Failing interface {
	Session
	// Failed is closed once the session cannot go on, before Output ends.
	Failed() <-chan struct{}
	// Failure says why, for a person, naming the agent and its command; nil until Failed
	// is closed.
	Failure() error
}
