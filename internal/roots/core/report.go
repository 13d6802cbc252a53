package core

import (
	"github.com/segwi/segwi/internal/lib/logger"
	"github.com/segwi/segwi/settings"
)

// SettingsReport is what segwi found in its settings file, for a front end that shows it
// (the settings window, the warnings): the file, the last load, and what is wrong. Err is
// nil when the settings in force are the file's; otherwise the settings in force are the
// defaults (at start-up) or the last good ones (after a bad edit), and Err says why. The
// guarded settings in force (settings.Guarded) are the file's only once the person
// confirmed them (see Edit).
type SettingsReport struct {
	File    string
	Result  *settings.Result // the last load; nil when the file could not be read or parsed
	Err     error            // a parse error, or the validation problems joined
	InForce settings.Settings
	// Confirmed are the guarded values the person confirmed (the record beside the file:
	// settings.Stand), with what edits narrowed since. They are in force whenever the
	// file's other settings are.
	Confirmed settings.Guarded
	// Edit is an edit of the file's guarded settings that widens them and waits for the
	// person, or that they declined; nil when there is none.
	Edit *GuardedEdit
}

// FileSettings returns what the settings file says, a bad value reset to its default, with
// the guarded values the person confirmed: what the settings window shows and saves. After
// a bad start the settings in force are the defaults, and saving those would drop the
// person's repositories and trusted commands. Saving the window must not slip in an edit
// the person has not confirmed.
func (r SettingsReport) FileSettings() settings.Settings {
	if r.Result != nil {
		return r.Confirmed.Put(r.Result.Settings)
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

// loadReport loads the settings file; bad settings give the defaults and say why. log
// gets what went wrong with the record of what the person confirmed.
func loadReport(path string, log logger.Logf) SettingsReport {
	if path == "" {
		return reportOf("", nil, nil, log)
	}
	res, err := settings.Load(path) // nil res, with err, for a file that cannot be read
	rep := reportOf(path, res, nil, log)
	if err != nil {
		rep.Err = err
	}
	return rep
}

// reportOf is the report of res, a load of the settings file at path, after the record of
// what the person confirmed (st, when the caller stood it already): bad settings give the
// defaults and say why; no res gives the defaults. log gets what went wrong with the record.
func reportOf(path string, res *settings.Result, st *settings.Standing, log logger.Logf) SettingsReport {
	d := settings.Default()
	rep := SettingsReport{File: path, InForce: d, Confirmed: settings.GuardedOf(d)}
	if res == nil {
		return rep
	}
	rep.Result, rep.File = res, res.File
	if err := res.Err(); err != nil {
		rep.Err = err
		// What the settings window shows until the file is good: what was confirmed.
		rep.Confirmed = settings.GuardedOf(res.Settings)
		if g, found, err := settings.ReadConfirmed(res.File); found && err == nil {
			rep.Confirmed = g
		}
		return rep
	}
	if st == nil {
		stood := settings.Stand(res)
		if stood.Problem != nil {
			log.Printf("%v", stood.Problem)
		}
		st = &stood
	}
	rep.InForce, rep.Confirmed, rep.Edit = st.Settings, st.Confirmed, st.Edit
	return rep
}

// apply takes in an edit of the settings file, or of the record of what the person
// confirmed: good settings go to the manager and the server, except guarded values the
// person has yet to confirm (see Edit); a bad edit keeps them and is reported. On the
// Watcher's goroutine.
func (c *Core) apply(ch settings.Change) {
	c.policyMu.Lock()
	prev := c.Report()
	rep := SettingsReport{File: c.cfg.ConfigPath, Result: ch.Result, Err: ch.Err, InForce: prev.InForce,
		Confirmed: prev.Confirmed, Edit: prev.Edit}
	if ch.Result != nil {
		rep.File = ch.Result.File
	}
	if ch.Err == nil && ch.Result != nil {
		st := settings.Stand(ch.Result)
		if st.Problem != nil {
			c.cfg.Log.Printf("%v", st.Problem)
		}
		rep.Confirmed, rep.Edit = st.Confirmed, st.Edit
		if e, p := rep.Edit, prev.Edit; e != nil && p != nil && p.Declined && p.Same(*e) {
			rep.Edit = p // the person said no to this very edit: not asked again
		}
		s := st.Settings
		rep.InForce = s
		c.mgr.SetConfig(runsConfig(s, c.stateDir, c.cfg, c.server))
		if err := c.server.SetPolicy(s.Approvals.Timeout, s.Approvals.Trusted); err != nil {
			// settings validated the list already; this is a disagreement between the two.
			c.cfg.Log.Printf("approvals policy not applied: %v", err)
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
