// Package core builds segwi's core, the one way every face of segwi starts it: the tray
// app and the commands that run Claude Code (segwi run, segwi canary) alike. New loads the
// settings (or takes those a command loaded), starts the loopback approvals server and
// the runs manager, and, when asked, watches the settings file and applies its edits,
// holding back an edit that widens a guarded setting until the person confirms it. Close
// stops every run in two steps, within the stop grace plus a named slack, then the server.
//
// The core knows nothing of widgets: a front end reads it through plain methods (Report,
// Damaged, Live, ...) and follows it through callbacks and subscriptions (OnReport,
// SubscribeStates), calling them from whatever goroutine or process it lives in.
//
// It also turns settings into the configuration of what it starts (the runs manager, the
// approvals server, a push): the one place that does.
package core

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/segwi/segwi/approvals"
	"github.com/segwi/segwi/approvals/mcpserver"
	"github.com/segwi/segwi/internal/lib/logger"
	"github.com/segwi/segwi/runs"
	"github.com/segwi/segwi/settings"
)

// StopSlack is added to the stop grace (segwi.runs.stopGrace) to bound StopAll and Close:
// the polite stop, the grace, then the kill and a few seconds for the processes to go.
const StopSlack = 5 * time.Second

// Config is what New needs.
type Config struct {
	// ConfigPath is the settings file.
	ConfigPath string
	// Settings, when not nil, is ConfigPath already loaded and found good: the commands load
	// it first, to refuse bad settings. When nil, New loads ConfigPath and, when it is bad,
	// runs with the defaults and says why in the Report (the tray app does so).
	Settings *settings.Result
	// Standing, with Settings, is what is in force for them (settings.Stand), when the
	// command worked it out already; nil: New does.
	Standing *settings.Standing
	// StateDir is where run folders go; empty means settings.StateDir().
	StateDir string
	// Decider puts approval requests before the person: popups, or the terminal. One that
	// shows a request's text can redact it with Core.Redact, ready by the time one comes.
	Decider approvals.Decider
	// Env is a run's base environment; nil means this process's.
	Env []string
	// Secrets returns extra strings to redact; nil reads the GitHub token from the keyring.
	Secrets func() []string
	// Watch makes New watch the settings file and apply its edits.
	Watch bool
	// CheckEveryRecord makes New read every run's record for runs a gone segwi left live,
	// and find every damaged record (Damaged), rather than look at the runs marked live
	// only (runs.Config.CheckEveryRecord): the tray app shows each damaged one at its start.
	CheckEveryRecord bool
	// KeepBases makes the runs manager keep each checkout's last base for the next run
	// there (runs.Config.KeepBases): for a core that outlives its runs, as the tray's does.
	KeepBases bool
	// Log is where the core writes what goes wrong in its background work, and what it
	// found at start (damaged run records, bad settings); nil writes nothing.
	Log logger.Logf
}

// Core is segwi's core: settings, approvals server and runs manager. Its methods are safe
// for concurrent use.
type Core struct {
	cfg      Config
	stateDir string

	mgr     *runs.Manager
	server  *mcpserver.Server
	watcher *settings.Watcher // nil when not watching

	// policyMu orders the changes of the settings in force: reloads of the settings file,
	// saves from the settings window, and the person's answers to a GuardedEdit.
	policyMu sync.Mutex
	mu       sync.Mutex
	report   SettingsReport
	onReport map[*func(SettingsReport)]struct{}

	closeOnce sync.Once
}

// New loads the settings (see Config.Settings), starts the approvals server and the runs
// manager and, with cfg.Watch, watches the settings file. It fails only when the core
// cannot work: no state folder, no server, no manager. What it finds wrong in the run
// records of earlier runs does not stop it: Damaged names those, and Log gets each.
func New(cfg Config) (*Core, error) {
	if cfg.Secrets == nil {
		cfg.Secrets = keyringSecrets
	}
	stateDir := cfg.StateDir
	if stateDir == "" {
		dir, err := settings.StateDir()
		if err != nil {
			return nil, err
		}
		stateDir = dir
	}
	c := &Core{cfg: cfg, stateDir: stateDir, onReport: map[*func(SettingsReport)]struct{}{}}
	if cfg.Settings != nil {
		c.report = reportOf(cfg.ConfigPath, cfg.Settings, cfg.Standing, cfg.Log)
	} else {
		c.report = loadReport(cfg.ConfigPath, cfg.Log)
	}
	if err := c.report.Err; err != nil {
		cfg.Log.Printf("running with the default settings: %v", err)
	}
	s := c.report.InForce

	srv, err := mcpserver.New(approvalsConfig(s, cfg.Decider))
	if err != nil {
		return nil, fmt.Errorf("starting the approvals server: %w", err)
	}
	c.server = srv
	mgr, err := runs.NewManager(runsConfig(s, stateDir, cfg, srv))
	if err != nil {
		srv.Close()
		return nil, fmt.Errorf("starting the runs manager: %w", err)
	}
	c.mgr = mgr
	for _, d := range mgr.Damaged() {
		cfg.Log.Printf("%v", d)
	}

	if cfg.Watch && cfg.ConfigPath != "" {
		// Watch needs the folder; creating ~/.config/segwi also gives the settings window a
		// place to save to.
		if err := os.MkdirAll(filepath.Dir(cfg.ConfigPath), 0o755); err != nil {
			cfg.Log.Printf("not watching the settings file: %v", err)
		} else if w, err := settings.Watch(cfg.ConfigPath, s, c.apply); err != nil {
			cfg.Log.Printf("not watching the settings file: %v", err)
		} else {
			c.watcher = w
		}
	}
	return c, nil
}

