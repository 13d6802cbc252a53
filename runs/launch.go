package runs

import (
	"errors"
	"fmt"
	"os/exec"
	"slices"
	"strings"
	"syscall"
	"time"

	"github.com/segwi/segwi/approvals"
	"github.com/segwi/segwi/runs/ports"
)

// The steps of a run's life that wait (on the approvals server, git, the process table,
// the agent), each on a goroutine of its own that reports to the run's owner: start, from
// the launch to the agent's process, and clear, from its exit to what it left swept. The
// owner's side is in owner.go; finish, on the owner, ends the run.

// startResult is what a run's start did, for its owner (started).
type startResult struct {
	token   string   // the approvals token, "" when none was registered
	argv    []string // the agent's command line
	model   string
	proc    *process     // the agent's process; nil when it did not start
	session Session      // the runtime's session with it
	kills   *killWitness // what tells, should the agent die of a signal, who sent it
	ports   *ports.Held  // the run's TCP ports; nil when none could be taken
	failure string       // why the start failed, for a person; "" when it did not fail
}

// secretsStale says whether the secrets read at Start are too old for the run's agent to
// start with (secretsFresh): its start reads them again.
func (r *Run) secretsStale() bool { return time.Since(r.secretsRead) > secretsFresh }

// errStoppedFirst is Launch.Start's error for a run stopped while it was starting.
var errStoppedFirst = errors.New("the run was stopped before its agent started")

// start carries out a launched run's start, on a goroutine of its own: the registration
// with the approvals server, the sweep of what a killed segwi left, and the agent, which
// the runtime starts, unless a stop came first, while the checkout's base is read. It
// reports to the owner (started), which ends a run whose start failed.
func (r *Run) start() {
	st := r.startSteps()
	r.do(func() { r.started(st) })
}

// startSteps is start's work; its result says what became of it. A start that failed,
// or was stopped, after the registration withdraws it again.
func (r *Run) startSteps() (st startResult) {
	cfg := r.m.config()
	// The secrets (the keyring's token: seven calls over D-Bus, which were each run's
	// longest wait before its agent started) were read at Start, a moment ago for a run
	// that starts at once. A run that waited in the queue reads them again, so that a
	// token set meanwhile is redacted from its output.
	if r.secretsStale() {
		r.m.refreshSecrets(cfg)
	}
	defer func() {
		if st.proc == nil {
			r.withdraw(cfg, st.token) // nothing started: nothing can ask any more
			r.endSetupCgroup()        // what the setup left goes with the run
		}
	}()
	l := Launch{
		RunID: r.id, Kind: r.spec.Kind, Checkout: r.checkout, Model: r.spec.Model, Resume: r.spec.Resume, MaxCostUSD: r.agentCost,
		Env: envFor(cfg.Env, cfg.PassForgeTokens, r.id, r.spec.Kind), Dir: r.dir,
		Start: r.startAgent(&st),
	}
	if l.Model == "" {
		l.Model = cfg.Model
	}
	st.model = l.Model
	if cfg.Approvals != nil {
		reg, err := cfg.Approvals.Register(approvals.RunInfo{ID: r.id, Kind: string(r.spec.Kind), Checkout: r.checkout, Agent: r.approvalsAgent()}, r)
		if err != nil {
			st.failure = fmt.Sprintf("could not register the run with the approvals server: %v", err)
			return st
		}
		r.m.red.Add(reg.Token)
		st.token, l.Approvals = reg.Token, &reg
	}
	if r.stopAsked() {
		return st
	}
	if st.ports = r.takePorts(cfg); st.ports != nil {
		l.Env = append(l.Env, st.ports.Env()...)
	}
	if st.failure = r.prepare(cfg, l.Env); st.failure != "" || r.stopAsked() {
		return st
	}
	r.sweepBeforeStart()
	// The base is read while the agent starts, and recorded before the owner hears of the
	// start, so before the prompt goes (started): the agent changes no file before its
	// first message.
	based := r.startBase(cfg)
	session, err := r.runtime.Start(l)
	<-based
	switch {
	case errors.Is(err, errStoppedFirst): // nothing started
	case err != nil:
		st.failure = fmt.Sprintf("could not start %s in %s: %v", r.agent, r.checkout, err)
	case st.proc == nil:
		st.failure = fmt.Sprintf("could not start %s in %s: its runtime started no process", r.agent, r.checkout)
		session.Close()
	default:
		trackRun(r.id)
		st.session = session
		st.kills = watchKills(st.proc.cmd.Process.Pid)
		return st
	}
	if st.proc != nil {
		// The runtime gave up once its process had started: the process goes, and what it
		// started.
		st.proc.signal(syscall.SIGKILL)
		st.proc.wait()
		_, left := r.endLeftovers(st.proc)
		for _, e := range left {
			r.emit(e, toFile)
		}
		st.proc = nil
	}
	return st
}

