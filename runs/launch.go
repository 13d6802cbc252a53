package runs

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/segwi/segwi/approvals"
)

// The steps of a run's life that wait (on the approvals server, git, the process table,
// the agent), each on a goroutine of its own that reports to the run's owner: start, from
// the launch to the agent's process, and clear, from its exit to what it left swept. The
// owner's side is in owner.go; finish, on the owner, ends the run.

// startResult is what a run's start did, for its owner (started).
type startResult struct {
	token   string   // the approvals token, "" when none was registered (or it was withdrawn again)
	argv    []string // the agent's command line
	model   string
	proc    *process // the agent's process; nil when it did not start
	failure string   // why the start failed, for a person; "" when it did not fail
}

// start carries out a launched run's start, on a goroutine of its own: the registration
// with the approvals server and the run's mcp.json, its command line, the sweep of what a
// killed segwi left, the checkout's base, and the agent's process, unless a stop came
// first. It reports to the owner (started), which ends a run whose start failed.
func (r *Run) start() {
	st := r.startSteps()
	r.do(func() { r.started(st) })
}

// startSteps is start's work; its result says what became of it. A failure after the
// registration withdraws it again.
func (r *Run) startSteps() (st startResult) {
	cfg := r.m.config()
	r.m.refreshSecrets(cfg)
	defer func() {
		if st.proc == nil {
			r.withdraw(cfg, st.token) // nothing started: nothing can ask any more
		}
	}()
	mcpPath, failure := r.register(cfg, &st)
	if failure != "" {
		st.failure = failure
		return st
	}
	st.model = r.spec.Model
	if st.model == "" {
		st.model = cfg.Model
	}
	st.argv = argvFor(r.claude, r.spec.Kind, st.model, mcpPath, r.spec.Resume)
	env := envFor(cfg.Env, cfg.PassForgeTokens, r.id, r.spec.Kind)
	if r.stopAsked() {
		return st
	}
	r.sweepBeforeStart()
	r.recordBase(cfg)
	if r.stopAsked() {
		return st
	}
	proc, err := r.startContained(st.argv, env)
	if err != nil {
		st.failure = fmt.Sprintf("could not start %s in %s: %v", r.claude, r.checkout, err)
		return st
	}
	trackRun(r.id)
	st.proc = proc
	return st
}

// register registers the run with the approvals server, when there is one, and writes the
// run's mcp.json, which points Claude Code at it with the run's token. It returns the
// file's path ("" without a server), or why it failed.
func (r *Run) register(cfg Config, st *startResult) (mcpPath, failure string) {
	if cfg.Approvals == nil {
		return "", ""
	}
	reg, err := cfg.Approvals.Register(approvals.RunInfo{ID: r.id, Kind: string(r.spec.Kind), Checkout: r.checkout}, r)
	if err != nil {
		return "", fmt.Sprintf("could not register the run with the approvals server: %v", err)
	}
	r.m.red.Add(reg.Token)
	st.token = reg.Token
	mcpPath = filepath.Join(r.dir, mcpFile)
	if err := os.WriteFile(mcpPath, reg.MCPConfig(), 0o600); err != nil {
		return "", fmt.Sprintf("could not write %s: %v", mcpPath, err)
	}
	return mcpPath, ""
}

// withdraw ends the run's registration with the approvals server: its pending requests
// are denied and recorded, and its mcp.json goes (still there if Claude Code never
// connected). It waits for requests under way to be answered, so the owner never calls it.
func (r *Run) withdraw(cfg Config, token string) {
	if token == "" || cfg.Approvals == nil {
		return
	}
	cfg.Approvals.Unregister(r.id)
	os.Remove(filepath.Join(r.dir, mcpFile))
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
}

// clear sweeps what the run's process left once it exited, on a goroutine of its own: no
// process of the run outlives it, the reader has read the output to its end, and the
// approvals registration is withdrawn. It reports to the owner (cleared).
func (r *Run) clear(p *process, waitErr error, token string) {
	exit := exitInfo(p.cmd.ProcessState)
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
		p.pty.Close()
		<-r.readerDone
	}
	p.pty.Close()
	r.withdraw(r.m.config(), token)

	var c clearance
	if !gone {
		c.events = append(c.events, Event{Type: EventStatus, Subtype: "kill",
			Text: fmt.Sprintf("processes of group %d were still alive 5 s after SIGKILL", p.pgid)})
	}
	if waitErr != nil && !errors.As(waitErr, new(*exitErr)) {
		c.events = append(c.events, Event{Type: EventStatus, Subtype: "wait", Text: waitErr.Error()})
	}
	c.exit = exit
	c.events = append(c.events, Event{Type: EventExit, Exit: &exit})
	c.events = append(c.events, leftEvents...)
	c.said = leftoverSummary(left)
	r.do(func() { r.cleared(c) })
}

// joinReasons puts two reasons of a run's end in one, either of them maybe empty.
func joinReasons(a, b string) string { return strings.TrimPrefix(a+"; "+b, "; ") }

// outcomeLocked decides the end state of a run whose process exited.
func (r *Run) outcomeLocked(exit ExitInfo) (State, string) {
	switch {
	case r.stopped.as != "": // stopped before the process exited
		return r.stopped.as, r.stopped.reason
	case exit.Code != 0 && exit.Signal != "":
		return StateFailed, fmt.Sprintf("claude was killed by %s", exit.Signal)
	case exit.Code != 0:
		return StateFailed, fmt.Sprintf("claude exited with code %d", exit.Code)
	case r.input.results == 0:
		return StateFailed, "claude exited without a result"
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
		r.emitLocked(e, false)
	}
	r.info.End = time.Now()
	r.setStateLocked(state, reason)
	r.stepLocked(onEnded, "", "") // no event after the final state
	r.mu.Unlock()

	if err := r.rec.close(); err != nil {
		fmt.Fprintf(os.Stderr, "segwi: %v\n", err)
	}
	if r.token != "" {
		r.m.red.Remove(r.token)
	}
	r.lock.Close() // releases the folder's lock: the run is no longer live
	r.tellEnd()
	if r.checkoutLock != nil {
		r.checkoutLock.Close() // before the Manager starts the next run in this checkout
		r.checkoutLock = nil
	}
	r.cancel(errRunEnded)
	r.over = true
}
