// Package hub is the tray process's side of the control channel: it holds segwi's core and
// turns it into the channel's messages (package control) for its clients, and carries out
// their commands. The window process is one client; the approval page on the tailnet
// (package remote), which the hub serves while segwi.remote.enabled is on, is another: one
// connection per device, of role control.RoleRemote (it may only answer), over HTTP.
//
// What it sends: a snapshot of the runs, the waiting approvals and (to the window process)
// the settings report at connect; then the runs after each burst of state changes, each
// approval as it starts and stops waiting, each new settings report; and a run's events to
// a client that subscribed to them. What it does: every command of control (start, stop,
// push, answer, save settings, the keyring's token, the canary, quit), each checked
// against the client's role by control.Server before it gets here.
//
// The hub is also the core's approvals.Decider: it hands each request to the clients and
// waits for an Answer, which only a person's click (or the remote page's owner) gives.
// When no window process runs it starts one (see Spawn); when the window process dies its
// requests stay waiting and a new one is started, whose snapshot holds them, so the runs
// never notice.
package hub

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"sync"
	"time"

	"github.com/segwi/segwi/canary"
	"github.com/segwi/segwi/control"
	"github.com/segwi/segwi/internal/lib/logger"
	"github.com/segwi/segwi/internal/roots/core"
	"github.com/segwi/segwi/migrate"
	"github.com/segwi/segwi/remote"
	"github.com/segwi/segwi/runs"
	"github.com/segwi/segwi/settings"
	"github.com/segwi/segwi/tray"
)

// Options configure a Hub.
type Options struct {
	// Program names the tray in its Hello, e.g. "segwi 0.4.0 tray".
	Program string
	// Spawn starts a window process when a window is needed; nil starts none (headless
	// segwi run, whose client is the approval page; a test of the messages alone).
	Spawn Spawn
	// Find looks for the window process's program without starting it: nil when it is
	// installed, else a *MissingProgramError (Program.Find). The hub looks at start, so
	// that the tray says at once when no window can open; nil looks only as Spawn does.
	Find func() error
	// Notify shows a desktop notification and returns what withdraws it (nil when it was
	// not shown); it may take seconds. Nil shows none.
	Notify func(tray.Note) (withdraw func())
	// Log is where the hub writes what goes wrong in its background work; nil writes
	// nothing.
	Log logger.Logf
	// Warner remembers the retired settings warned about in this process; nil makes one.
	Warner *migrate.Warner
	// Checks says what in the settings would stop a run (a claude not found, a repository
	// that is not a git checkout), shown at start and after each edit; nil is core.Checks.
	Checks func(settings.Settings) []error
	// Token keeps the GitHub token; nil is the keyring (package settings/token).
	Token TokenStore
	// GitHub makes the calls the tray makes to the GitHub API itself (checking the token);
	// nil is a client with a 30-second timeout. Tests give one that trusts their server.
	GitHub *http.Client
	// Home is the person's home folder, where the guard hook's setup writes (PlanGuard);
	// empty is os.UserHomeDir.
	Home string
	// Canary runs segwi's canary; nil runs canary on the core's own runs, so that its
	// approvals come to the popups.
	Canary func(ctx context.Context) (string, error)
	// Quit ends the tray process: a client confirmed Quit and the runs are stopped. Nil
	// refuses Quit.
	Quit func()
}

// Hub is the tray process's control server over the core. Build it with New, build the
// core with the hub as its Decider, then call Run.
type Hub struct {
	opts     Options
	server   *control.Server
	windows  *windows
	page     *remote.Keeper // the approval page on the tailnet, as segwi.remote says
	changes  chan struct{}  // see Changes
	readings readings       // the stamps of the last readings of runs' changes (changeSet)
	today    today          // what the runs created today used, for the tooltip

	// ready is closed once Run has the core; the core's Decider may be asked nothing
	// before, as no run exists before the core does.
	ready chan struct{}
	core  *core.Core

	mu       sync.Mutex
	waiting  []*waiter                                       // approvals waiting for a person, oldest first
	replies  map[string]*notice                              // each run's "waits for your reply", by run id
	subs     map[*control.Peer]map[string]context.CancelFunc // run subscriptions by client and run
	canary   context.CancelFunc                              // the canary under way, if any
	warned   shownOnce                                       // the unknown keys and failed checks shown
	asked    *settings.GuardedEdit                           // the edit of guarded settings last put to the person
	pageKick chan struct{}                                   // the approval page's status may have changed (see followPage)
}

