package runs

import (
	"context"
	"errors"
	"io"
	"os"
	"os/exec"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/segwi/segwi/approvals"
	"github.com/segwi/segwi/internal/testing/await"
)

// catRuntime is a Runtime whose agent is cat: each message it is sent comes back as a line
// of its output, which its session parses as a turn, a text and then a result ("fail" in
// the message makes the result an error). It speaks the interface the way Claude Code's
// runtime does, with nothing of Claude Code: a run that it drives needs only the seam.
type catRuntime struct {
	// linger makes the agent stay once its input is closed, as an ACP agent does: cat,
	// then a long sleep. Its session says so (runs.Lingering).
	linger bool
	// deaf makes every message the run sends fail to reach the agent.
	deaf bool
}

func (rt catRuntime) Name() string {
	switch {
	case rt.linger:
		return "lingering-cat"
	case rt.deaf:
		return "deaf-cat"
	}
	return "cat"
}
func (catRuntime) Check() error { return nil }

func (rt catRuntime) Start(l Launch) (Session, error) {
	cat, err := exec.LookPath("cat")
	if err != nil {
		return nil, err
	}
	inR, inW, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	outR, outW, err := os.Pipe()
	if err != nil {
		inR.Close()
		inW.Close()
		return nil, err
	}
	cmd := &exec.Cmd{Path: cat, Args: []string{"cat"}, Dir: l.Checkout, Env: l.Env, Stdin: inR, Stdout: outW, Stderr: outW}
	if rt.linger {
		sh, err := exec.LookPath("sh")
		if err != nil {
			return nil, err
		}
		cmd.Path, cmd.Args = sh, []string{"sh", "-c", "cat; exec sleep 1000"}
	}
	err = l.Start(cmd)
	inR.Close()
	outW.Close()
	if err != nil {
		inW.Close()
		outR.Close()
		return nil, err
	}
	if rt.linger {
		return lingeringSession{&catSession{in: inW, out: outR}}, nil
	}
	return &catSession{in: inW, out: outR, deaf: rt.deaf}, nil
}

// lingeringSession is a catSession whose agent does not exit once its input closes.
type lingeringSession struct{ *catSession }

func (lingeringSession) Lingers() bool { return true }

// catSession is catRuntime's session; it counts what the run tells it.
type catSession struct {
	in, out *os.File
	deaf    bool // see catRuntime

	mu        sync.Mutex
	connected int
	closed    int
}

func (s *catSession) Send(text string) error {
	if s.deaf {
		return errors.New("the agent's input is gone")
	}
	_, err := s.in.WriteString(strings.ReplaceAll(text, "\n", " ") + "\n")
	return err
}

func (s *catSession) CloseInput() error { return s.in.Close() }
func (s *catSession) Output() io.Reader { return s.out }

func (s *catSession) Parse(line []byte, emit func(Event)) {
	if len(line) == 0 {
		return
	}
	emit(Event{Type: EventText, Text: string(line)})
	emit(Event{Type: EventResult, Result: &ResultInfo{NumTurns: 1, IsError: strings.Contains(string(line), "fail")}})
}

func (s *catSession) Connected() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.connected++
	return nil
}

func (s *catSession) Close() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.closed++
	return s.out.Close()
}

// catManager returns a Manager whose runs run cat (catRuntime), stopped at the test's end;
// each of with changes its Config first.
func catManager(t *testing.T, with ...func(*Config)) *Manager {
	t.Helper()
	cfg := Config{Runtime: catRuntime{}, Runtimes: []Runtime{catRuntime{linger: true}, catRuntime{deaf: true}}, StateDir: t.TempDir(), StopGrace: 300 * time.Millisecond,
		Env: []string{"PATH=" + os.Getenv("PATH"), "HOME=" + t.TempDir()}}
	for _, f := range with {
		f(&cfg)
	}
	m, err := NewManager(cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		m.StopAll(ctx)
	})
	return m
}

// TestARunDrivesAnyRuntime runs an agent that is not Claude Code through the runtime seam
// alone: the run's life (its queue, states, conversation, follow-ups, the close of its
// input, its stop, its record) is the same, and needs nothing of package runs/claude,
// which this package does not import.
func TestARunDrivesAnyRuntime(t *testing.T) {
	m := catManager(t)
	r, err := m.Start(context.Background(), Spec{Kind: KindBuild, Checkout: newCheckout(t), Prompt: "hello", KeepOpen: true})
	if err != nil {
		t.Fatal(err)
	}
	waitingForYou := func() bool { return r.State() == StateWaiting && r.Info().Waiting == WaitReply }
	await.For(t, 10*time.Second, "the run to wait for your reply after its first turn", waitingForYou)
	if err := r.Send("and again"); err != nil {
		t.Fatalf("Send: %v", err)
	}
	await.For(t, 10*time.Second, "the run to wait for your reply after the follow-up's turn", waitingForYou)
	r.CloseInput()
	info := wait(t, r)
	if info.State != StateSucceeded || info.ExitCode == nil || *info.ExitCode != 0 || info.Turns != 1 {
		t.Fatalf("ended %s (%s), exit %v, %d turns; want succeeded, exit 0", info.State, info.Reason, info.ExitCode, info.Turns)
	}
	if !slices.Equal(info.Argv, []string{"cat"}) || info.PID == 0 {
		t.Errorf("argv %q, pid %d; want cat's, as its runtime started it", info.Argv, info.PID)
	}
	var said []string
	for _, e := range events(t, m, r.ID()) {
		switch e.Type {
		case EventPrompt:
			said = append(said, "> "+e.Text)
		case EventText:
			said = append(said, "< "+e.Text)
		}
	}
	if want := []string{"> hello", "< hello", "> and again", "< and again"}; !slices.Equal(said, want) {
		t.Errorf("the conversation = %q, want %q", said, want)
	}
	want := []State{StateQueued, StateStarting, StateRunning, StateWaiting, StateRunning, StateWaiting, StateRunning, StateSucceeded}
	if got := states(events(t, m, r.ID())); !slices.Equal(got, want) {
		t.Errorf("states = %v, want %v", got, want)
	}

	t.Run("and stops it", func(t *testing.T) {
		r, err := m.Start(context.Background(), Spec{Kind: KindAsk, Checkout: newCheckout(t), Prompt: "wait", KeepOpen: true})
		if err != nil {
			t.Fatal(err)
		}
		await.For(t, 10*time.Second, "the run to wait for your reply", func() bool { return r.State() == StateWaiting })
		r.Stop()
		if info := wait(t, r); info.State != StateStopped || info.Reason != "stopped by a person" {
			t.Errorf("ended %s (%s), want stopped by a person", info.State, info.Reason)
		}
	})
	t.Run("and fails it when its last turn failed", func(t *testing.T) {
		r, err := m.Start(context.Background(), Spec{Kind: KindBuild, Checkout: newCheckout(t), Prompt: "fail please"})
		if err != nil {
			t.Fatal(err)
		}
		if info := wait(t, r); info.State != StateFailed || info.Reason != "the last turn ended with an error" {
			t.Errorf("ended %s (%s), want failed by its last turn", info.State, info.Reason)
		}
	})
}

