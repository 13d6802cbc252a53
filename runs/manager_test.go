package runs

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/segwi/segwi/approvals"
	"github.com/segwi/segwi/internal/testing/await"
)

// release returns a file path whose creation lets a "fake:hold=PATH" run finish.
func release(t *testing.T) (path string, open func()) {
	path = filepath.Join(t.TempDir(), "release")
	return path, func() {
		if err := os.WriteFile(path, nil, 0o600); err != nil {
			t.Fatal(err)
		}
	}
}

func TestQueuedRunsStartInOrderWithinMaxConcurrent(t *testing.T) {
	m, recDir := testManager(t, func(c *Config) { c.MaxConcurrent = 1 })
	var runs []*Run
	var opens []func()
	for range 3 {
		path, open := release(t)
		runs = append(runs, start(t, m, Spec{Kind: KindAsk, Prompt: "fake:hold=" + path}))
		opens = append(opens, open)
	}
	waitStart(t, recDir, runs[0].ID())
	for _, r := range runs[1:] {
		if got := r.State(); got != StateQueued {
			t.Errorf("run %s is %s while the first runs, want queued", r.ID(), got)
		}
	}
	if got := len(m.Runs()); got != 3 {
		t.Errorf("Runs() holds %d runs, want 3", got)
	}
	// Release the last first: order must still follow the queue.
	opens[2]()
	opens[1]()
	opens[0]()
	var started []int64
	for _, r := range runs {
		if info := wait(t, r); info.State != StateSucceeded {
			t.Fatalf("run %s: %s (%s), want succeeded", r.ID(), info.State, info.Reason)
		}
		started = append(started, waitStart(t, recDir, r.ID()).Started)
	}
	if !slices.IsSorted(started) {
		t.Errorf("start times %v are not in queue order", started)
	}
	for i := 1; i < len(runs); i++ {
		prev, cur := runs[i-1].Info(), runs[i].Info()
		if cur.Start.Before(prev.End) {
			t.Errorf("run %d started at %s before run %d ended at %s, with maxConcurrent 1", i, cur.Start, i-1, prev.End)
		}
	}
}

// The secrets to redact (the keyring's token: several calls over D-Bus) are asked once
// for a run that starts at once, not again a moment later as its agent starts. A run that
// waited in the queue asks again as it starts: a token set meanwhile is redacted from its
// output.
func TestARunAsksForTheSecretsAgainOnlyWhenItWaited(t *testing.T) {
	var mu sync.Mutex
	asked, secret := 0, "an-old-token-0123456789"
	m, recDir := testManager(t, func(c *Config) {
		c.MaxConcurrent = 1
		c.Secrets = func() []string {
			mu.Lock()
			defer mu.Unlock()
			asked++
			return []string{secret}
		}
	})
	times := func() int {
		mu.Lock()
		defer mu.Unlock()
		return asked
	}
	path, open := release(t)
	first := start(t, m, Spec{Kind: KindAsk, Prompt: "fake:hold=" + path})
	waitStart(t, recDir, first.ID())
	if n := times(); n != 1 {
		t.Errorf("the secrets were asked %d times for a run that started at once, want once", n)
	}

	second := start(t, m, Spec{Kind: KindAsk, Prompt: "fake:success"})
	queued := time.Now()
	mu.Lock()
	secret = "Looking at the checkout" // set while the run waits; its agent prints it
	mu.Unlock()
	await.For(t, 10*time.Second, "the second run to wait longer than secretsFresh", func() bool {
		return time.Since(queued) > secretsFresh
	})
	open()
	if info := wait(t, second); info.State != StateSucceeded {
		t.Fatalf("run %s: %s (%s), want succeeded", second.ID(), info.State, info.Reason)
	}
	if n := times(); n != 3 {
		t.Errorf("the secrets were asked %d times for a run that started at once and one that waited, want 3", n)
	}
	data, err := os.ReadFile(filepath.Join(second.Dir(), "output.log"))
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(data), "Looking at the checkout") || !strings.Contains(string(data), "[REDACTED]") {
		t.Errorf("the output of the run that waited does not have the token set meanwhile redacted:\n%s", data)
	}
}

