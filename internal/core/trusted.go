package core

import (
	"errors"
	"fmt"
	"slices"

	"github.com/segwi/segwi/settings"
)

// The trusted commands (approvals.trusted) run without asking the person, and a run's agent
// can write the settings file. So an edit of the file that adds to them does not apply
// when the file is reloaded: the core keeps the list the person accepted and waits for
// them to confirm the new one (ApplyTrusted) or keep the old one (KeepTrusted). The rest
// of the edit applies as usual. An edit that only removes commands applies at once: it
// can only send more requests to the person. What the settings window saves applies at
// once too (SaveSettings): the person wrote it there.

// TrustedChange is an edit of approvals.trusted in the settings file that adds commands
// and did not come from segwi's settings window (settings.TrustedChange: the windows show
// it without the core).
type TrustedChange = settings.TrustedChange

// errTrustedSuperseded is ApplyTrusted's answer for a change the file no longer holds.
var errTrustedSuperseded = errors.New("the settings file changed again since: answer the newer change")

// trustedAfterEdit returns the trusted commands to put in force after an edit of the
// settings file whose list is file, and the change that waits for the person, if any.
func (r SettingsReport) trustedAfterEdit(file []string) ([]string, *TrustedChange) {
	ch := TrustedChange{Old: r.AcceptedTrusted, New: slices.Clone(file)}
	if len(ch.Added()) == 0 {
		return ch.New, nil // the same commands, or fewer
	}
	if p := r.TrustedChange; p != nil && p.Declined && slices.Equal(p.New, file) {
		return r.AcceptedTrusted, p
	}
	return r.AcceptedTrusted, &ch
}

// ApplyTrusted puts the new list of a change that waits for the person in force: they
// confirmed it. It returns an error, and changes nothing, when the change no longer waits.
func (c *Core) ApplyTrusted(ch TrustedChange) error {
	c.policyMu.Lock()
	defer c.policyMu.Unlock()
	rep := c.Report()
	if rep.TrustedChange == nil || !rep.TrustedChange.Same(ch) {
		return fmt.Errorf("applying the trusted commands: %w", errTrustedSuperseded)
	}
	if err := c.setTrusted(rep, ch.New); err != nil {
		return fmt.Errorf("applying the trusted commands: %w", err)
	}
	return nil
}

// KeepTrusted keeps the accepted list in force instead of the change's new one: the person
// said so. A change that no longer waits is left alone.
func (c *Core) KeepTrusted(ch TrustedChange) {
	c.policyMu.Lock()
	defer c.policyMu.Unlock()
	c.mu.Lock()
	defer c.mu.Unlock()
	if p := c.report.TrustedChange; p != nil && p.Same(ch) {
		declined := *p
		declined.Declined = true
		c.report.TrustedChange = &declined
	}
}

// SaveSettings writes s to the settings file at path (settings.Save), for the settings
// window, and puts its trusted commands in force at once: the person chose them there.
// The reload of the file that follows then finds nothing to ask about, unless something
// else changed the list since.
func (c *Core) SaveSettings(path string, s settings.Settings) error {
	c.policyMu.Lock()
	defer c.policyMu.Unlock()
	if err := settings.Save(path, s); err != nil {
		return err
	}
	if err := c.setTrusted(c.Report(), s.Approvals.Trusted); err != nil {
		return fmt.Errorf("saving settings: %s: %w", path, err)
	}
	return nil
}

// setTrusted makes trusted the accepted list, in force, with no change waiting. The caller
// holds policyMu; rep is the report to update.
func (c *Core) setTrusted(rep SettingsReport, trusted []string) error {
	trusted = slices.Clone(trusted)
	if err := c.server.SetPolicy(rep.InForce.Approvals.Timeout, trusted); err != nil {
		return err
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.report.AcceptedTrusted = trusted
	c.report.InForce.Approvals.Trusted = trusted
	c.report.TrustedChange = nil
	return nil
}
