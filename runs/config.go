package runs

import (
	"errors"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/segwi/segwi/approvals"
	"github.com/segwi/segwi/internal/lib/logger"
	"github.com/segwi/segwi/runs/ports"
	"github.com/segwi/segwi/runs/worktree"
)

// Config is what a Manager needs from the person's settings. The caller fills it (from
// settings in segwi, by hand in tests); zero durations and counts take the defaults below.
type Config struct {
	Runtime Runtime // the agent a run runs by default (runs/claude's Claude Code); required
	// Runtimes are the other runtimes a run may name (Spec.Runtime), by their Name: the
	// ACP agents of segwi.runtimes.
	Runtimes        []Runtime
	Model           string          // the model of runs whose Spec names none; empty: the agent's default
	MaxConcurrent   int             // runs at once; more wait in a queue, in order; default 4
	MaxDuration     time.Duration   // wall clock from start, then a two-step stop (timed-out); default 2h
	IdleTimeout     time.Duration   // no output for this long, then a two-step stop (timed-out); default 30m
	StopGrace       time.Duration   // between SIGTERM and SIGKILL; default 10s
	PassForgeTokens bool            // keep GH_TOKEN and GITHUB_TOKEN in a run's environment
	StateDir        string          // runs go to StateDir/runs/<id>; required
	Secrets         func() []string // extra strings to redact (the keyring token), asked at Start and again by a run that waited (secretsFresh)
	Approvals       Approvals       // the approvals server; nil runs without the prompt tool
	Env             []string        // the base environment of a run; nil means os.Environ()
	// Log gets what goes wrong that no run's record can hold: a record that could not be
	// written. Nil writes nothing.
	Log logger.Logf
	// Ports is how many TCP ports each run gets in its environment (SEGWI_PORT,
	// SEGWI_PORT_COUNT; see package ports); default ports.DefaultCount.
	Ports int
	// WorktreeRoot is where runs that work in a worktree of their own get it
	// (worktree.Root); "" is worktree.Root of Env.
	WorktreeRoot string
	// Repositories are the configured repositories: where their runs work by default, and
	// how a new worktree of one is set up.
	Repositories []Repository
	// Budget is what a run may use before it waits for the person (budget.go), unless its
	// Spec says otherwise; the zero Budget bounds nothing.
	Budget Budget
	// CheckEveryRecord makes NewManager read every run's record for runs left live, and
	// report every damaged one (Damaged), rather than look at the runs marked live only
	// (see liveFolder): the tray app shows the person each damaged record at its start.
	CheckEveryRecord bool
	// KeepBases makes the manager keep the last base read in each checkout, with a stamp
	// of the checkout, and give it to the next run there while nothing changed, without
	// git (changes.Bases): for a segwi that outlives its runs (the tray). A process that
	// runs one run would only pay for the stamp's walk.
	KeepBases bool
}

// Repository is what runs need of a configured repository (segwi.repositories).
type Repository struct {
	Path   string // its checkout's top folder
	Name   string // its name, which names its worktrees' folder
	Remote string // the remote whose default branch a worktree's branch must not be
	// Worktree makes its build and ready runs work in a new worktree unless the person
	// chooses the checkout (Spec.Where).
	Worktree bool
	// Setup is what a new worktree of it gets before the run's agent starts.
	Setup worktree.Setup
}

// runtime returns the runtime called name: Runtime for "", else the one of Runtimes with
// that Name, or an error that names the runtimes there are.
func (c Config) runtime(name string) (Runtime, error) {
	if name == "" {
		return c.Runtime, nil
	}
	names := []string{c.Runtime.Name()}
	for _, rt := range c.Runtimes {
		if rt.Name() == name {
			return rt, nil
		}
		names = append(names, rt.Name())
	}
	return nil, fmt.Errorf("%w: %q (the runtimes are %s; add one under segwi.runtimes)", ErrUnknownRuntime, name, strings.Join(names, ", "))
}

// ErrUnknownRuntime is wrapped by Manager.Start's error for a Spec.Runtime no runtime of
// the Config is called.
var ErrUnknownRuntime = errors.New("no such runtime")

// Approvals is what a run needs of the approvals server: a registration per run, which
// gives the URL and token its agent asks with (Launch.Approvals: for Claude Code, the
// run's mcp.json, removed once it has connected), withdrawn when the run ends.
type Approvals interface {
	Register(info approvals.RunInfo, run approvals.Run) (approvals.Registration, error)
	Unregister(runID string)
}

// The defaults of Config's zero values, as in DESIGN.md's settings.
const (
	DefaultMaxConcurrent = 4
	DefaultMaxDuration   = 2 * time.Hour
	DefaultIdleTimeout   = 30 * time.Minute
	DefaultStopGrace     = 10 * time.Second
)

// withDefaults returns c with every zero value replaced by its default.
func (c Config) withDefaults() Config {
	if c.MaxConcurrent <= 0 {
		c.MaxConcurrent = DefaultMaxConcurrent
	}
	if c.MaxDuration <= 0 {
		c.MaxDuration = DefaultMaxDuration
	}
	if c.IdleTimeout <= 0 {
		c.IdleTimeout = DefaultIdleTimeout
	}
	if c.StopGrace <= 0 {
		c.StopGrace = DefaultStopGrace
	}
	if c.Env == nil {
		c.Env = os.Environ()
	}
	if c.Ports <= 0 {
		c.Ports = ports.DefaultCount
	}
	return c
}

// secretsFresh is how long after Start a run's agent may start with the secrets read at
// Start; a run that waited longer in the queue asks Config.Secrets again.
const secretsFresh = time.Second

// secrets returns the configured extra secrets, or none.
func (c Config) secrets() []string {
	if c.Secrets == nil {
		return nil
	}
	return c.Secrets()
}