// startAgent is a run's Launch.Start: it records the agent's command line, and starts
// cmd as the run's process, in a cgroup of the run's own where it can (startContained),
// unless the run was stopped meanwhile.
func (r *Run) startAgent(st *startResult) func(cmd *exec.Cmd) error {
	return func(cmd *exec.Cmd) error {
		if st.proc != nil {
			return errors.New("the agent's process is started already")
		}
		st.argv = slices.Clone(cmd.Args)
		if r.stopAsked() {
			return errStoppedFirst
		}
		p, err := r.startContained(cmd)
		if err != nil {
			return err
		}
		st.proc = p
		r.mu.Lock()
		r.agentStarted = p.started
		r.mu.Unlock()
		return nil
	}
}

// withdraw ends the run's registration with the approvals server: its pending requests
// are denied and recorded. It waits for requests under way to be answered, so the owner
// never calls it.
func (r *Run) withdraw(cfg Config, token string) {
	if token != "" && cfg.Approvals != nil {
		cfg.Approvals.Unregister(r.id)
	}
}

// stopAsked says whether a stop came while the run was starting: then its agent does not
// start, and the run ends stopped.
func (r *Run) stopAsked() bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.phase != phaseRunning
}

// clearance is what the sweep after a run's exit found, for its owner (cleared).
type clearance struct {
	exit   ExitInfo
	events []Event // the run's last events: what the sweep found, the exit
	said   string  // what the leftovers were, in a few words for the run's reason; "" for none
	killer string  // who killed the agent, when a signal did (killWitness.verdict); "" when none did
}

// clear sweeps what the run's process left once it exited, on a goroutine of its own: no
// process of the run outlives it, the reader has read the output to its end, the session
// let go of what it held, and the approvals registration is withdrawn. It reports to the
// owner (cleared).
func (r *Run) clear(p *process, s Session, waitErr error, token string, kills *killWitness) {
	exit := exitInfo(p.cmd.ProcessState)
	var c clearance
	if exit.Signal != "" && exit.Code > 128 {
		c.killer = kills.verdict(syscall.Signal(exit.Code - 128))
	}
	// Whatever is left of the group goes now, and every other process the run started,
	// however it left the group.
	p.signal(syscall.SIGKILL)
	left, leftEvents := r.endLeftovers(p)
	gone := p.groupGone(5 * time.Second)
	// The reader ends when the last holder of the pty's other side is gone; a process
	// that left the group could keep it open, so give up waiting after a while.
	select {
	case <-r.readerDone:
	case <-time.After(2 * time.Second):
		s.Close()
		<-r.readerDone
	}
	closeErr := s.Close()
	r.withdraw(r.m.config(), token)

	if !gone {
		c.events = append(c.events, Event{Type: EventStatus, Subtype: "kill",
			Text: fmt.Sprintf("processes of group %d were still alive 5 s after SIGKILL", p.pgid)})
	}
	if waitErr != nil && !errors.As(waitErr, new(*exitErr)) {
		c.events = append(c.events, Event{Type: EventStatus, Subtype: "wait", Text: waitErr.Error()})
	}
	if closeErr != nil {
		c.events = append(c.events, Event{Type: EventStatus, Subtype: "session", Text: closeErr.Error()})
	}
	c.exit = exit
	c.events = append(c.events, Event{Type: EventExit, Exit: &exit})
	c.events = append(c.events, leftEvents...)
	c.said = leftoverSummary(left)
	r.do(func() { r.cleared(c) })
}

