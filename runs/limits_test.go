package runs

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"
)

// A Claude Code that gave its result but does not exit once its input is closed (a hung
// MCP server, a background shell it waits for) must not hold its slot and its checkout
// until maxDuration: a stop grace after the idle timeout, it is stopped.
func TestAClaudeThatHangsAfterItsLastResultIsStopped(t *testing.T) {
	script := filepath.Join(t.TempDir(), "claude")
	body := "#!/bin/sh\nread line\necho '{\"type\":\"result\",\"subtype\":\"success\",\"is_error\":false,\"num_turns\":1,\"result\":\"ok\"}'\nexec sleep 3600\n"
	if err := os.WriteFile(script, []byte(body), 0o755); err != nil {
		t.Fatal(err)
	}
	m, _ := testManager(t, func(c *Config) {
		c.Runtime = ClaudeRuntime(script)
		c.IdleTimeout = 200 * time.Millisecond
		c.MaxDuration = time.Hour
	})
	r := start(t, m, Spec{Prompt: "hello"})
	select {
	case <-r.Done():
		if got := r.State(); got != StateTimedOut {
			t.Errorf("the run ended %s, want %s", got, StateTimedOut)
		}
	case <-time.After(10 * time.Second):
		t.Errorf("run is still %s 10 s after its last output with idleTimeout 200ms", r.State())
	}
}

func TestTimeoutsEndARunAsTimedOut(t *testing.T) {
	tests := []struct {
		name       string
		prompt     string
		idle, max  time.Duration
		wantReason string
	}{
		{"a silent run hits the idle timeout", "fake:silent", 300 * time.Millisecond, time.Hour, "runs.idleTimeout"},
		{"a chatty run hits the maximum duration", "fake:chatty", time.Hour, 500 * time.Millisecond, "runs.maxDuration"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m, _ := testManager(t, func(c *Config) { c.IdleTimeout, c.MaxDuration = tt.idle, tt.max })
			began := time.Now()
			info := wait(t, start(t, m, Spec{Prompt: tt.prompt}))
			if info.State != StateTimedOut || !strings.Contains(info.Reason, tt.wantReason) {
				t.Errorf("got %s (%s), want timed-out naming %s", info.State, info.Reason, tt.wantReason)
			}
			if took := time.Since(began); took < min(tt.idle, tt.max) {
				t.Errorf("ended after %s, before the limit", took)
			}
		})
	}
}

func TestAKeptOpenRunEndsNormallyWhenNobodyFollowsUp(t *testing.T) {
	m, _ := testManager(t, func(c *Config) { c.IdleTimeout = 300 * time.Millisecond })
	info := wait(t, start(t, m, Spec{Prompt: "fake:success", KeepOpen: true}))
	if info.State != StateSucceeded {
		t.Errorf("got %s (%s), want succeeded once the idle input was closed", info.State, info.Reason)
	}
	waited := false
	for _, e := range events(t, m, info.ID) {
		waited = waited || e.Type == EventState && e.State.Waiting == WaitReply
	}
	if !waited {
		t.Error("the run never said it waited for your reply before the idle timeout ended it")
	}
}

// TestTheWatchdogsDecisions puts a run in each situation the watchdog (check) looks at,
// with the clock where the test says, and checks what it does: nothing, close the input,
// or stop the run (SIGTERM, timed out), or kill it after the stop grace.
func TestTheWatchdogsDecisions(t *testing.T) {
	cfg := Config{MaxDuration: time.Hour, IdleTimeout: time.Minute, StopGrace: 10 * time.Second}
	start := time.Date(2026, 1, 2, 15, 0, 0, 0, time.UTC)
	tests := []struct {
		name        string
		from        phase
		in          input // where the run's conversation stands
		pending     int
		idle        time.Duration // since the last output
		elapsed     time.Duration // since the process started (and since the stop, when stopping)
		signals     []syscall.Signal
		state       State
		reason      string // what the run's state says, in part
		closesInput bool
	}{
		{name: "a busy run within its limits is left alone", in: input{state: inputBusy, out: 1}, idle: time.Second, elapsed: time.Minute,
			state: StateRunning},
		{name: "a run past maxDuration is stopped as timed out", in: input{state: inputBusy, out: 1}, idle: time.Second, elapsed: time.Hour,
			signals: []syscall.Signal{syscall.SIGTERM}, state: StateStopping, reason: "runs.maxDuration"},
		{name: "a run waiting for a person still has maxDuration", in: input{state: inputBusy, out: 1}, pending: 1, idle: 2 * time.Hour, elapsed: time.Hour,
			signals: []syscall.Signal{syscall.SIGTERM}, state: StateStopping, reason: "runs.maxDuration"},
		{name: "a run waiting for a person is not idle", in: input{state: inputBusy, out: 1}, pending: 1, idle: 2 * time.Minute, elapsed: 5 * time.Minute,
			state: StateRunning},
		{name: "a silent run past idleTimeout is stopped as timed out", in: input{state: inputBusy, out: 1}, idle: time.Minute, elapsed: 5 * time.Minute,
			signals: []syscall.Signal{syscall.SIGTERM}, state: StateStopping, reason: "no output for 1m0s (runs.idleTimeout)"},
		{name: "a kept-open run nobody followed up has its input closed", in: input{state: inputIdle, results: 1},
			idle: time.Minute, elapsed: 5 * time.Minute, state: StateRunning, closesInput: true},
		{name: "a kept-open run silent in its turn is stopped", in: input{state: inputBusy, out: 1, results: 1},
			idle: time.Minute, elapsed: 5 * time.Minute,
			signals: []syscall.Signal{syscall.SIGTERM}, state: StateStopping, reason: "runs.idleTimeout"},
		{name: "a run whose input closed has a stop grace more to exit", in: input{state: inputClosed, results: 1},
			idle: time.Minute + 5*time.Second, elapsed: 5 * time.Minute, state: StateRunning},
		{name: "a run that does not exit after its input closed is stopped", in: input{state: inputClosed, results: 1},
			idle: time.Minute + 10*time.Second, elapsed: 5 * time.Minute,
			signals: []syscall.Signal{syscall.SIGTERM}, state: StateStopping, reason: "did not exit within 1m10s"},
		{name: "a stopped run within the stop grace is left alone", from: phaseStopping, in: input{state: inputBusy, out: 1},
			idle: time.Hour, elapsed: 5 * time.Second, state: StateStopping},
		{name: "a stopped run past the stop grace is killed", from: phaseStopping, in: input{state: inputBusy, out: 1},
			idle: time.Hour, elapsed: 10 * time.Second, signals: []syscall.Signal{syscall.SIGKILL}, state: StateStopping},
		{name: "an exited run is not watched", from: phaseExited, in: input{state: inputBusy, out: 1}, idle: time.Hour, elapsed: 2 * time.Hour,
			state: StateRunning},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r, sig := phaseRun(t, tt.from, true)
			stdinR, stdinW, err := os.Pipe()
			if err != nil {
				t.Fatal(err)
			}
			defer stdinR.Close()
			r.in = newWriter(r, &catSession{in: stdinW}) // the agent's input, which a closing input closes
			r.input, r.pending = tt.in, tt.pending
			now := start.Add(tt.elapsed)
			r.info.Start = start
			r.stopped.at = start
			r.lastActivity.Store(now.Add(-tt.idle).UnixNano())
			r.check(cfg, now)
			if !slices.Equal(sig.sent, tt.signals) {
				t.Errorf("signals sent = %v, want %v", sig.sent, tt.signals)
			}
			info := r.Info()
			if info.State != tt.state || !strings.Contains(info.Reason, tt.reason) {
				t.Errorf("state = %s (%s), want %s saying %q", info.State, info.Reason, tt.state, tt.reason)
			}
			if tt.reason != "" && r.stopped.as != StateTimedOut {
				t.Errorf("the run is to end %q, want %s", r.stopped.as, StateTimedOut)
			}
			if got := r.input.state == inputClosed && tt.in.state != inputClosed; got != tt.closesInput {
				t.Errorf("input closed by the watchdog = %v, want %v", got, tt.closesInput)
			}
		})
	}
}

