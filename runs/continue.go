package runs

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
)

// validSessionID says whether id looks like a Claude Code session id (a UUID): 1 to 128
// letters, digits, '_' and '-', the first a letter or digit, so never a flag. (Written
// out rather than a regexp: `{0,127}` compiles to a program of 1,700 allocations at every
// segwi start.)
func validSessionID(id string) bool {
	if len(id) == 0 || len(id) > 128 {
		return false
	}
	for i, c := range []byte(id) {
		switch {
		case 'a' <= c && c <= 'z', 'A' <= c && c <= 'Z', '0' <= c && c <= '9':
		case (c == '_' || c == '-') && i > 0:
		default:
			return false
		}
	}
	return true
}

// Continue starts a run that continues the ended run id (or unique id prefix), living
// until it ends or ctx is done as Start's: in the same checkout, of the same kind and model, resuming its recorded Claude Code session
// (--resume) with prompt as the next message, kept open as keepOpen says. The new run's
// Info.ContinuedFrom names the earlier run, whose record gets the new run's id in
// ContinuedBy and a runs.EventContinued event. The new run's base is read afresh when it
// starts: its changes are its own. Its budget is budget over the settings' bound by bound,
// as Spec.Budget's (nil: the settings' budget); it counts from the new run's start, not
// from what the earlier run used. Errors wrap ErrNotFound, ErrNoSession, or say the
// earlier run has not ended.
func (m *Manager) Continue(ctx context.Context, id, prompt string, keepOpen bool, budget *Budget) (*Run, error) {
	stateDir := m.config().StateDir
	if r := m.Get(id); r != nil {
		return nil, fmt.Errorf("continuing run %s: it is still going (%s); send it a follow-up instead", id, r.State())
	}
	earlier, err := Load(stateDir, id)
	if err != nil {
		return nil, fmt.Errorf("continuing run %s: %w", id, err)
	}
	if !earlier.State.Final() {
		return nil, fmt.Errorf("continuing run %s: it is still %s; send it a follow-up instead, or stop it first", earlier.ID, earlier.State)
	}
	if earlier.SessionID == "" || !validSessionID(earlier.SessionID) {
		return nil, fmt.Errorf("continuing run %s: %w on it; start a new run instead", earlier.ID, ErrNoSession)
	}
	if w := earlier.Worktree; w != nil {
		if _, err := os.Lstat(w.Path); errors.Is(err, fs.ErrNotExist) {
			return nil, fmt.Errorf("continuing run %s: its worktree %s was removed; start a new run instead", earlier.ID, w.Path)
		}
	}
	r, err := m.start(ctx, Spec{Kind: earlier.Kind, Checkout: earlier.Checkout, Prompt: prompt, Model: earlier.Model,
		KeepOpen: keepOpen, Resume: earlier.SessionID, ContinuedFrom: earlier.ID,
		Runtime: earlier.Runtime, Budget: budget}, earlier.Worktree)
	if err != nil {
		return nil, fmt.Errorf("continuing run %s: %w", earlier.ID, err)
	}
	_, err = Annotate(stateDir, earlier.ID, Event{Type: EventContinued, Text: r.ID()},
		func(in *Info) { in.ContinuedBy = append(in.ContinuedBy, r.ID()) })
	if err != nil {
		r.mu.Lock()
		r.emitLocked(Event{Type: EventStatus, Subtype: "continued", Text: fmt.Sprintf("run %s's record does not name this run as its continuation: %v", earlier.ID, err)}, toFile)
		r.mu.Unlock()
	}
	return r, nil
}
