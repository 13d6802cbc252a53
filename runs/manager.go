package runs

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"time"

	"github.com/segwi/segwi/internal/lib/redact"
	"github.com/segwi/segwi/runs/changes"
	"github.com/segwi/segwi/runs/worktree"
)

// Manager owns the runs of one segwi process: it starts them in order within the
// limits, and keeps their records under Config.StateDir. Its methods are safe for
// concurrent use.
type Manager struct {
	red    *redact.Redactor // shared by every run: configured secrets and every run's token
	adopts bool             // this process adopts the orphans of its runs (adoptOrphans)

	sweep struct { // the sweeps of /proc for what dead runs left (sweepBeforeRun)
		mu     sync.Mutex // taken before mu, never under it
		needed bool       // a run recorded named no cgroup: a sweep before each run
		at     time.Time  // when the last sweep ended
	}

	mu         sync.Mutex
	cfg        Config
	configured []string          // the Config.Secrets currently added to red
	live       []*Run            // queued and active runs, in the order they were started
	queue      []*Run            // queued runs, in order
	slots      map[*Run]struct{} // the runs holding a slot: starting, running, or ending
	checkouts  map[string]*Run   // checkout -> the build or ready run holding it
	retry      *time.Timer       // a schedule to come, for runs queued behind another segwi
	closed     bool
	damaged    []Damaged // the records NewManager could not read or update

	subMu sync.Mutex
	subs  subscribers // of every run's state events

	bases changes.Bases // with Config.KeepBases, the last base read in each checkout
}

// The locks of this package, and the order they are taken in. Manager.mu guards the
// queue and the slots; nothing else is locked while it is held (schedule decides under it
// and acts on the runs after). A run's mu guards its journal (its Info, its phase, its
// events and subscribers); with it held, the run's recorder's lock, its writer's, and
// Manager.subMu (to publish a notable event) may be taken, never the other way round.
// Nothing waits for a run's owner (Run.do) while holding any of them, and the owner waits
// for no lock longer than those critical sections.

// NewManager returns a Manager for cfg. It creates StateDir/runs, marks interrupted the
// runs a previous segwi left in a live state (whose folder lock no process holds), and
// kills the processes such runs left (MarkInterrupted; reading every record with
// Config.CheckEveryRecord): those in their cgroups, and where a run recorded since the
// system started had none, those a sweep of /proc finds. On Linux it also makes this
// process a child subreaper, once, so that the processes that leave a run become its
// children (which it reaps) rather than init's, and sets SEGWI_OUTSIDE_RUN in its own
// environment, so that what this process starts outside its runs is told apart from them.
// It fails only when the manager cannot work: no state folder, or one it cannot create.
// Records it cannot read or update do not stop it: Damaged names them.
func NewManager(cfg Config) (*Manager, error) {
	if cfg.StateDir == "" {
		return nil, errors.New("runs: no state folder configured (Config.StateDir)")
	}
	if cfg.Runtime == nil {
		return nil, errors.New("runs: no agent runtime configured (Config.Runtime)")
	}
	if err := os.MkdirAll(RunsDir(cfg.StateDir), 0o700); err != nil {
		return nil, fmt.Errorf("creating the runs folder: %w", err)
	}
	adopts := adoptOrphans() // first: the environment it marks is the runs' base
	m := &Manager{
		red:       redact.New(),
		adopts:    adopts,
		cfg:       cfg.withDefaults(),
		slots:     map[*Run]struct{}{},
		checkouts: map[string]*Run{},
	}
	swept, err := markInterrupted(cfg.StateDir, cfg.CheckEveryRecord)
	m.damaged = damagedIn(cfg.StateDir, err)
	if swept {
		m.sweep.needed, m.sweep.at = true, time.Now()
	}
	return m, nil
}

// Damaged returns the run records NewManager found damaged: each run.json it could not
// read (that run is not listed) and each record it could not mark interrupted. segwi goes on
// without them; a front end shows them to the person.
func (m *Manager) Damaged() []Damaged { return slices.Clone(m.damaged) }

// SetConfig applies new settings. Limits (MaxConcurrent, MaxDuration, IdleTimeout,
// StopGrace) apply to live runs at once; the rest applies to runs started from now on.
func (m *Manager) SetConfig(cfg Config) {
	m.mu.Lock()
	cfg.StateDir = m.cfg.StateDir // the record's place does not move under live runs
	m.cfg = cfg.withDefaults()
	live := slices.Clone(m.live)
	m.mu.Unlock()
	for _, r := range live {
		r.wakeOwner() // its limits may have come closer
	}
	m.schedule()
}

func (m *Manager) config() Config {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.cfg
}

// Redactor returns the redactor every run's record goes through, for callers that show
// or write other text about runs (it knows the configured secrets and live run tokens).
func (m *Manager) Redactor() *redact.Redactor { return m.red }

