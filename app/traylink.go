package app

import (
	"context"
	"errors"
	"log"
	"path/filepath"
	"sync"
	"time"

	"github.com/segwi/segwi/control"
	"github.com/segwi/segwi/runs/record"
	"github.com/segwi/segwi/settings"
	"github.com/segwi/segwi/settings/token"
)

// commandTimeout bounds a command the windows send the tray that should be quick: a
// follow-up (which may wait up to 10 s for Claude Code to read it), a stop, an answer.
const commandTimeout = 30 * time.Second

// trayLink is the window process's view of the tray, through the control channel: the runs,
// the settings report and the run subscriptions as the tray last sent them, and the
// commands the windows send. Safe for concurrent use: the client's reading goroutine
// updates it, the windows' goroutines read it.
type trayLink struct {
	client *control.Client

	mu     sync.Mutex
	report control.SettingsReport
	page   control.PageStatus     // the approval page on the tailnet, as the tray serves it
	live   []control.Run          // the runs that have not ended, oldest first
	known  map[string]control.Run // the freshest summary of each run seen
	subs   map[string]*record.Subscriber

	runWins     []string // the run windows open, to tell the tray (reportRunWindows)
	runWinsNew  bool     // runWins changed since the tray was last told
	runWinsBusy bool     // a goroutine is telling the tray
}

func newTrayLink() *trayLink {
	return &trayLink{known: map[string]control.Run{}, subs: map[string]*record.Subscriber{}}
}

// apply takes in a snapshot or event from the tray that concerns runs or settings, and
// reports whether it was one.
func (t *trayLink) apply(b control.Body) bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	switch b := b.(type) {
	case control.SettingsReport:
		t.report = b
	case control.PageStatus:
		t.page = b
	case control.Runs:
		t.live = b.Runs
		for _, r := range b.Runs {
			t.noteLocked(r)
		}
	case control.Run:
		t.noteLocked(b)
	case control.RunEvents:
		if b.Now != nil {
			t.noteLocked(*b.Now)
		}
		if s := t.subs[b.Run]; s != nil {
			for _, e := range b.Events {
				s.Send(e)
			}
			if b.Ended {
				s.Close()
				delete(t.subs, b.Run)
			}
		}
	default:
		return false
	}
	return true
}

// noteLocked keeps r as the freshest summary of its run; a run that ended stays ended
// (a summary sent earlier may arrive after its last).
func (t *trayLink) noteLocked(r control.Run) {
	if old, ok := t.known[r.ID]; ok && old.State.Final() && !r.State.Final() {
		return
	}
	if r.Dir == "" {
		r.Dir = t.known[r.ID].Dir
	}
	t.known[r.ID] = r
}

// settings returns the last settings report.
func (t *trayLink) settings() control.SettingsReport {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.report
}

// pageStatus is the approval page as the tray last said it.
func (t *trayLink) pageStatus() control.PageStatus {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.page
}

// stateDir is the folder of the run records, which the windows read.
func (t *trayLink) stateDir() string { return t.settings().StateDir }

// repos are the repositories of the settings in force.
func (t *trayLink) repos() []settings.Repository { return t.settings().InForce.Repositories }

// reportRunWindows tells the tray that the windows of runs ids are open, off the caller's
// goroutine: one goroutine sends the newest word, one at a time, so that the tray never
// keeps an older list than the last sent.
func (t *trayLink) reportRunWindows(ids []string) {
	t.mu.Lock()
	t.runWins, t.runWinsNew = ids, true
	start := !t.runWinsBusy
	t.runWinsBusy = true
	t.mu.Unlock()
	if start {
		go t.sendRunWindows()
	}
}

// sendRunWindows sends the tray the run windows open until it has the newest list.
func (t *trayLink) sendRunWindows() {
	for {
		t.mu.Lock()
		if !t.runWinsNew || t.client == nil {
			t.runWinsBusy = false
			t.mu.Unlock()
			return
		}
		ids := t.runWins
		t.runWinsNew = false
		t.mu.Unlock()
		ctx, cancel := context.WithTimeout(context.Background(), commandTimeout)
		if err := t.client.RunWindows(ctx, ids); err != nil && !errors.Is(err, control.ErrClosed) {
			log.Printf("segwi: telling the tray which run windows are open: %v", err)
		}
		cancel()
	}
}

// liveList returns the runs that have not ended, oldest first.
func (t *trayLink) liveList() []control.Run {
	t.mu.Lock()
	defer t.mu.Unlock()
	return append([]control.Run(nil), t.live...)
}