// Damaged returns the run records New found damaged (a run.json it could not read, a
// record it could not mark interrupted), for a front end to show; segwi goes on without
// them.
func (c *Core) Damaged() []runs.Damaged { return c.mgr.Damaged() }

// StateDir returns the folder of the run records.
func (c *Core) StateDir() string { return c.stateDir }

// Manager returns the runs manager, for what drives runs itself (the canary).
func (c *Core) Manager() *runs.Manager { return c.mgr }

// Redact returns text with the secrets every run's record hides (the configured ones, every
// live run's token) masked, for a front end that shows text about a run.
func (c *Core) Redact(text string) string { return c.mgr.Redactor().String(text) }

// Start starts a run that lives until it ends or ctx is done; see runs.Manager.Start. It
// may wait for the keyring (to redact the token), so a front end calls it off its UI
// goroutine. Close stops every run, whatever its context.
func (c *Core) Start(ctx context.Context, spec runs.Spec) (*runs.Run, error) {
	return c.mgr.Start(ctx, spec)
}

// Continue starts a run that continues the ended run id, resuming its Claude Code
// session, with budget over the settings' (nil: the settings'), and lives until it ends
// or ctx is done; see runs.Manager.Continue. Like Start, a front end calls it off its UI
// goroutine.
func (c *Core) Continue(ctx context.Context, id, prompt string, keepOpen bool, budget *runs.Budget) (*runs.Run, error) {
	return c.mgr.Continue(ctx, id, prompt, keepOpen, budget)
}

// Live returns the runs that have not ended, oldest first.
func (c *Core) Live() []*runs.Run { return c.mgr.Runs() }

// Get returns the live run id, or nil.
func (c *Core) Get(id string) *runs.Run { return c.mgr.Get(id) }

// SubscribeStates returns every run's state changes (a run waiting for an approval or
// for the person's reply, a run that ended) and its approvals that timed out: what a front
// end shows and notifies about, typed. See runs.Manager.Subscribe.
func (c *Core) SubscribeStates() (<-chan runs.Event, func()) { return c.mgr.Subscribe() }

// QueuedAhead returns how many queued runs wait before the run id.
func (c *Core) QueuedAhead(id string) int {
	n := 0
	for _, r := range c.mgr.Runs() {
		if r.ID() == id {
			return n
		}
		if r.State() == runs.StateQueued {
			n++
		}
	}
	return 0
}

// StopGrace returns the time between the polite stop and the kill in force
// (segwi.runs.stopGrace, else runs.DefaultStopGrace).
func (c *Core) StopGrace() time.Duration {
	if grace := c.Settings().Runs.StopGrace; grace > 0 {
		return grace
	}
	return runs.DefaultStopGrace
}

// StopAll stops every run in two steps (SIGTERM, then SIGKILL after the stop grace) and
// returns when they have ended, or after the grace plus StopSlack, when it has killed what
// was left.
func (c *Core) StopAll() error {
	ctx, cancel := context.WithTimeout(context.Background(), c.StopGrace()+StopSlack)
	defer cancel()
	return c.mgr.StopAll(ctx)
}

// Close stops the watch, every run (as StopAll) and the approvals server. Calling it again
// does nothing. It returns once the runs have ended, within the grace plus StopSlack.
func (c *Core) Close() error {
	var errs []error
	c.closeOnce.Do(func() {
		if c.watcher != nil {
			errs = append(errs, c.watcher.Close())
		}
		errs = append(errs, c.StopAll(), c.server.Close())
	})
	return errors.Join(errs...)
}