// A run's record says starting from the moment its start has a slow step to take before
// its agent's process starts (here, the keyring read again after a wait in the queue),
// not only once its agent started: `segwi runs` never shows it queued meanwhile. A start
// without one (the first run's) writes starting to its record only with its cgroup's
// note, a moment later; its events say starting at once all the same.
func TestARunsRecordSaysStartingWhileItsStartWaits(t *testing.T) {
	var mu sync.Mutex
	armed := false // the next read is the second run's start's, after its wait in the queue
	reading, done := make(chan struct{}), make(chan struct{})
	m, recDir := testManager(t, func(c *Config) {
		c.MaxConcurrent = 1
		c.Secrets = func() []string {
			mu.Lock()
			held := armed
			armed = false
			mu.Unlock()
			if held {
				close(reading)
				<-done
			}
			return nil
		}
	})
	path, open := release(t)
	first := start(t, m, Spec{Kind: KindAsk, Prompt: "fake:hold=" + path})
	waitStart(t, recDir, first.ID())
	second := start(t, m, Spec{Kind: KindAsk, Prompt: "fake:success"})
	queued := time.Now()
	await.For(t, 10*time.Second, "the second run to wait longer than secretsFresh", func() bool {
		return time.Since(queued) > secretsFresh
	})
	if info, err := readInfo(second.Dir()); err != nil || info.State != StateQueued {
		t.Fatalf("the record of the run waiting in the queue: %s, %v; want queued", info.State, err)
	}
	mu.Lock()
	armed = true
	mu.Unlock()
	open()
	select {
	case <-reading:
	case <-time.After(20 * time.Second):
		t.Fatal("the second run's start did not read the secrets again")
	}
	info, err := readInfo(second.Dir())
	close(done)
	if err != nil || info.State != StateStarting {
		t.Errorf("the record of a run whose start reads the keyring: %s, %v; want starting", info.State, err)
	}
	for _, r := range []*Run{first, second} {
		if info := wait(t, r); info.State != StateSucceeded {
			t.Fatalf("run %s: %s (%s), want succeeded", r.ID(), info.State, info.Reason)
		}
		states := []State{}
		for _, e := range events(t, m, r.ID()) {
			if e.Type == EventState {
				states = append(states, e.State.To)
			}
		}
		if want := []State{StateQueued, StateStarting, StateRunning, StateSucceeded}; !slices.Equal(states, want) {
			t.Errorf("run %s's states %v, want %v", r.ID(), states, want)
		}
	}
}

func TestOneWritingRunPerCheckout(t *testing.T) {
	m, recDir := testManager(t, nil)
	shared, other := newCheckout(t), newCheckout(t)
	holdA, openA := release(t)
	holdB, openB := release(t)
	holdC, openC := release(t)
	holdD, openD := release(t)
	a := start(t, m, Spec{Kind: KindBuild, Checkout: shared, Prompt: "fake:hold=" + holdA})
	b := start(t, m, Spec{Kind: KindReady, Checkout: shared, Prompt: "fake:hold=" + holdB})
	c := start(t, m, Spec{Kind: KindAsk, Checkout: shared, Prompt: "fake:hold=" + holdC})
	d := start(t, m, Spec{Kind: KindBuild, Checkout: other, Prompt: "fake:hold=" + holdD})
	for _, r := range []*Run{a, c, d} {
		waitStart(t, recDir, r.ID())
	}
	if got := b.State(); got != StateQueued {
		t.Errorf("a ready run on a checkout held by a build run is %s, want queued", got)
	}
	openC()
	openD()
	wait(t, c)
	wait(t, d)
	if got := b.State(); got != StateQueued {
		t.Errorf("after other runs ended, the ready run is %s, want still queued behind the build run", got)
	}
	openA()
	wait(t, a)
	waitStart(t, recDir, b.ID())
	openB()
	if info := wait(t, b); info.State != StateSucceeded || info.Start.Before(a.Info().End) {
		t.Errorf("ready run: %s starting %s, want succeeded after the build run ended at %s", info.State, info.Start, a.Info().End)
	}
}

