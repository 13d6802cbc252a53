package core

import (
	"errors"
	"fmt"

	"github.com/segwi/segwi/settings"
)

// Some settings widen what a run, or a stranger, can do (settings.Guarded: the program
// started as Claude Code, the forge tokens a run gets, the trusted commands, where the
// GitHub token goes, who answers approvals from the tailnet), and a run's agent can write
// the settings file. So an edit of the file that widens one of them does not apply when the
// file is reloaded: the core keeps what the person confirmed (the record beside the file,
// shared with the commands: see settings.Stand) and waits for them to confirm the edit
// (ConfirmEdit) or keep the old values (KeepEdit). The rest of the edit applies as usual,
// and so does an edit that only narrows: it can only send more requests to the person.
// What the settings window saves applies at once too (SaveSettings): the person wrote it
// there.

// GuardedEdit is an edit of guarded settings in the settings file that widens what a run
// or a stranger can do and did not come from segwi's settings window (settings.GuardedEdit:
// the windows show it without the core).
type GuardedEdit = settings.GuardedEdit

// errEditSuperseded is ConfirmEdit's answer for an edit the file no longer holds.
var errEditSuperseded = errors.New("the settings file changed again since: answer the newer change")

// ConfirmEdit puts the new values of an edit that waits for the person in force, and
// records them as confirmed: they confirmed it. It returns an error, and changes nothing,
// when the edit no longer waits.
func (c *Core) ConfirmEdit(e GuardedEdit) error {
	c.policyMu.Lock()
	defer c.policyMu.Unlock()
	rep := c.Report()
	if rep.Edit == nil || !rep.Edit.Same(e) {
		return fmt.Errorf("confirming the settings: %w", errEditSuperseded)
	}
	if err := settings.WriteConfirmed(rep.File, e.New); err != nil {
		return fmt.Errorf("confirming the settings: %w", err)
	}
	if err := c.putInForce(rep, e.New); err != nil {
		return fmt.Errorf("confirming the settings: %w", err)
	}
	return nil
}

// KeepEdit keeps the confirmed values in force instead of the edit's new ones: the person
// said so. An edit that no longer waits is left alone.
func (c *Core) KeepEdit(e GuardedEdit) {
	c.policyMu.Lock()
	defer c.policyMu.Unlock()
	c.mu.Lock()
	defer c.mu.Unlock()
	if p := c.report.Edit; p != nil && p.Same(e) {
		declined := *p
		declined.Declined = true
		c.report.Edit = &declined
	}
}

// SaveSettings writes s to the settings file at path (settings.Save), for the settings
// window, records its guarded values as confirmed and puts them in force at once: the
// person chose them there. The reload of the file that follows then finds nothing to ask
// about, unless something else changed the file since.
func (c *Core) SaveSettings(path string, s settings.Settings) error {
	c.policyMu.Lock()
	defer c.policyMu.Unlock()
	if err := settings.Save(path, s); err != nil {
		return err
	}
	// After the file: a record ahead of the file would make the old values in it wait.
	g := settings.GuardedOf(s)
	if err := settings.WriteConfirmed(path, g); err != nil {
		return fmt.Errorf("saving settings: %s was saved, but %w", path, err)
	}
	if err := c.putInForce(c.Report(), g); err != nil {
		return fmt.Errorf("saving settings: %s: %w", path, err)
	}
	return nil
}

// SaveGuardDeny sets segwi.canary.guardDeny in the settings file at path, changing nothing
// else there, and puts it in force at once (it is not guarded), so that a canary run right
// after the guard hook's setup reads it; the reload of the file that follows agrees.
func (c *Core) SaveGuardDeny(path, deny string) error {
	c.policyMu.Lock()
	defer c.policyMu.Unlock()
	if err := settings.SaveGuardDeny(path, deny); err != nil {
		return err
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.report.InForce.Canary.GuardDeny = deny
	return nil
}

// putInForce makes g the confirmed guarded values, in force, with no edit waiting. The
// caller holds policyMu; rep is the report to update.
func (c *Core) putInForce(rep SettingsReport, g settings.Guarded) error {
	s := g.Put(rep.InForce)
	if err := c.server.SetPolicy(s.Approvals.Timeout, s.Approvals.Trusted); err != nil {
		return err
	}
	c.mgr.SetConfig(runsConfig(s, c.stateDir, c.cfg, c.server))
	c.mu.Lock()
	defer c.mu.Unlock()
	c.report.Confirmed = g
	c.report.InForce = s
	c.report.Edit = nil
	return nil
}
