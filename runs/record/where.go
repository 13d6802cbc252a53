package record

import (
	"fmt"
)

// Where says where a run works: in its checkout, as by default, or in a git worktree of
// its own (see package worktree), so that build runs in one repository go side by side.
type Where string

// The places a run works.
const (
	WhereDefault  Where = ""         // as the checkout's repository says (Repository.Worktree)
	WhereCheckout Where = "checkout" // in the checkout itself
	WhereWorktree Where = "worktree" // in a new git worktree of the checkout, made for the run
)

// ParseWhere returns the Where named s ("" is WhereDefault), or an error that lists them.
func ParseWhere(s string) (Where, error) {
	switch w := Where(s); w {
	case WhereDefault, WhereCheckout, WhereWorktree:
		return w, nil
	}
	return "", fmt.Errorf("unknown place to work %q: use checkout or worktree", s)
}

// segwi's events for a run's worktree and ports.
const (
	// EventWorktree says the run's worktree was made, or is worked in again by a run that
	// continues (Event.Worktree), before its setup.
	EventWorktree EventType = "worktree"
	// EventSetup is a step of the new worktree's setup (Event.Subtype): "copy" (a file
	// copied or passed over), "run" (the command started), "output" (a line it printed),
	// "done" or "failed" (Event.Text says how).
	EventSetup EventType = "setup"
	// EventPorts says which TCP ports the run has in its environment (Event.Ports).
	EventPorts EventType = "ports"
)

// WorktreeText says where a run's worktree is, for a person: "/…/web/2025… on
// segwi/fix-login-ab12cd, from 1a2b3c4d5e6f of /home/me/web".
func WorktreeText(w *Worktree) string {
	if w == nil {
		return ""
	}
	return fmt.Sprintf("%s on %s, from %s of %s", w.Path, w.Branch, shortHash(w.Commit), w.Repository)
}