func TestStoppingAQueuedRunTakesItOffTheQueue(t *testing.T) {
	m, recDir := testManager(t, func(c *Config) { c.MaxConcurrent = 1 })
	hold, open := release(t)
	first := start(t, m, Spec{Prompt: "fake:hold=" + hold})
	queued := start(t, m, Spec{Prompt: "fake:success"})
	waitStart(t, recDir, first.ID())
	queued.Stop()
	if info := wait(t, queued); info.State != StateStopped || info.PID != 0 {
		t.Errorf("got %s pid %d, want stopped without a process", info.State, info.PID)
	}
	open()
	wait(t, first)
	third := start(t, m, Spec{Prompt: "fake:success"})
	if info := wait(t, third); info.State != StateSucceeded {
		t.Errorf("a run after the stopped one: %s (%s), want succeeded (the slot was not lost)", info.State, info.Reason)
	}
}

func TestStopAllStopsEveryRunAndRefusesNewOnes(t *testing.T) {
	m, recDir := testManager(t, func(c *Config) { c.MaxConcurrent = 1 })
	running := start(t, m, Spec{Prompt: "fake:silent"})
	queued := start(t, m, Spec{Prompt: "fake:silent"})
	waitStart(t, recDir, running.ID())
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := m.StopAll(ctx); err != nil {
		t.Fatalf("StopAll: %v", err)
	}
	for _, r := range []*Run{running, queued} {
		if info := r.Info(); info.State != StateStopped {
			t.Errorf("run %s: %s, want stopped", r.ID(), info.State)
		}
	}
	if _, err := m.Start(context.Background(), Spec{Kind: KindBuild, Checkout: newCheckout(t), Prompt: "x"}); !errors.Is(err, ErrClosed) {
		t.Errorf("Start after StopAll: got %v, want ErrClosed", err)
	}
}

func TestStartRefusesWhatCannotRun(t *testing.T) {
	m, _ := testManager(t, nil)
	file := filepath.Join(t.TempDir(), "file")
	os.WriteFile(file, nil, 0o600)
	plain := t.TempDir()
	checkout := newCheckout(t)
	inside := filepath.Join(checkout, "cmd")
	os.Mkdir(inside, 0o755)
	tests := []struct {
		name   string
		change func(*Config)
		spec   Spec
		want   string
	}{
		{"a missing claude names the setting", func(c *Config) { c.Runtime = ClaudeRuntime("/nonexistent/claude") }, Spec{Kind: KindBuild, Checkout: newCheckout(t), Prompt: "x"}, "segwi.claude.path"},
		{"a checkout that is a file", nil, Spec{Kind: KindBuild, Checkout: file, Prompt: "x"}, "is not a directory"},
		{"a checkout that does not exist", nil, Spec{Kind: KindBuild, Checkout: "/nonexistent/dir", Prompt: "x"}, "does not exist"},
		{"a folder that is not a git checkout, saying what to do", nil, Spec{Kind: KindAsk, Checkout: plain, Prompt: "x"},
			plain + " is not a git checkout (it has no .git): runs work in the top folder of a git checkout; use one, or make this folder one with git init"},
		{"a folder inside a checkout, naming the checkout", nil, Spec{Kind: KindBuild, Checkout: inside, Prompt: "x"},
			inside + " is not the top folder of a git checkout (it is inside " + checkout + ")"},
		{"a build run without a task", nil, Spec{Kind: KindBuild, Checkout: checkout}, "needs a task"},
		{"an unknown kind", nil, Spec{Kind: "plan", Checkout: checkout, Prompt: "x"}, "unknown run kind"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg := m.config()
			if tt.change != nil {
				tt.change(&cfg)
			}
			m.SetConfig(cfg)
			defer m.SetConfig(m.config())
			_, err := m.Start(context.Background(), tt.spec)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("got %v, want an error saying %q", err, tt.want)
			}
			m.SetConfig(Config{Runtime: ClaudeRuntime(fakeClaude), Env: cfg.Env, StopGrace: cfg.StopGrace})
		})
	}
	if runs, _, _ := List(m.config().StateDir); len(runs) != 0 {
		t.Errorf("refused starts left %d runs on record", len(runs))
	}
}

