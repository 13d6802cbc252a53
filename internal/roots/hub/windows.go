package hub

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"runtime/debug"
	"sync"
	"syscall"
	"time"

	"github.com/segwi/segwi/control"
	"github.com/segwi/segwi/internal/lib/logger"
)

// Process is a window process the hub started: this side's end of its channel, and how
// to wait for it and end it.
type Process struct {
	Conn net.Conn
	Pid  int
	Wait func() error // returns once the process has ended
	Kill func()       // ends it at once
}

// A Spawn starts a window process that speaks the control channel on its end of
// Process.Conn (Program.Spawn in the tray). Its error is a *MissingProgramError when the
// window process's program is not installed.
type Spawn func() (*Process, error)

// Timing of the window processes.
const (
	// connectWithin bounds a window process's start, up to its Hello: a cold start of
	// Fyne's driver takes about a second; one that has not connected by then is killed.
	connectWithin = 30 * time.Second
	// endWithin is how long a window process has to end once its channel is closed
	// before it is killed.
	endWithin = 5 * time.Second
	// quickEnd and maxQuickEnds stop a window process that cannot start from being
	// started again and again: after maxQuickEnds in a row that ended within quickEnd of
	// their start, none is started again for waiting approvals until one is asked for.
	quickEnd     = 5 * time.Second
	maxQuickEnds = 3
)

// errEndedEarly is ensure's error when the window process it started ended before it
// said hello: it could not open the display, or crashed on its way up.
var errEndedEarly = errors.New("the window process ended before it connected: see segwi's log")

// errNoSpawn is the error of a window asked of a hub that cannot start window processes
// (headless segwi run, whose only client is the approval page).
var errNoSpawn = errors.New("no window process can be started (this tray was built without one)")

// windows starts the window process when a window is needed, serves its channel, and
// starts another when it died while approvals waited. At most one runs at a time.
type windows struct {
	spawn   Spawn
	find    func() error // see Options.Find; nil: spawn's errors alone say the program is missing
	server  *control.Server
	logf    logger.Logf
	ended   func(open []string) // called after a window process ended, with the runs whose windows it had open
	missing func(err error)     // called when the program goes missing (err) or is found again (nil)

	mu        sync.Mutex
	ctx       context.Context // the hub's, set by start: ends the window process's channel
	cur       *child
	quickEnds int   // window processes in a row that ended soon after their start
	lost      error // the program is not installed: the last look for it failed with this
	wg        sync.WaitGroup
}

// child is one window process.
type child struct {
	proc      *Process
	started   time.Time
	peer      *control.Peer // once it said hello
	connected chan struct{} // closed once peer is set
	done      chan struct{} // closed once it has ended and been waited for
	runWins   []string      // the runs whose windows it has open, as it last said (control.RunWindows)
}

func newWindows(spawn Spawn, find func() error, server *control.Server, logf logger.Logf, ended func([]string), missing func(error)) *windows {
	return &windows{spawn: spawn, find: find, server: server, logf: logf, ended: ended, missing: missing, ctx: context.Background()}
}

// start sets the context whose end ends the window process's channel.
func (w *windows) start(ctx context.Context) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.ctx = ctx
}

