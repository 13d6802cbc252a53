package app

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/segwi/segwi/approvals"
	"github.com/segwi/segwi/internal/wire"
	"github.com/segwi/segwi/runs"
	"github.com/segwi/segwi/settings"
)

// stopAllSlack is added to runs.stopGrace to bound StopAll when segwi quits: the polite
// stop, the grace, then the kill and a few seconds for the processes to go.
const stopAllSlack = 5 * time.Second

// core wires segwi's core for the desktop: the settings file and its watch, the approvals
// server and the runs manager. It knows nothing of widgets; the tray and the windows use
// it through small interfaces (runStarter, runLister, ...).
type core struct {
	configPath string
	stateDir   string

	mgr     *runs.Manager
	server  *approvals.Server
	watcher *settings.Watcher // nil when the settings folder could not be watched

	// policyMu orders the changes of the approvals policy: reloads of the settings file,
	// saves from the settings window, and the person's answers to a TrustedChange.
	policyMu sync.Mutex
	mu       sync.Mutex
	report   SettingsReport
	onReport []func(SettingsReport)

	closeOnce sync.Once
}

// coreConfig is what newCore needs beyond the settings file.
type coreConfig struct {
	ConfigPath string
	StateDir   string               // where run folders go; settings.StateDir() in the app
	Decider    approvals.Decider    // the popups in the app
	Env        []string             // a run's base environment; nil means this process's
	Secrets    func() []string      // extra strings to redact; nil reads the keyring token
	Watch      bool                 // watch the settings file for edits
	Log        func(string, ...any) // where failures of the background work are written
}

// SettingsReport is what segwi found in its settings file, for the windows that show it
// (the settings window, the warnings): the file, the last load, and what is wrong. Err is
// nil when the settings in force are the file's; otherwise the settings in force are the
// defaults (at start-up) or the last good ones (after a bad edit), and Err says why. The
// trusted commands in force are the file's only once the person accepted them (see
// TrustedChange).
type SettingsReport struct {
	File    string
	Result  *settings.Result // the last load; nil when the file could not be read or parsed
	Err     error            // a parse error, or the validation problems joined
	InForce settings.Settings
	// AcceptedTrusted are the trusted commands the person accepted: the file's at start-up,
	// then each edit's that added none, each list they confirmed, each one saved from the
	// settings window. They are in force whenever the file's other settings are.
	AcceptedTrusted []string
	// TrustedChange is an edit of the file's trusted commands that adds some and waits
	// for the person, or that they declined; nil when there is none.
	TrustedChange *TrustedChange
}

// FileSettings returns what the settings file says, a bad value reset to its default: what
// the settings window shows and saves. After a bad start the settings in force are the
// defaults, and saving those would drop the person's repositories and trusted commands.
// Its trusted commands are the accepted ones: saving the window must not slip in an
// addition the person has not confirmed.
func (r SettingsReport) FileSettings() settings.Settings {
	if r.Result != nil {
		s := r.Result.Settings
		s.Approvals.Trusted = r.AcceptedTrusted
		return s
	}
	return r.InForce
}

// Problems returns the validation problems of the last load, if any.
func (r SettingsReport) Problems() []settings.Problem {
	if r.Result == nil {
		return nil
	}
	return r.Result.Problems
}

// newCore loads the settings (running with the defaults when they are bad), starts the
// approvals server and the runs manager, and, with cfg.Watch, watches the settings file.
func newCore(cfg coreConfig) (*core, error) {
	if cfg.Log == nil {
		cfg.Log = func(string, ...any) {}
	}
	c := &core{configPath: cfg.ConfigPath, stateDir: cfg.StateDir}
	c.report = loadReport(cfg.ConfigPath)
	s := c.report.InForce

	srv, err := approvals.NewServer(wire.Approvals(s, cfg.Decider))
	if err != nil {
		return nil, fmt.Errorf("starting the approvals server: %w", err)
	}
	c.server = srv

	secrets := cfg.Secrets
	if secrets == nil {
		secrets = wire.KeyringSecrets
	}
	mgr, err := runs.NewManager(wire.Runs(s, cfg.StateDir, secrets, srv, cfg.Env))
	if err != nil {
		srv.Close()
		return nil, fmt.Errorf("starting the runs manager: %w", err)
	}
	c.mgr = mgr
	for _, d := range mgr.Damaged() {
		cfg.Log("segwi: %v", d)
	}

	if cfg.Watch && cfg.ConfigPath != "" {
		// Watch needs the folder; creating ~/.config/segwi also gives the settings window a
		// place to save to.
		if err := os.MkdirAll(filepath.Dir(cfg.ConfigPath), 0o755); err != nil {
			cfg.Log("segwi: not watching the settings file: %v", err)
		} else if w, err := settings.Watch(cfg.ConfigPath, s, func(ch settings.Change) {
			c.apply(ch, secrets, cfg.Env, cfg.Log)
		}); err != nil {
			cfg.Log("segwi: not watching the settings file: %v", err)
		} else {
			c.watcher = w
		}
	}
	return c, nil
}