func TestLoadAndReadEventsOfUnknownRuns(t *testing.T) {
	state := t.TempDir()
	for _, id := range []string{"nope", "../etc", ""} {
		if _, err := Load(state, id); !errors.Is(err, ErrNotFound) {
			t.Errorf("Load(%q): got %v, want ErrNotFound", id, err)
		}
		if err := ReadEvents(state, id, func(Event) error { return nil }); !errors.Is(err, ErrNotFound) {
			t.Errorf("ReadEvents(%q): got %v, want ErrNotFound", id, err)
		}
	}
}

// fakeApprovals records registrations; it fails the test on a second Register of a run.
type fakeApprovals struct {
	t            *testing.T
	mu           sync.Mutex
	runs         map[string]approvals.Run
	unregistered []string
}

func (f *fakeApprovals) Register(info approvals.RunInfo, run approvals.Run) (approvals.Registration, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if _, ok := f.runs[info.ID]; ok {
		f.t.Errorf("run %s registered twice", info.ID)
	}
	f.runs[info.ID] = run
	return approvals.Registration{URL: "http://127.0.0.1:1/mcp", Token: "tok-" + info.ID + "-secretsecret"}, nil
}

func (f *fakeApprovals) Unregister(id string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.unregistered = append(f.unregistered, id)
}

func (f *fakeApprovals) run(id string) approvals.Run {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.runs[id]
}