// New returns a hub with opts. Its Decider is ready for core.New.
func New(opts Options) *Hub {
	if opts.Warner == nil {
		opts.Warner = migrate.NewWarner()
	}
	if opts.Token == nil {
		opts.Token = keyringToken{}
	}
	if opts.Checks == nil {
		opts.Checks = core.Checks
	}
	h := &Hub{
		opts:     opts,
		changes:  make(chan struct{}, 1),
		pageKick: make(chan struct{}, 1),
		ready:    make(chan struct{}),
		subs:     map[*control.Peer]map[string]context.CancelFunc{},
		replies:  map[string]*notice{},
	}
	h.server = control.NewServer(opts.Program, h)
	h.windows = newWindows(opts.Spawn, opts.Find, h.server, opts.Log, h.windowEnded, h.programMissing)
	h.page = remote.NewKeeper(h.server, opts.Log, h.pageChanged)
	return h
}

// Server is the control server, for what serves clients other than the window processes
// the hub starts itself and the approval page it keeps (tests).
func (h *Hub) Server() *control.Server { return h.server }

// Run follows the core c (built with h as its Decider) until ctx is done: it publishes
// the runs and the settings as they change, and shows at once what the person must see
// at start: bad settings, retired keys, an edit of guarded settings that waits, damaged run records.
// When ctx is done it ends the window process, killing it when it has not ended within a
// few seconds, and returns once it has. Meanwhile it serves the approval page on the
// tailnet while segwi.remote.enabled is on (package remote), as a client of its control
// server that may only answer, and serves it anew when a reload changes segwi.remote.
func (h *Hub) Run(ctx context.Context, c *core.Core) {
	h.core = c
	if h.opts.Canary == nil {
		h.opts.Canary = canary.Func(c.Manager(), c.Settings)
	}
	h.windows.start(ctx)
	h.windows.check()
	close(h.ready)
	states, stopStates := c.SubscribeStates()
	defer stopStates()
	stopReports := c.OnReport(func(rep core.SettingsReport) { h.settingsChanged(ctx, rep, control.AfterEdit) })
	defer stopReports()

	defer h.page.Stop()
	go h.followPage(ctx)
	h.settingsChanged(ctx, c.Report(), control.AtStartup)
	if damaged := c.Damaged(); len(damaged) > 0 {
		var recs []control.DamagedRecord
		for _, d := range damaged {
			recs = append(recs, control.DamagedOf(d))
		}
		go h.Open(ctx, control.Show{Window: control.ShowDamaged, Damaged: recs})
	}

	defer h.windows.stop()
	// Today's usage, read once now and again when a run ends (statesChanged) or the day
	// does: one timer, to midnight.
	midnight := time.NewTimer(time.Until(h.readToday()))
	defer midnight.Stop()
	h.changed()
	for {
		select {
		case <-ctx.Done():
			return
		case e, ok := <-states:
			if !ok {
				return
			}
			h.statesChanged(append([]runs.Event{e}, drain(states)...))
		case <-midnight.C:
			midnight.Reset(time.Until(h.readToday()))
			h.changed()
		}
	}
}

// drain returns the values already waiting in ch, without blocking.
func drain[T any](ch <-chan T) []T {
	var out []T
	for {
		select {
		case v, ok := <-ch:
			if !ok {
				return out
			}
			out = append(out, v)
		default:
			return out
		}
	}
}

// Changes is signalled (without blocking; a burst is one signal) each time what the tray
// shows may have changed: a run's state, the waiting approvals, the repositories' names.
func (h *Hub) Changes() <-chan struct{} { return h.changes }

func (h *Hub) changed() {
	select {
	case h.changes <- struct{}{}:
	default:
	}
}

// Snapshot is what the tray shows now: the runs going, the approvals waiting, what the
// runs created today used (read on the hub's Run, not here: see today).
func (h *Hub) Snapshot() tray.Snapshot {
	s := tray.Snapshot{Now: time.Now(), Canary: true, Pending: h.pending(), Page: h.pageSnapshot()}
	if h.windows.lostProgram() != nil {
		s.Problem = NoWindowProblem
	}
	select {
	case <-h.ready: // Run has the core
	default:
		return s
	}
	repos := h.core.Settings().Repositories
	var live []runs.Info
	for _, r := range h.core.Live() {
		info := r.Info()
		live = append(live, info)
		s.Runs = append(s.Runs, tray.RunOf(info, repos))
	}
	s.Today = h.todayRow(live)
	return s
}