// ensure returns the window process's connection, starting a window process when none
// runs and waiting for it to connect. It returns when it has connected, when it ended or
// did not connect in time, or when ctx is done.
func (w *windows) ensure(ctx context.Context) (*control.Peer, error) {
	for {
		c, err := w.current(true)
		if err != nil {
			return nil, err
		}
		select {
		case <-c.connected:
			if c.peer.Err() == nil {
				return c.peer, nil
			}
			// Its channel ended: it is leaving. Wait until it has, then start another.
			select {
			case <-c.done:
				continue
			case <-ctx.Done():
				return nil, ctx.Err()
			}
		case <-c.done:
			return nil, errEndedEarly
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
}

// current returns the window process running, starting one when none does and force is
// set or fewer than maxQuickEnds ended in a row; nil, nil when none runs and none may start.
func (w *windows) current(force bool) (*child, error) {
	c, started, err := w.startOrGet(force)
	if started {
		w.report(err)
	}
	return c, err
}

// startOrGet is current without reporting whether the program is missing: started says
// whether it tried to start one, which looked for the program.
func (w *windows) startOrGet(force bool) (c *child, started bool, err error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.cur != nil {
		return w.cur, false, nil
	}
	if w.spawn == nil {
		return nil, false, errNoSpawn
	}
	if w.ctx.Err() != nil {
		return nil, false, fmt.Errorf("starting a window process: %w", w.ctx.Err())
	}
	if !force && w.quickEnds >= maxQuickEnds {
		return nil, false, nil
	}
	proc, err := w.spawn()
	if err != nil {
		return nil, true, fmt.Errorf("starting a window process: %w", err)
	}
	c = &child{proc: proc, started: time.Now(), connected: make(chan struct{}), done: make(chan struct{})}
	w.cur = c
	w.wg.Add(1)
	go w.serve(w.ctx, c)
	return c, true, nil
}

// check looks for the window process's program without starting it (Options.Find), and
// reports what it found.
func (w *windows) check() {
	if w.find != nil {
		w.report(w.find())
	}
}

// report records the result of a look for the window process's program (a start, or
// check) and tells the hub when that changed its being missing: it went missing (err is
// a *MissingProgramError), or was found again (nil).
func (w *windows) report(err error) {
	var lost *MissingProgramError
	if !errors.As(err, &lost) {
		err = nil
	}
	w.mu.Lock()
	changed := (w.lost == nil) != (err == nil)
	w.lost = err
	w.mu.Unlock()
	if changed && w.missing != nil {
		w.missing(err)
	}
}

// lostProgram returns why no window can open when the window process's program is not
// installed, or nil.
func (w *windows) lostProgram() error {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.lost
}

// serve serves c's channel until it ends, then waits for c to end (killing it when it
// does not within endWithin) and lets the next window process start.
func (w *windows) serve(ctx context.Context, c *child) {
	defer w.wg.Done()
	connectCtx, cancel := context.WithCancel(ctx)
	go func() {
		select {
		case <-c.connected:
		case <-time.After(connectWithin):
			w.logf.Printf("the window process (pid %d) did not connect within %s: killing it", c.proc.Pid, connectWithin)
			cancel()
		case <-connectCtx.Done():
		}
	}()
	err := w.server.Serve(connectCtx, c.proc.Conn, control.Grant{Role: control.RoleWindow, Who: control.ByThisDesktop})
	cancel()
	if err != nil && !isEnd(err) && ctx.Err() == nil {
		w.logf.Printf("the window process's channel: %v", err)
	}
	waited := make(chan error, 1)
	go func() { waited <- c.proc.Wait() }()
	var exit error
	select {
	case exit = <-waited:
	case <-time.After(endWithin):
		c.proc.Kill()
		exit = <-waited
	}
	if exit != nil && ctx.Err() == nil {
		w.logf.Printf("the window process (pid %d) ended: %v", c.proc.Pid, exit)
	}
	w.mu.Lock()
	if time.Since(c.started) < quickEnd {
		w.quickEnds++
	} else {
		w.quickEnds = 0
	}
	w.cur = nil
	open := c.runWins
	w.mu.Unlock()
	close(c.done)
	if ctx.Err() == nil {
		// The window process's snapshots, events and subscriptions were the tray's largest
		// allocations; give the pages they held back now rather than at the runtime's next
		// scavenge, so an idle tray returns to its idle size.
		debug.FreeOSMemory()
		w.ended(open)
	}
}

// runWindowsOpen records the runs whose windows the window process connected as p has
// open (control.RunWindows), for a window process started after it ends to show them again.
func (w *windows) runWindowsOpen(p *control.Peer, ids []string) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if c := w.cur; c != nil && c.peer == p {
		c.runWins = append([]string(nil), ids...)
	}
}

// context returns the hub's context, which ends the window processes' channels.
func (w *windows) context() context.Context {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.ctx
}

// isEnd reports whether err is the end of a connection rather than a fault.
func isEnd(err error) bool {
	return errors.Is(err, io.EOF) || errors.Is(err, control.ErrClosed) || errors.Is(err, net.ErrClosed) ||
		errors.Is(err, syscall.ECONNRESET) || errors.Is(err, context.Canceled)
}

// connected records that the window process said hello, as p.
func (w *windows) connected(p *control.Peer) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if c := w.cur; c != nil && c.peer == nil {
		c.peer = p
		close(c.connected)
	}
}

// need starts a window process when none runs, for a request that waits: its popup
// shows once the process is up. It returns why none could start, or nil, also when there
// is nothing to tell the person: a hub that starts no window processes (headless segwi
// run), or one that is ending.
func (w *windows) need() error {
	c, err := w.current(false)
	if errors.Is(err, errNoSpawn) || errors.Is(err, context.Canceled) {
		return nil
	}
	if err == nil && c == nil {
		return fmt.Errorf("the last %d window processes ended within %s of their start (see above); "+
			"the next menu item clicked starts one again", maxQuickEnds, quickEnd)
	}
	return err
}

// show asks the window process to show s, starting one when none runs. When the window
// process is leaving as it is asked (its last window closed a while ago): it ends with
// the request unanswered, or answers control.ErrLeaving; then, once it has ended, a new
// one is asked. A window process that ends before it connects is tried once more: the
// person's click is not lost to one failed start (both are logged).
func (w *windows) show(ctx context.Context, s control.Show) error {
	for attempt := 0; ; attempt++ {
		p, err := w.ensure(ctx)
		if errors.Is(err, errEndedEarly) && attempt == 0 {
			w.logf.Printf("showing the %s window: %v; starting another", s.Window, err)
			continue
		}
		if err != nil {
			return err
		}
		r, err := p.Request(ctx, s)
		if err == nil {
			err = r.Err()
			if attempt > 0 || !errors.Is(err, control.ErrLeaving) {
				return err
			}
			w.logf.Printf("showing the %s window: the window process is leaving; asking the next one once it has gone", s.Window)
			if err := w.gone(ctx, p); err != nil {
				return err
			}
			continue
		}
		if attempt > 0 || p.Err() == nil || ctx.Err() != nil {
			return err
		}
	}
}

// gone waits until the window process connected as p has ended, or ctx is done.
func (w *windows) gone(ctx context.Context, p *control.Peer) error {
	w.mu.Lock()
	c := w.cur
	same := c != nil && c.peer == p
	w.mu.Unlock()
	if !same {
		return nil // it has ended already
	}
	select {
	case <-c.done:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// pid is the pid of the window process, or 0.
func (w *windows) pid() int {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.cur == nil {
		return 0
	}
	return w.cur.proc.Pid
}

// stop waits for the window process to end, once the hub's context is done (which closed
// its channel), killing it when it has not ended within endWithin.
func (w *windows) stop() {
	w.wg.Wait()
}