// TestWhenTheWatchdogLooksNext puts a run in each situation the watchdog looks at and
// checks when it wakes next (deadlineLocked): only when something may be due, never on a
// tick. A run waiting for a person, or for its agent's next output, sleeps until its
// limit.
func TestWhenTheWatchdogLooksNext(t *testing.T) {
	cfg := Config{MaxDuration: time.Hour, IdleTimeout: time.Minute, StopGrace: 10 * time.Second}
	start := time.Date(2026, 1, 2, 15, 0, 0, 0, time.UTC)
	lastOutput := start.Add(5 * time.Minute)
	tests := []struct {
		name    string
		from    phase
		started bool
		in      input
		pending int
		want    time.Time // zero: nothing is due
	}{
		{"a run not started yet has no limit running", phaseRunning, false, input{}, 0, time.Time{}},
		{"a busy run wakes at its idle timeout", phaseRunning, true, input{state: inputBusy, out: 1}, 0, lastOutput.Add(time.Minute)},
		{"a kept-open run waiting for your reply wakes at its idle timeout", phaseRunning, true, input{state: inputIdle, results: 1}, 0, lastOutput.Add(time.Minute)},
		{"a run waiting for a person wakes only at its maximum duration", phaseRunning, true, input{state: inputBusy, out: 1}, 1, start.Add(time.Hour)},
		{"a finished run whose input closed gets a stop grace more", phaseRunning, true, input{state: inputClosed, results: 1}, 0, lastOutput.Add(time.Minute + 10*time.Second)},
		{"a run closed in its turn wakes at its idle timeout", phaseRunning, true, input{state: inputClosed, out: 1}, 0, lastOutput.Add(time.Minute)},
		{"a stopping run wakes at the end of its stop grace", phaseStopping, true, input{state: inputBusy, out: 1}, 0, start.Add(30*time.Minute + 10*time.Second)},
		{"a killed run waits for nothing more", phaseKilling, true, input{state: inputBusy, out: 1}, 0, time.Time{}},
		{"an exited run is not watched", phaseExited, true, input{state: inputBusy, out: 1}, 0, time.Time{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r, _ := phaseRun(t, tt.from, tt.started)
			r.input, r.pending = tt.in, tt.pending
			r.info.Start = start
			r.stopped.at = start.Add(30 * time.Minute)
			r.lastActivity.Store(lastOutput.UnixNano())
			r.mu.Lock()
			got := r.deadlineLocked(cfg)
			r.mu.Unlock()
			if !got.Equal(tt.want) {
				t.Errorf("next wake at %v, want %v", got, tt.want)
			}
		})
	}
	r, _ := phaseRun(t, phaseRunning, true)
	r.input, r.info.Start = input{state: inputBusy, out: 1}, start
	r.lastActivity.Store(start.Add(59 * time.Minute).UnixNano())
	r.mu.Lock()
	got := r.deadlineLocked(cfg)
	r.mu.Unlock()
	if !got.Equal(start.Add(time.Hour)) {
		t.Errorf("a chatty run near its maximum duration wakes at %v, want at that duration %v", got, start.Add(time.Hour))
	}
}