// isLive reports whether the run id has not ended.
func (t *trayLink) isLive(id string) bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	for _, r := range t.live {
		if r.ID == id {
			return true
		}
	}
	return false
}

// queuedAhead is how many queued runs wait before the run id.
func (t *trayLink) queuedAhead(id string) int {
	t.mu.Lock()
	defer t.mu.Unlock()
	n := 0
	for _, r := range t.live {
		if r.ID == id {
			return n
		}
		if r.State == record.StateQueued {
			n++
		}
	}
	return 0
}

// info is the freshest summary of the run id: what the tray last said of it, else its
// record.
func (t *trayLink) info(id string) record.Info {
	t.mu.Lock()
	r, ok := t.known[id]
	stateDir := t.report.StateDir
	t.mu.Unlock()
	if ok {
		return r.Summary()
	}
	if info, err := record.Load(stateDir, id); err == nil {
		return info
	}
	return record.Info{ID: id, Dir: filepath.Join(record.RunsDir(stateDir), id)}
}

// run is the run id as a run window follows it.
func (t *trayLink) run(id string) liveRun { return &linkedRun{tray: t, id: id} }

// Start starts a run (the new-run dialog's runStarter): the tray starts it and the window
// follows it as a linkedRun.
func (t *trayLink) Start(spec record.Spec) (liveRun, error) {
	ctx, cancel := context.WithTimeout(context.Background(), commandTimeout)
	defer cancel()
	id, err := t.client.Start(ctx, spec)
	if err != nil {
		return nil, err
	}
	t.expect(id, spec)
	return t.run(id), nil
}

// expect notes the run id, just started as spec says, until the tray's first word on it.
func (t *trayLink) expect(id string, spec record.Spec) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if _, ok := t.known[id]; !ok {
		t.known[id] = control.Run{Info: record.Info{ID: id, Kind: spec.Kind, Checkout: spec.Checkout, Prompt: spec.Prompt,
			Model: spec.Model, ContinuedFrom: spec.ContinuedFrom, State: record.StateQueued, Created: time.Now()},
			Dir: filepath.Join(record.RunsDir(t.report.StateDir), id)}
	}
}

// subscribe asks the tray for the run id's events.
func (t *trayLink) subscribe(id string) (<-chan record.Event, func()) {
	s := record.NewSubscriber(nil) // its methods are called with t.mu held
	t.mu.Lock()
	if old := t.subs[id]; old != nil {
		old.Close()
	}
	t.subs[id] = s
	t.mu.Unlock()
	go func() {
		ctx, cancel := context.WithTimeout(context.Background(), commandTimeout)
		defer cancel()
		if err := t.client.Subscribe(ctx, id); err != nil {
			// It ended before the tray got the request: its record has its events, and
			// its end.
			t.mu.Lock()
			if t.subs[id] == s {
				delete(t.subs, id)
				s.Close()
			}
			t.mu.Unlock()
		}
	}()
	return s.Events(), func() {
		t.mu.Lock()
		if t.subs[id] == s {
			delete(t.subs, id)
			s.Close()
		}
		t.mu.Unlock()
		go func() {
			ctx, cancel := context.WithTimeout(context.Background(), commandTimeout)
			defer cancel()
			t.client.Unsubscribe(ctx, id)
		}()
	}
}

// closeAll ends every subscription: the channel to the tray has ended.
func (t *trayLink) closeAll() {
	t.mu.Lock()
	defer t.mu.Unlock()
	for id, s := range t.subs {
		s.Close()
		delete(t.subs, id)
	}
}

// linkedRun is a run the tray holds, as a run window follows it (liveRun).
type linkedRun struct {
	tray *trayLink
	id   string
}

// ID returns the run's id.
func (r *linkedRun) ID() string { return r.id }

// Info returns the run's freshest summary.
func (r *linkedRun) Info() record.Info { return r.tray.info(r.id) }

// Subscribe returns the run's events, from the tray.
func (r *linkedRun) Subscribe() (<-chan record.Event, func()) { return r.tray.subscribe(r.id) }

// Send sends a follow-up to the run; it returns once the tray has delivered it.
func (r *linkedRun) Send(text string) error {
	ctx, cancel := context.WithTimeout(context.Background(), commandTimeout)
	defer cancel()
	return r.tray.client.FollowUp(ctx, r.id, text)
}

