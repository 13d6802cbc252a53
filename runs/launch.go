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

// launch starts the process of a run the Manager took off the queue, and follows it to
// its end. It runs on its own goroutine.
func (r *Run) launch() {
	cfg := r.m.config()
	r.m.refreshSecrets(cfg)

	mcpPath := ""
	if cfg.Approvals != nil {
		reg, err := cfg.Approvals.Register(approvals.RunInfo{ID: r.id, Kind: string(r.spec.Kind), Checkout: r.checkout}, r)
		if err != nil {
			r.finish(StateFailed, fmt.Sprintf("could not register the run with the approvals server: %v", err), nil)
			return
		}
		r.m.red.Add(reg.Token)
		r.mu.Lock()
		r.token = reg.Token
		r.mu.Unlock()
		mcpPath = filepath.Join(r.dir, mcpFile)
		if err := os.WriteFile(mcpPath, reg.MCPConfig(), 0o600); err != nil {
			r.finish(StateFailed, fmt.Sprintf("could not write %s: %v", mcpPath, err), nil)
			return
		}
	}

	model := r.spec.Model
	if model == "" {
		model = cfg.Model
	}
	argv := argvFor(r.claude, r.spec.Kind, model, mcpPath, r.spec.Resume)
	env := envFor(cfg.Env, cfg.PassForgeTokens, r.id, r.spec.Kind)

	r.mu.Lock()
	r.info.Argv, r.info.Model = argv, model
	if r.phase != phaseRunning { // stopped while starting
		stopped := r.stopped
		r.mu.Unlock()
		r.finish(stopped.as, stopped.reason+" before it started", nil)
		return
	}
	r.mu.Unlock()

	r.sweepBeforeStart()
	r.recordBase(cfg)
	proc, err := r.startContained(argv, env)
	if err != nil {
		r.finish(StateFailed, fmt.Sprintf("could not start %s in %s: %v", r.claude, r.checkout, err), nil)
		return
	}
	trackRun(r.id)
	r.touch()
	r.mu.Lock()
	r.proc = proc
	r.info.PID, r.info.Start = proc.pgid, time.Now()
	r.stepLocked(onStarted, "", "") // a stop asked meanwhile reaches it now
	r.moveInputLocked(sendPrompt)   // written below; running, or waiting for an approval; a stopped run says stopping
	r.mu.Unlock()

	readerDone := make(chan struct{})
	go func() {
		defer close(readerDone)
		r.readOutput(proc.pty)
	}()
	watchDone := make(chan struct{})
	go r.watch(watchDone)

	if err := r.write(r.prompt); err != nil {
		r.emit(Event{Type: EventStatus, Subtype: "input", Text: err.Error()}, false)
	}

	waitErr := proc.wait()
	r.mu.Lock()
	r.stepLocked(onExited, "", "") // a Stop from now on is too late to change how the run ended
	r.mu.Unlock()
	exit := exitInfo(proc.cmd.ProcessState)
	// No process of the run outlives it: whatever is left of the group goes now, and
	// every other process the run started, however it left the group.
	proc.signal(syscall.SIGKILL)
	left, leftEvents := r.endLeftovers(proc)
	gone := proc.groupGone(5 * time.Second)
	// The reader ends when the last holder of the pty's other side is gone; a process
	// that left the group could keep it open, so give up waiting after a while.
	select {
	case <-readerDone:
	case <-time.After(2 * time.Second):
		proc.pty.Close()
		<-readerDone
	}
	proc.pty.Close()
	close(watchDone)

	r.mu.Lock()
	r.closeInputLocked()
	r.mu.Unlock()

	var extra []Event
	if !gone {
		extra = append(extra, Event{Type: EventStatus, Subtype: "kill",
			Text: fmt.Sprintf("processes of group %d were still alive 5 s after SIGKILL", proc.pgid)})
	}
	if waitErr != nil && !errors.As(waitErr, new(*exitErr)) {
		extra = append(extra, Event{Type: EventStatus, Subtype: "wait", Text: waitErr.Error()})
	}
	r.mu.Lock()
	state, reason := r.outcomeLocked(exit)
	r.mu.Unlock()
	extra = append(extra, Event{Type: EventExit, Exit: &exit})
	extra = append(extra, leftEvents...)
	if said := leftoverSummary(left); said != "" {
		reason = strings.TrimPrefix(reason+"; "+said, "; ")
	}
	r.finish(state, reason, extra)
}

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

// finish ends the run: its last events, its final state, the record closed, the
// approvals registration withdrawn, the Manager told. Only the first call does anything.
// The last events and the final state reach the subscribers only once the record is
// closed and the folder's lock let go: a subscriber that acts on the end (a commit, a
// push, a note on the record) finds the run no longer live.
func (r *Run) finish(state State, reason string, last []Event) {
	cfg := r.m.config()
	r.mu.Lock()
	if r.phase >= phaseEnding {
		r.mu.Unlock()
		return
	}
	token := r.token
	r.mu.Unlock()
	if token != "" && cfg.Approvals != nil {
		cfg.Approvals.Unregister(r.id)
		os.Remove(filepath.Join(r.dir, mcpFile)) // still there if Claude Code never connected
	}

	r.mu.Lock()
	r.stepLocked(onEnding, "", "") // the last events and the final state wait for the record's close
	for _, e := range last {
		if e.Exit != nil {
			code := e.Exit.Code
			r.info.ExitCode = &code
		}
		r.emitLocked(e, false)
	}
	r.info.End = time.Now()
	r.setStateLocked(state, reason)
	r.stepLocked(onEnded, "", "") // no event after the final state
	r.mu.Unlock()

	if err := r.rec.close(); err != nil {
		fmt.Fprintf(os.Stderr, "segwi: %v\n", err)
	}
	if token != "" {
		r.m.red.Remove(token)
	}
	r.lock.Close() // releases the folder's lock: the run is no longer live

	r.tellEnd()
	r.m.ended(r)
	close(r.done)
}