// Show asks the window process to show a window, starting one when none runs, and returns
// its answer: nil once the window shows. Asked before Run has the core (the tray's menu
// shows while the core reads the run records), it waits for the core first: a window
// process is started only once Run has given the windows its context, whose end ends
// them. It returns when the window process answered, could not be started, or ctx is
// done.
func (h *Hub) Show(ctx context.Context, s control.Show) error {
	select {
	case <-h.ready:
	case <-ctx.Done():
		return ctx.Err()
	}
	return h.windows.show(ctx, s)
}

// Open is Show for a caller that does not wait for the answer (a menu click, a warning):
// it logs what fails, but for a hub without windows. It returns as Show does.
func (h *Hub) Open(ctx context.Context, s control.Show) {
	if err := h.Show(ctx, s); err != nil && ctx.Err() == nil && !errors.Is(err, errNoSpawn) {
		h.opts.Log.Printf("showing the %s window: %v", s.Window, err)
	}
}

// WindowPid returns the pid of the window process, or 0 when none runs.
func (h *Hub) WindowPid() int { return h.windows.pid() }

// Connected sends a new client its snapshots: the settings report (to the window process),
// the runs and the waiting approvals. See control.Handler.
func (h *Hub) Connected(p *control.Peer) {
	<-h.ready
	if p.Role().Receives(control.TypeSettings) {
		p.Send(h.settingsReport(h.core.Report()))
	}
	if p.Role().Receives(control.TypePage) {
		p.Send(h.pageStatus())
	}
	p.Send(h.runsSnapshot())
	p.Send(h.approvalsSnapshot())
	if p.Role() == control.RoleWindow {
		h.windows.connected(p)
	}
}

// Disconnected ends the subscriptions of a client that went. See control.Handler.
func (h *Hub) Disconnected(p *control.Peer, _ error) {
	h.mu.Lock()
	subs := h.subs[p]
	delete(h.subs, p)
	h.mu.Unlock()
	for _, cancel := range subs {
		cancel()
	}
}

// publish sends b to every client whose role receives it.
func (h *Hub) publish(b control.Body) {
	if err := h.server.Publish(b); err != nil {
		h.opts.Log.Printf("publishing %s: %v", b.MessageType(), err)
	}
}

// runName is what a person calls the run's repository: the one its worktree was made
// from, not the worktree's folder (a run id).
func (h *Hub) runName(info runs.Info) string {
	return settings.CheckoutName(info.Repository(), h.core.Settings().Repositories)
}

// runsSnapshot is the runs that have not ended.
func (h *Hub) runsSnapshot() control.Runs {
	out := control.Runs{Runs: []control.Run{}}
	for _, r := range h.core.Live() {
		info := r.Info()
		out.Runs = append(out.Runs, control.RunOf(info, h.runName(info)))
	}
	return out
}

// statesChanged publishes the runs after a burst of state and usage events, and each run
// that ended in it, whole, which the runs snapshot no longer holds; it reads today's usage
// again when a run ended.
func (h *Hub) statesChanged(events []runs.Event) {
	h.todayAfter(events)
	h.publish(h.runsSnapshot())
	var ended []string
	for _, e := range events {
		if e.Type == runs.EventState && e.State != nil && e.State.To.Final() && !slices.Contains(ended, e.RunID) {
			ended = append(ended, e.RunID)
		}
	}
	for _, id := range ended {
		if info, err := h.runInfo(id); err == nil {
			h.publish(control.RunOf(info, h.runName(info)))
		}
	}
	h.notifyRuns(events)
	h.changed()
}

// runInfo is the run id's summary: live, else from its record.
func (h *Hub) runInfo(id string) (runs.Info, error) {
	if r := h.core.Get(id); r != nil {
		return r.Info(), nil
	}
	info, err := runs.Load(h.core.StateDir(), id)
	if err != nil {
		return runs.Info{}, fmt.Errorf("run %s: %w", id, err)
	}
	return info, nil
}
