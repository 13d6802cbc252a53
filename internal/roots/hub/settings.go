package hub

import (
	"context"
	"errors"
	"fmt"
	"sync"

	"github.com/segwi/segwi/control"
	"github.com/segwi/segwi/internal/roots/core"
	"github.com/segwi/segwi/migrate"
	"github.com/segwi/segwi/remote"
	"github.com/segwi/segwi/settings"
	"github.com/segwi/segwi/tray"
)

// Titles of the notifications of the settings' warnings.
const (
	retiredTitle  = "Retired settings"
	warningsTitle = "Check your settings"
	editTitle     = "Settings changed outside segwi"
)

// settingsReport is rep as the window process is sent it.
func (h *Hub) settingsReport(rep core.SettingsReport) control.SettingsReport {
	out := control.SettingsReport{
		File:     rep.File,
		StateDir: h.core.StateDir(),
		Settings: rep.FileSettings(),
		InForce:  rep.InForce,
		Problems: rep.Problems(),
		Edit:     rep.Edit,
	}
	if rep.Err != nil {
		out.Error = rep.Err.Error()
	}
	if res := rep.Result; res != nil {
		out.Found, out.Retired, out.Unknown = res.Found, res.Retired, res.Unknown
	}
	return out
}

// settingsChanged publishes a new settings report and shows what the person must see of
// it: what is wrong with the file, the retired keys, unknown keys and failed checks
// (core.Checks: a claude not found, a repository that is not a git checkout) not shown
// before in this process, and an edit of guarded settings that waits for them, once each.
// A window already showing a problem that is gone closes by itself on the report.
func (h *Hub) settingsChanged(ctx context.Context, rep core.SettingsReport, when control.Moment) {
	h.publish(h.settingsReport(rep))
	h.page.Apply(ctx, h.core.Settings().Remote)
	h.changed() // the repositories' names
	if rep.Err != nil {
		go h.Open(ctx, control.Show{Window: control.ShowSettingsProblems, Moment: when})
	}
	if rep.Result != nil {
		if fresh := h.opts.Warner.Fresh(rep.Result.Retired); len(fresh) > 0 {
			h.notify(retiredTitle, migrate.Summary(rep.File, fresh))
			go h.Open(ctx, control.Show{Window: control.ShowRetired, Retired: fresh})
		}
	}
	var unknown []string
	if rep.Result != nil {
		unknown = h.warned.fresh("unknown", rep.Result.Unknown)
	}
	var checks []string
	for _, err := range h.opts.Checks(rep.InForce) {
		checks = append(checks, err.Error())
	}
	if checks = h.warned.fresh("check", checks); len(unknown)+len(checks) > 0 {
		h.notify(warningsTitle, warningsSummary(len(unknown), len(checks)))
		go h.Open(ctx, control.Show{Window: control.ShowSettingsWarnings, Unknown: unknown, Checks: checks})
	}
	if e := h.editToAsk(rep.Edit); e != nil {
		h.notify(editTitle, fmt.Sprintf("%s changed %s outside segwi's settings window: "+
			"segwi keeps the old values until you confirm the new ones.", rep.File, keyCount(len(e.Changes()))))
		go h.Open(ctx, control.Show{Window: control.ShowGuardedEdit})
	}
}

// editToAsk returns e when it is an edit the person must be asked about: it waits, and is
// not the one last asked (a reload that changed something else, or the record of what they
// confirmed being written, asks nothing again).
func (h *Hub) editToAsk(e *settings.GuardedEdit) *settings.GuardedEdit {
	h.mu.Lock()
	defer h.mu.Unlock()
	last := h.asked
	h.asked = e
	if e == nil || e.Declined || last != nil && last.Same(*e) {
		return nil
	}
	return e
}

// keyCount says "1 guarded setting" or "2 guarded settings".
func keyCount(n int) string {
	if n == 1 {
		return "1 guarded setting"
	}
	return fmt.Sprintf("%d guarded settings", n)
}

// pageSnapshot is the approval page on the tailnet as the tray shows it: where it is
// served, or why it is not; nothing while segwi.remote.enabled is off.
func (h *Hub) pageSnapshot() tray.Page {
	st := h.pageStatus()
	return tray.Page{URL: st.URL, Problem: st.Problem}
}

// pageStatus is the approval page as the window process is sent it: on or off, and where
// it is served or why it is not; neither while segwi first asks tailscaled.
func (h *Hub) pageStatus() control.PageStatus {
	on, st := h.page.Status()
	out := control.PageStatus{On: on}
	switch {
	case !on, errors.Is(st.Err, remote.ErrAsking):
	case st.Err != nil:
		out.Problem = st.Err.Error()
	case len(st.URLs) > 0:
		out.URL = st.URLs[0]
	}
	return out
}

// pageChanged is called each time the approval page's status may have changed: the tray
// shows it anew, and followPage sends it to the window process. It does not block: the
// Keeper calls it while it holds its lock.
func (h *Hub) pageChanged() {
	h.changed()
	select {
	case h.pageKick <- struct{}{}:
	default:
	}
}

// followPage sends the window process the approval page's status each time it differs
// from what was last sent (the settings window says it), until ctx is done.
func (h *Hub) followPage(ctx context.Context) {
	var sent control.PageStatus
	for {
		select {
		case <-ctx.Done():
			return
		case <-h.pageKick:
		}
		if st := h.pageStatus(); st != sent {
			sent = st
			h.publish(st)
		}
	}
}

// republish sends the settings report again after a command changed it without a reload
// of the file (an edit of guarded settings confirmed or kept).
func (h *Hub) republish() {
	h.publish(h.settingsReport(h.core.Report()))
}

// notify shows a desktop notification without an action, on a goroutine of its own.
func (h *Hub) notify(title, body string) {
	if h.opts.Notify != nil {
		go h.opts.Notify(tray.Note{Title: title, Body: body})
	}
}

// warningsSummary is the notification's text for unknown keys and checks that failed.
func warningsSummary(unknown, checks int) string {
	switch {
	case checks == 1 && unknown == 0:
		return "Something in your settings stops runs: see the window."
	case checks > 0 && unknown == 0:
		return fmt.Sprintf("%d things in your settings stop runs: see the window.", checks)
	case checks == 0 && unknown == 1:
		return "Your settings file holds a key segwi does not know, and ignores it."
	case checks == 0:
		return fmt.Sprintf("Your settings file holds %d keys segwi does not know, and ignores them.", unknown)
	}
	return "Something in your settings stops runs, and some keys are ignored: see the window."
}

// shownOnce remembers which warnings the tray showed in this process, so that a reload of
// the settings shows only new ones, as migrate.Warner does for retired keys. The zero
// value is ready; it is safe for concurrent use.
type shownOnce struct {
	mu   sync.Mutex
	seen map[string]bool
}

// fresh returns the items of kind not returned by an earlier call, and remembers them.
func (s *shownOnce) fresh(kind string, items []string) []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.seen == nil {
		s.seen = map[string]bool{}
	}
	var out []string
	for _, it := range items {
		if id := kind + "\x00" + it; !s.seen[id] {
			s.seen[id] = true
			out = append(out, it)
		}
	}
	return out
}