// loadReport loads the settings file; bad settings give the defaults and say why.
func loadReport(path string) SettingsReport {
	rep := SettingsReport{File: path, InForce: settings.Default()}
	if path == "" {
		return rep
	}
	res, err := settings.Load(path)
	if err != nil {
		rep.Err = err
		return rep
	}
	rep.Result, rep.File = res, res.File
	rep.AcceptedTrusted = res.Settings.Approvals.Trusted
	if err := res.Err(); err != nil {
		rep.Err = err
		return rep
	}
	rep.InForce = res.Settings
	return rep
}

// apply takes in an edit of the settings file: good settings go to the manager and the
// server, except trusted commands the person has yet to confirm (see TrustedChange); a
// bad edit keeps them and is reported. On the Watcher's goroutine.
func (c *core) apply(ch settings.Change, secrets func() []string, env []string, logf func(string, ...any)) {
	c.policyMu.Lock()
	prev := c.Report()
	rep := SettingsReport{File: c.configPath, Result: ch.Result, Err: ch.Err, InForce: prev.InForce,
		AcceptedTrusted: prev.AcceptedTrusted, TrustedChange: prev.TrustedChange}
	if ch.Result != nil {
		rep.File = ch.Result.File
	}
	if ch.Err == nil {
		s := ch.Settings
		rep.AcceptedTrusted, rep.TrustedChange = prev.trustedAfterEdit(s.Approvals.Trusted)
		s.Approvals.Trusted = rep.AcceptedTrusted
		rep.InForce = s
		c.mgr.SetConfig(wire.Runs(s, c.stateDir, secrets, c.server, env))
		if err := c.server.SetPolicy(s.Approvals.Timeout, s.Approvals.Trusted); err != nil {
			// settings validated the list already; this is a disagreement between the two.
			logf("segwi: approvals policy not applied: %v", err)
			rep.Err = err
		}
	}
	c.mu.Lock()
	c.report = rep
	fns := append([]func(SettingsReport){}, c.onReport...)
	c.mu.Unlock()
	c.policyMu.Unlock()
	for _, f := range fns {
		f(rep)
	}
}

// Report returns what segwi found in its settings file at the last load. Safe from any
// goroutine.
func (c *core) Report() SettingsReport {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.report
}

// OnReport adds f to be called with each new report after an edit of the settings file,
// on the watcher's goroutine (use fyne.Do to touch widgets).
func (c *core) OnReport(f func(SettingsReport)) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.onReport = append(c.onReport, f)
}

// Settings returns the settings in force.
func (c *core) Settings() settings.Settings { return c.Report().InForce }

// StateDir returns the folder of the run records.
func (c *core) StateDir() string { return c.stateDir }

// Start starts a run; see runs.Manager.Start. It may wait for the keyring (to redact the
// token), so call it off Fyne's goroutine.
func (c *core) Start(spec runs.Spec) (liveRun, error) {
	r, err := c.mgr.Start(spec)
	if err != nil {
		return nil, err
	}
	return r, nil
}

// Live returns the runs that have not ended, oldest first.
func (c *core) Live() []liveRun {
	rs := c.mgr.Runs()
	out := make([]liveRun, len(rs))
	for i, r := range rs {
		out[i] = r
	}
	return out
}

// Get returns the live run id, or nil.
func (c *core) Get(id string) liveRun {
	if r := c.mgr.Get(id); r != nil {
		return r
	}
	return nil
}

// SubscribeStates returns every run's state changes; see runs.Manager.Subscribe.
func (c *core) SubscribeStates() (<-chan runs.Event, func()) { return c.mgr.Subscribe() }

// StopAll stops every run in two steps (SIGTERM, then SIGKILL after runs.stopGrace) and
// returns when they have ended, or after stopGrace plus a few seconds, when it has killed
// what was left.
func (c *core) StopAll() error {
	grace := c.Settings().Runs.StopGrace
	if grace <= 0 {
		grace = runs.DefaultStopGrace
	}
	ctx, cancel := context.WithTimeout(context.Background(), grace+stopAllSlack)
	defer cancel()
	return c.mgr.StopAll(ctx)
}

// Close stops every run, the watch and the approvals server. Calling it again does
// nothing. It returns once the runs have ended (bounded as StopAll is).
func (c *core) Close() error {
	var errs []error
	c.closeOnce.Do(func() {
		if c.watcher != nil {
			errs = append(errs, c.watcher.Close())
		}
		errs = append(errs, c.StopAll(), c.server.Close())
	})
	return errors.Join(errs...)
}

// QueuedAhead returns how many queued runs wait before the run id.
func (c *core) QueuedAhead(id string) int {
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
