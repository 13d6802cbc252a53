package core

import "github.com/segwi/segwi/settings"

// SettingsReport is what segwi found in its settings file, for a front end that shows it
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

// loadReport loads the settings file; bad settings give the defaults and say why.
func loadReport(path string) SettingsReport {
	if path == "" {
		return SettingsReport{InForce: settings.Default()}
	}
	res, err := settings.Load(path)
	return reportOf(path, res, err)
}

// reportOf is the report of a load of the settings file at path that gave res and err
// (settings.Load's results): bad settings give the defaults and say why.
func reportOf(path string, res *settings.Result, err error) SettingsReport {
	rep := SettingsReport{File: path, InForce: settings.Default(), Err: err}
	if err != nil || res == nil {
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
func (c *Core) apply(ch settings.Change) {
	c.policyMu.Lock()
	prev := c.Report()
	rep := SettingsReport{File: c.cfg.ConfigPath, Result: ch.Result, Err: ch.Err, InForce: prev.InForce,
		AcceptedTrusted: prev.AcceptedTrusted, TrustedChange: prev.TrustedChange}
	if ch.Result != nil {
		rep.File = ch.Result.File
	}
	if ch.Err == nil {
		s := ch.Settings
		rep.AcceptedTrusted, rep.TrustedChange = prev.trustedAfterEdit(s.Approvals.Trusted)
		s.Approvals.Trusted = rep.AcceptedTrusted
		rep.InForce = s
		c.mgr.SetConfig(runsConfig(s, c.stateDir, c.cfg.Secrets, c.server, c.cfg.Env))
		if err := c.server.SetPolicy(s.Approvals.Timeout, s.Approvals.Trusted); err != nil {
			// settings validated the list already; this is a disagreement between the two.
			c.cfg.Log("approvals policy not applied: %v", err)
			rep.Err = err
		}
	}
	c.mu.Lock()
	c.report = rep
	fns := make([]func(SettingsReport), 0, len(c.onReport))
	for f := range c.onReport {
		fns = append(fns, *f)
	}
	c.mu.Unlock()
	c.policyMu.Unlock()
	for _, f := range fns {
		f(rep)
	}
}

// Report returns what segwi found in its settings file at the last load.
func (c *Core) Report() SettingsReport {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.report
}

// OnReport adds f to be called with each new report after an edit of the settings file,
// on the watcher's goroutine (a Fyne front end uses fyne.Do to touch widgets), until
// cancel is called.
func (c *Core) OnReport(f func(SettingsReport)) (cancel func()) {
	key := &f
	c.mu.Lock()
	defer c.mu.Unlock()
	c.onReport[key] = struct{}{}
	return func() {
		c.mu.Lock()
		defer c.mu.Unlock()
		delete(c.onReport, key)
	}
}

// Settings returns the settings in force.
func (c *Core) Settings() settings.Settings { return c.Report().InForce }