// refreshSecrets brings the configured secrets in the redactor up to date.
func (m *Manager) refreshSecrets(cfg Config) {
	fresh := cfg.secrets()
	m.mu.Lock()
	old := m.configured
	m.configured = fresh
	m.mu.Unlock()
	m.red.Add(fresh...)
	m.red.Remove(old...)
}

// Start checks spec and queues the run; it returns at once with the run (state queued, or
// already starting). The run lives until it ends or ctx is done: then it is stopped as
// Stop does, ending stopped for the reason context.Cause(ctx) gives ("interrupt signal
// received"). A run that is to outlive its caller's work (the tray's) takes a context
// that only ends with segwi. The errors say what to fix: an unknown kind, a missing task
// or question, a folder that is not the top of a git checkout (see CheckoutDir), an agent
// its runtime cannot start (Runtime.Check: for Claude Code, a claude binary that cannot
// be found).
func (m *Manager) Start(ctx context.Context, spec Spec) (*Run, error) {
	return m.start(ctx, spec, nil)
}

// start is Start for a run that works in the worktree again (nil: none), as a continuing
// run does in the worktree of the run it continues.
func (m *Manager) start(ctx context.Context, spec Spec, again *worktree.Worktree) (*Run, error) {
	cfg := m.config()
	prompt, err := promptFor(spec.Kind, spec.Prompt)
	if err != nil {
		return nil, err
	}
	checkout, err := CheckoutDir(spec.Checkout)
	if err != nil {
		return nil, err
	}
	rt, err := cfg.runtime(spec.Runtime)
	if err != nil {
		return nil, err
	}
	if err := rt.Check(); err != nil {
		return nil, err
	}
	m.refreshSecrets(cfg)
	secretsRead := time.Now()

	id, err := newID()
	if err != nil {
		return nil, err
	}
	dir := filepath.Join(RunsDir(cfg.StateDir), id)
	if err := os.Mkdir(dir, 0o700); err != nil {
		return nil, fmt.Errorf("creating the folder of run %s: %w", id, err)
	}
	lock, err := lockRun(dir)
	if err != nil {
		return nil, fmt.Errorf("locking the folder of run %s: %w", id, err)
	}
	if err := markLive(cfg.StateDir, id); err != nil { // before its first record
		lock.Close()
		os.RemoveAll(dir)
		return nil, fmt.Errorf("starting run %s: %w", id, err)
	}
	rec, err := openRecorder(dir)
	if err != nil {
		lock.Close()
		unmarkLive(cfg.StateDir, id)
		return nil, err
	}
	r := newRun(ctx, m, id, dir, spec, rec, lock)
	r.prompt, r.agent, r.runtime, r.checkout = prompt, rt.Name(), rt, checkout
	r.secretsRead = secretsRead
	r.info = Info{
		ID: id, Kind: spec.Kind, Checkout: checkout, Prompt: m.red.String(spec.Prompt),
		Model: spec.Model, Created: time.Now(), Dir: dir, ContinuedFrom: spec.ContinuedFrom,
		Runtime: spec.Runtime,
	}
	r.setBudget(cfg.Budget, spec.Budget)
	if err := place(cfg, r, spec, checkout, again); err != nil {
		r.cancel(err)
		rec.close()
		lock.Close()
		os.RemoveAll(dir)
		unmarkLive(cfg.StateDir, id)
		return nil, err
	}
	r.setState(StateQueued, "")

	m.mu.Lock()
	if m.closed {
		m.mu.Unlock()
		r.cancel(ErrClosed)
		rec.close()
		lock.Close()
		os.RemoveAll(dir)
		unmarkLive(cfg.StateDir, id)
		return nil, fmt.Errorf("starting a run: %w", ErrClosed)
	}
	m.live = append(m.live, r)
	m.queue = append(m.queue, r)
	m.mu.Unlock()
	go r.own()
	m.schedule()
	return r, nil
}

// newRun returns a run of m, living until ctx is done, that has its record, with no
// owner yet.
func newRun(ctx context.Context, m *Manager, id, dir string, spec Spec, rec *recorder, lock *os.File) *Run {
	r := &Run{
		m: m, id: id, dir: dir, spec: spec, rec: rec, lock: lock, lines: m.red.Lines(),
		done: make(chan struct{}), cmds: make(chan func()), launchc: make(chan *os.File, 1), wake: make(chan struct{}, 1),
	}
	r.ctx, r.cancel = context.WithCancelCause(ctx)
	r.input = newInput(spec.KeepOpen)
	r.touch()
	return r
}

// newID returns a run id that sorts by start time: 20250102-150405-ab12cd.
func newID() (string, error) {
	var b [3]byte
	if _, err := rand.Read(b[:]); err != nil {
		return "", fmt.Errorf("making a run id: %w", err)
	}
	return time.Now().Format("20060102-150405") + "-" + hex.EncodeToString(b[:]), nil
}