func TestApprovalsAreWiredIntoARun(t *testing.T) {
	fa := &fakeApprovals{t: t, runs: map[string]approvals.Run{}}
	m, recDir := testManager(t, func(c *Config) { c.Approvals = fa })
	hold, open := release(t)
	r := start(t, m, Spec{Kind: KindAsk, Prompt: "fake:hold=" + hold})
	rec := waitStart(t, recDir, r.ID())
	token := "tok-" + r.ID() + "-secretsecret"

	mcpPath := filepath.Join(r.Dir(), mcpFile)
	st, err := os.Stat(mcpPath)
	if err != nil || st.Mode().Perm() != 0o600 {
		t.Fatalf("mcp.json: %v, mode %v; want mode 0600", err, st.Mode().Perm())
	}
	b, _ := os.ReadFile(mcpPath)
	var doc struct {
		MCPServers map[string]struct {
			Headers map[string]string `json:"headers"`
		} `json:"mcpServers"`
	}
	json.Unmarshal(b, &doc)
	if got := doc.MCPServers["segwi"].Headers["Authorization"]; got != "Bearer "+token {
		t.Errorf("mcp.json Authorization = %q, want the run's token", got)
	}
	args := strings.Join(rec.Args, " ")
	if !strings.Contains(args, "--permission-prompt-tool mcp__segwi__approve --mcp-config "+mcpPath) || strings.Contains(args, token) {
		t.Errorf("argv %q: want the prompt tool and mcp.json, never the token", args)
	}
	for _, kv := range rec.Env {
		if strings.Contains(kv, token) {
			t.Errorf("the token is in the environment: %s", kv)
		}
	}

	ar := fa.run(r.ID())
	exact := approvals.Request{ID: "q1", ToolName: "Bash", ToolUseID: "toolu_9",
		Input: json.RawMessage(`{"command":"echo ` + token + `"}`), Note: "Not checked against your trusted commands: too long."}
	ar.RecordApproval(approvals.Record{Request: exact})
	ar.SetPending(1)
	if got := r.State(); got != StateWaiting {
		t.Errorf("with a pending request: %s, want waiting", got)
	}
	ar.RecordApproval(approvals.Record{Request: approvals.Request{ID: "q1", ToolName: "Bash"},
		Answer: &approvals.Answer{By: approvals.ByPerson, Who: "phone (alice@example.com)", Message: "no, " + token, Waited: 1500 * time.Millisecond}})
	ar.SetPending(0)
	if got := r.State(); got != StateRunning {
		t.Errorf("once answered: %s, want running", got)
	}
	open()
	if info := wait(t, r); info.State != StateSucceeded {
		t.Fatalf("got %s (%s), want succeeded", info.State, info.Reason)
	}
	if !slices.Equal(fa.unregistered, []string{r.ID()}) {
		t.Errorf("unregistered %v, want [%s]", fa.unregistered, r.ID())
	}
	evs := events(t, m, r.ID())
	req, ok1 := find(evs, func(e Event) bool { return e.Type == EventApprovalRequest })
	ans, ok2 := find(evs, func(e Event) bool { return e.Type == EventApprovalAnswer })
	if !ok1 || !ok2 || req.ToolUseID != "toolu_9" || req.Approval.Note != "Not checked against your trusted commands: too long." ||
		ans.Approval.By != "person" || ans.Approval.Who != "phone (alice@example.com)" || ans.Approval.WaitedMS != 1500 {
		t.Errorf("approval events: request %+v, answer %+v", req, ans)
	}
	// The request's input is recorded redacted, with the SHA-256 of what the person saw
	// beside it: an audit can tell what was approved.
	if sum := sha256.Sum256(exact.Input); !ok1 || req.Approval.InputSHA256 != hex.EncodeToString(sum[:]) || strings.Contains(string(req.Input), token) {
		t.Errorf("approval request recorded input %s and SHA-256 %q; want it redacted and the exact input's %x", req.Input, req.Approval.InputSHA256, sum)
	}
	if got := states(evs); !slices.Contains(got, StateWaiting) {
		t.Errorf("states %v lack waiting", got)
	}
	for _, name := range []string{infoFile, eventsFile, outputFile} {
		b, _ := os.ReadFile(filepath.Join(r.Dir(), name))
		if strings.Contains(string(b), token) {
			t.Errorf("%s holds the run's token", name)
		}
	}
}

// The tray app and a segwi run are two processes, each with its own Manager: they must not
// write in one checkout at once either.
func TestOneWritingRunPerCheckoutAcrossManagers(t *testing.T) {
	m1, recDir := testManager(t, nil)
	m2, err := NewManager(m1.cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { m2.StopAll(context.Background()) })
	shared := newCheckout(t)
	holdA, openA := release(t)
	holdB, openB := release(t)
	a := start(t, m1, Spec{Kind: KindBuild, Checkout: shared, Prompt: "fake:hold=" + holdA})
	waitStart(t, recDir, a.ID())
	b := start(t, m2, Spec{Kind: KindBuild, Checkout: shared, Prompt: "fake:hold=" + holdB})
	await.For(t, 10*time.Second, "the second run to say what it waits for", func() bool {
		found := false
		ReadEvents(m2.cfg.StateDir, b.ID(), func(e Event) error {
			found = found || (e.Type == EventStatus && strings.Contains(e.Text, "another segwi"))
			return nil
		})
		return found
	})
	if got := b.State(); got != StateQueued {
		t.Fatalf("a build run in a checkout another segwi's build run writes in is %s, want queued", got)
	}
	openA()
	wait(t, a)
	waitStart(t, recDir, b.ID())
	openB()
	if info := wait(t, b); info.State != StateSucceeded || info.Start.Before(a.Info().End) {
		t.Errorf("second run: %s starting %s, want succeeded after the first ended at %s", info.State, info.Start, a.Info().End)
	}
}