// joinReasons puts two reasons of a run's end in one, either of them maybe empty.
func joinReasons(a, b string) string { return strings.TrimPrefix(a+"; "+b, "; ") }

// outcomeLocked decides the end state of a run whose process exited; killedBy says who
// killed it, when a signal did (killWitness.verdict).
func (r *Run) outcomeLocked(exit ExitInfo, killedBy string) (State, string) {
	if r.stopped.ended {
		// segwi's signal ended an agent that does not exit on its own (Lingering): its
		// exit says nothing of how the run went.
		exit, killedBy = ExitInfo{}, ""
	}
	switch {
	case r.stopped.as != "": // stopped before the process exited: segwi's stop sent the signal
		return r.stopped.as, r.stopped.reason
	case exit.Code != 0 && exit.Signal != "" && killedBy != "":
		return StateFailed, killedBy
	case exit.Code != 0 && exit.Signal != "":
		return StateFailed, fmt.Sprintf("%s was killed by a signal (%s)", r.agent, exit.Signal)
	case exit.Code != 0 && r.agentCost > 0 && r.reached != "":
		return StateFailed, fmt.Sprintf("%s: %s stopped at the run's cost budget itself and exited with code %d", r.reached, r.agent, exit.Code)
	case exit.Code != 0:
		return StateFailed, fmt.Sprintf("%s exited with code %d", r.agent, exit.Code)
	case r.input.results == 0:
		return StateFailed, r.agent + " exited without a result"
	case r.lastFailed:
		return StateFailed, "the last turn ended with an error"
	}
	return StateSucceeded, ""
}

// finish ends the run, on its owner: its last events, its final state, the record closed,
// the folder's and the checkout's locks let go, the subscribers told, the run's context
// ended. Only the first call does anything. The last events and the final state reach the
// subscribers only once the record is closed and the folder's lock let go: a subscriber
// that acts on the end (a commit, a push, a note on the record) finds the run no longer
// live. The Manager learns of the end once own returns.
func (r *Run) finish(state State, reason string, last []Event) {
	r.mu.Lock()
	if r.phase >= phaseEnding {
		r.mu.Unlock()
		return
	}
	r.stepLocked(onEnding, "", "") // the last events and the final state wait for the record's close
	for _, e := range last {
		r.emitLocked(e, toFile)
	}
	r.info.End = time.Now()
	r.setStateLocked(state, reason)
	r.stepLocked(onEnded, "", "") // no event after the final state
	r.mu.Unlock()

	if err := r.rec.close(); err != nil {
		r.m.config().Log.Printf("%v", err)
	}
	if r.token != "" {
		r.m.red.Remove(r.token)
	}
	r.mu.Lock()
	done := doneWith(r.info) // a cgroup it could not remove is the next segwi's to end
	r.mu.Unlock()
	if done {
		unmarkLive(r.m.config().StateDir, r.id) // before its lock goes: no other segwi looks meanwhile
	}
	r.lock.Close() // releases the folder's lock: the run is no longer live
	r.tellEnd()
	if r.checkoutLock != nil {
		r.checkoutLock.Close() // before the Manager starts the next run in this checkout
		r.checkoutLock = nil
	}
	r.ports.Release()
	r.cancel(errRunEnded)
	r.over = true
}

// approvalsAgent is the agent the approvals' answers name for the run: its runtime's
// name when the run asked for one (Spec.Runtime, an ACP agent), "" (Claude Code) when it
// runs on the Manager's default runtime, Claude Code's.
func (r *Run) approvalsAgent() string {
	if r.spec.Runtime == "" {
		return ""
	}
	return r.agent
}