// RaiseBudget raises the run's budget by by; the tray records the window's person as who
// asked. It returns once the tray has done it, or refused.
func (r *linkedRun) RaiseBudget(by record.Budget, _ string) error {
	ctx, cancel := context.WithTimeout(context.Background(), commandTimeout)
	defer cancel()
	return r.tray.client.RaiseBudget(ctx, r.id, by)
}

// CloseInput ends the run once its current turn is done. It does not wait for the tray.
func (r *linkedRun) CloseInput() {
	r.tray.command(func(ctx context.Context) error { return r.tray.client.Finish(ctx, r.id) })
}

// Stop stops the run. It does not wait for the tray.
func (r *linkedRun) Stop() {
	r.tray.command(func(ctx context.Context) error { return r.tray.client.Stop(ctx, r.id) })
}

// command sends a command on a goroutine of its own; a run window has said what it did
// already, and the run's events show what came of it.
func (t *trayLink) command(do func(ctx context.Context) error) {
	go func() {
		ctx, cancel := context.WithTimeout(context.Background(), commandTimeout)
		defer cancel()
		do(ctx) //nolint:errcheck // the run's events say what became of it
	}()
}

// Check returns nil when the ended run's branch can be pushed, or why not (pusher).
func (t *trayLink) Check(ctx context.Context, runID string) error {
	return t.client.CheckPush(ctx, runID)
}

// Push pushes the ended run's branch with the keyring's token (pusher).
func (t *trayLink) Push(ctx context.Context, runID string) (string, error) {
	return t.client.Push(ctx, runID)
}

// Changes reads what the run changed since its base, in the tray (changesReader).
func (t *trayLink) Changes(ctx context.Context, runID, path, since string) (control.ChangeSet, error) {
	return t.client.Changes(ctx, runID, path, since)
}

// ChangedFiles reads the files the run changed, without their diff (changesReader).
func (t *trayLink) ChangedFiles(ctx context.Context, runID string) (control.ChangeSet, error) {
	return t.client.ChangedFiles(ctx, runID)
}

// Commit commits the ended run's changes as the person, in the tray (shipper).
func (t *trayLink) Commit(ctx context.Context, runID string, opts record.CommitOptions) (record.Committed, error) {
	return t.client.Commit(ctx, control.Commit{Run: runID, Message: opts.Message, Include: opts.Include})
}

// OpenPullRequest opens a pull request for the run's pushed branch against the default
// branch, in the tray, which records it on the run (shipper). An empty body is the
// tray's: the run, its task and its result.
func (t *trayLink) OpenPullRequest(ctx context.Context, runID, title, body string) (string, error) {
	pr, err := t.client.OpenPullRequest(ctx, control.OpenPullRequest{Run: runID, Title: title, Body: body})
	return pr.URL, err
}

// Continue starts the run that continues the ended run with prompt, kept open for
// follow-ups as a run started from the new-run dialog is (shipper).
func (t *trayLink) Continue(ctx context.Context, runID, prompt string) (liveRun, error) {
	id, err := t.client.Continue(ctx, runID, prompt, true)
	if err != nil {
		return nil, err
	}
	earlier := t.info(runID)
	t.expect(id, record.Spec{Kind: earlier.Kind, Checkout: earlier.Checkout, Prompt: prompt, Model: earlier.Model, ContinuedFrom: runID})
	return t.run(id), nil
}

// InspectWorktree says what removing the run's worktree would lose, from the tray
// (worktreeRemover).
func (t *trayLink) InspectWorktree(ctx context.Context, runID string) (record.Loss, error) {
	return t.client.InspectWorktree(ctx, runID)
}

// RemoveWorktree removes the ended run's worktree, in the tray, which records it on the
// run (worktreeRemover).
func (t *trayLink) RemoveWorktree(ctx context.Context, runID string, deleteBranch, force bool) (string, error) {
	return t.client.RemoveWorktree(ctx, control.RemoveWorktree{Run: runID, DeleteBranch: deleteBranch, Force: force})
}

// trayToken is the settings window's tokenStore: the tray's keyring, which hands the
// window only whether a token is set.
type trayToken struct{ client *control.Client }

func (k trayToken) Status(ctx context.Context) (token.State, error) { return k.client.TokenStatus(ctx) }
func (k trayToken) Set(ctx context.Context, tok, apiURL string) error {
	return k.client.SetToken(ctx, tok, apiURL)
}
func (k trayToken) Delete(ctx context.Context) error { return k.client.DeleteToken(ctx) }
func (k trayToken) Check(ctx context.Context) (control.TokenCheck, error) {
	return k.client.CheckToken(ctx)
}