// A run lives as long as the context it was started with: when that ends, the run is
// stopped as Stop does (two steps), saying why; a run still queued leaves the queue.
func TestARunStopsWhenItsContextEnds(t *testing.T) {
	m, recDir := testManager(t, func(c *Config) { c.MaxConcurrent = 1 })
	ctx, cancel := context.WithCancelCause(context.Background())
	running, err := m.Start(ctx, Spec{Kind: KindBuild, Checkout: newCheckout(t), Prompt: "fake:silent"})
	if err != nil {
		t.Fatal(err)
	}
	queued, err := m.Start(ctx, Spec{Kind: KindBuild, Checkout: newCheckout(t), Prompt: "fake:success"})
	if err != nil {
		t.Fatal(err)
	}
	waitStart(t, recDir, running.ID())
	if got := queued.State(); got != StateQueued {
		t.Fatalf("the second run is %s, want queued behind the first", got)
	}
	cancel(errors.New("the canary's time is up"))
	if info := wait(t, running); info.State != StateStopped || info.Reason != "the canary's time is up" {
		t.Errorf("the running run ended %s (%s), want stopped for the context's cause", info.State, info.Reason)
	}
	if info := wait(t, queued); info.State != StateStopped || info.PID != 0 || info.Reason != "the canary's time is up before it started" {
		t.Errorf("the queued run ended %s (%s), pid %d; want stopped before it started", info.State, info.Reason, info.PID)
	}
	if got := states(events(t, m, running.ID())); !slices.Equal(got[len(got)-2:], []State{StateStopping, StateStopped}) {
		t.Errorf("states = %v, want them to end stopping, stopped", got)
	}

	plain, cancelPlain := context.WithCancel(context.Background())
	r, err := m.Start(plain, Spec{Kind: KindBuild, Checkout: newCheckout(t), Prompt: "fake:silent"})
	if err != nil {
		t.Fatal(err)
	}
	waitStart(t, recDir, r.ID())
	cancelPlain()
	if info := wait(t, r); info.State != StateStopped || info.Reason != "its context was cancelled" {
		t.Errorf("a run whose context was cancelled ended %s (%s), want stopped saying so", info.State, info.Reason)
	}
}

// A message the run took is written before the input closes, however close the close
// comes after it: the prompt first, then each message taken, then the close. A close that
// came first refuses the message, saying the input is closed.
func TestAMessageTakenIsWrittenBeforeTheInputCloses(t *testing.T) {
	m, recDir := testManager(t, nil)
	for i := range 5 {
		r := start(t, m, Spec{Prompt: "fake:success", KeepOpen: true})
		await.For(t, 10*time.Second, "the run to start", func() bool { return r.State() == StateRunning || r.State() == StateWaiting })
		sent := make(chan error, 1)
		go func() { sent <- r.Send("one") }()
		r.CloseInput()
		err := <-sent
		if info := wait(t, r); info.State != StateSucceeded {
			t.Fatalf("run %d ended %s (%s), want succeeded", i, info.State, info.Reason)
		}
		answered := false
		for _, e := range events(t, m, r.ID()) {
			answered = answered || e.Type == EventText && e.Text == "follow-up: one"
		}
		switch {
		case err == nil && !answered:
			t.Errorf("run %d took the message but Claude Code never got it before its input closed", i)
		case err != nil && !errors.Is(err, ErrInputClosed):
			t.Errorf("run %d refused the message with %v, want ErrInputClosed", i, err)
		}
		if rec := waitStart(t, recDir, r.ID()); !strings.Contains(rec.Prompt, "fake:success") {
			t.Errorf("run %d: Claude Code's first message is %q, want the prompt", i, rec.Prompt)
		}
	}
}