// schedule starts queued runs, in order, while there are free slots. A build or ready run
// whose checkout is held by another waits, and the runs behind it that can start do. It
// decides under m.mu and tells the runs after, so that no run's lock is taken under it.
func (m *Manager) schedule() {
	type launch struct {
		r    *Run
		lock *os.File // the checkout's lock across segwi processes, for a build or ready run
		err  error    // why that lock could not be taken, when not for another segwi
	}
	var launches []launch
	var behind []*Run // queued behind another segwi's run in their checkout
	m.mu.Lock()
	for i := 0; i < len(m.queue) && len(m.slots) < m.cfg.MaxConcurrent; {
		r := m.queue[i]
		l := launch{r: r}
		if r.spec.Kind.HoldsCheckout() {
			if m.checkouts[r.checkout] != nil {
				i++
				continue
			}
			l.lock, l.err = lockCheckout(m.cfg.StateDir, r.checkout)
			if errors.Is(l.err, errCheckoutBusy) {
				behind = append(behind, r)
				m.scheduleLaterLocked()
				i++
				continue
			}
			m.checkouts[r.checkout] = r
		}
		m.queue = slices.Delete(m.queue, i, i+1)
		m.slots[r] = struct{}{}
		launches = append(launches, l)
	}
	m.mu.Unlock()
	for _, r := range behind {
		r.queuedBehindAnotherSegwi()
	}
	for _, l := range launches {
		if l.err != nil {
			// The lock file cannot be made: this process's own map still holds.
			l.r.emit(Event{Type: EventStatus, Subtype: "checkout-lock", Text: l.err.Error()}, toDisk)
		}
		l.r.launchc <- l.lock // never waits: a run is launched once, into a buffer of one
	}
}

// scheduleLaterLocked looks at the queue again in a while, for a run that waits for
// another segwi process to let go of its checkout. With m.mu held.
func (m *Manager) scheduleLaterLocked() {
	if m.retry != nil || m.closed {
		return
	}
	m.retry = time.AfterFunc(checkoutRetry, func() {
		m.mu.Lock()
		m.retry = nil
		m.mu.Unlock()
		m.schedule()
	})
}

// dequeue takes r off the queue and says whether it was there.
func (m *Manager) dequeue(r *Run) bool {
	m.mu.Lock()
	defer m.mu.Unlock()
	i := slices.Index(m.queue, r)
	if i < 0 {
		return false
	}
	m.queue = slices.Delete(m.queue, i, i+1)
	return true
}

// ended is called once by a run that has ended, from its owner: its slot and checkout
// are free (the run let go of the checkout's lock already).
func (m *Manager) ended(r *Run) {
	m.mu.Lock()
	if i := slices.Index(m.live, r); i >= 0 {
		m.live = slices.Delete(m.live, i, i+1)
	}
	delete(m.slots, r) // a run stopped while queued never took one
	if m.checkouts[r.checkout] == r {
		delete(m.checkouts, r.checkout)
	}
	m.mu.Unlock()
	m.schedule()
}

// Get returns the live run id, or nil.
func (m *Manager) Get(id string) *Run {
	m.mu.Lock()
	defer m.mu.Unlock()
	for _, r := range m.live {
		if r.id == id {
			return r
		}
	}
	return nil
}

// Runs returns the runs that have not ended (queued and active), oldest first. A run's
// final state is published a moment before the run leaves the Manager's list; Runs leaves
// it out already, so a subscriber that lists the runs on that event sees it gone.
func (m *Manager) Runs() []*Run {
	m.mu.Lock()
	live := slices.Clone(m.live)
	m.mu.Unlock()
	return slices.DeleteFunc(live, func(r *Run) bool { return r.State().Final() })
}

// StopAll stops every run, for segwi quitting or getting SIGINT/SIGTERM: queued runs leave
// the queue, active ones get the two-step stop, and no run can start any more. It returns
// when every run has ended, or when ctx is done; then it kills what is left at once and
// returns ctx's error after waiting for them (at most a few seconds).
func (m *Manager) StopAll(ctx context.Context) error {
	m.mu.Lock()
	m.closed = true
	runs := slices.Clone(m.live)
	m.mu.Unlock()
	for _, r := range runs {
		r.stop(StateStopped, "segwi is quitting")
	}
	for _, r := range runs {
		select {
		case <-r.done:
		case <-ctx.Done():
			for _, r := range runs {
				r.stop(StateStopped, "segwi is quitting") // the second stop kills
			}
			timeout := time.After(10 * time.Second)
			for _, r := range runs {
				select {
				case <-r.done:
				case <-timeout:
					return fmt.Errorf("stopping runs: run %s did not end: %w", r.id, ctx.Err())
				}
			}
			return fmt.Errorf("stopping runs: %w", ctx.Err())
		}
	}
	return nil
}