// A task that cannot be written to the agent is said in the run's record, as a follow-up's
// failed write is: the person sees why the agent does nothing.
func TestATaskThatCannotReachTheAgentIsRecorded(t *testing.T) {
	m := catManager(t)
	r, err := m.Start(context.Background(), Spec{Kind: KindBuild, Checkout: newCheckout(t), Prompt: "hello", KeepOpen: true, Runtime: "deaf-cat"})
	if err != nil {
		t.Fatal(err)
	}
	waitEvent(t, m, r.ID(), func(e Event) bool {
		return e.Type == EventStatus && e.Subtype == "input" && strings.Contains(e.Text, "the agent's input is gone")
	})
	r.Stop()
	wait(t, r)
}

// TestARunEndsAnAgentThatLingers: an agent that stays once its input is closed (an ACP
// agent does) is ended by the run once its last turn is over, well before the idle
// timeout, and the run ends as its results say, not as the signal that ended it; it runs
// on the runtime its Spec names, which the record keeps.
func TestARunEndsAnAgentThatLingers(t *testing.T) {
	m := catManager(t)
	r, err := m.Start(context.Background(), Spec{Kind: KindBuild, Checkout: newCheckout(t), Prompt: "hello", Runtime: "lingering-cat"})
	if err != nil {
		t.Fatal(err)
	}
	info := wait(t, r)
	if info.State != StateSucceeded || info.Runtime != "lingering-cat" {
		t.Fatalf("ended %s (%s) on runtime %q; want succeeded on lingering-cat", info.State, info.Reason, info.Runtime)
	}
	if got := info.Argv; len(got) < 1 || got[0] != "sh" {
		t.Errorf("argv %q, want the lingering agent's", got)
	}

	t.Run("and refuses a runtime nobody configured", func(t *testing.T) {
		_, err := m.Start(context.Background(), Spec{Kind: KindBuild, Checkout: newCheckout(t), Prompt: "x", Runtime: "codex"})
		if !errors.Is(err, ErrUnknownRuntime) || !strings.Contains(err.Error(), "segwi.runtimes") {
			t.Errorf("Start on an unknown runtime: %v, want ErrUnknownRuntime naming segwi.runtimes", err)
		}
	})
}

// agentsApprovals registers every run and keeps the agent each one was registered with.
type agentsApprovals struct {
	mu     sync.Mutex
	agents map[string]string // by run id
}

func (a *agentsApprovals) Register(info approvals.RunInfo, _ approvals.Run) (approvals.Registration, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.agents[info.ID] = info.Agent
	return approvals.Registration{URL: "http://127.0.0.1:1/mcp", Token: "tok-" + info.ID + "-secretsecret"}, nil
}

func (a *agentsApprovals) Unregister(string) {}

// TestARunTellsTheApprovalsItsAgent: a run on a runtime its Spec names (an ACP agent)
// registers with the approvals under that runtime's name, so that the answers the
// approvals word name that agent, not Claude Code; a run on the default runtime
// (Claude Code's) registers with none, which the approvals call Claude Code.
func TestARunTellsTheApprovalsItsAgent(t *testing.T) {
	fa := &agentsApprovals{agents: map[string]string{}}
	m, err := NewManager(Config{Runtime: catRuntime{}, Runtimes: []Runtime{catRuntime{linger: true}}, StateDir: t.TempDir(), StopGrace: 300 * time.Millisecond,
		Env: []string{"PATH=" + os.Getenv("PATH"), "HOME=" + t.TempDir()}, Approvals: fa})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		m.StopAll(ctx)
	})
	for runtime, want := range map[string]string{"": "", "lingering-cat": "lingering-cat"} {
		r, err := m.Start(context.Background(), Spec{Kind: KindBuild, Checkout: newCheckout(t), Prompt: "hello", Runtime: runtime})
		if err != nil {
			t.Fatal(err)
		}
		wait(t, r)
		fa.mu.Lock()
		got, ok := fa.agents[r.ID()]
		fa.mu.Unlock()
		if !ok || got != want {
			t.Errorf("run on runtime %q registered with agent %q (registered: %v), want %q", runtime, got, ok, want)
		}
	}
}
