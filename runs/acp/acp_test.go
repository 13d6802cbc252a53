package acp_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/segwi/segwi/approvals"
	"github.com/segwi/segwi/approvals/mcpserver"
	"github.com/segwi/segwi/internal/testing/await"
	"github.com/segwi/segwi/internal/testing/claudetest"
	"github.com/segwi/segwi/runs"
	"github.com/segwi/segwi/runs/acp"
)

// fakeACP builds the test double of an ACP agent (testdata/fakeacp) once.
var fakeACP = sync.OnceValues(func() (string, error) {
	dir, err := os.MkdirTemp("", "fakeacp")
	if err != nil {
		return "", err
	}
	bin := filepath.Join(dir, "fakeacp")
	out, err := exec.Command("go", "build", "-o", bin, "./testdata/fakeacp").CombinedOutput()
	if err != nil {
		return "", &buildError{string(out), err}
	}
	return bin, nil
})

type buildError struct {
	out string
	err error
}

func (e *buildError) Error() string { return "building fakeacp: " + e.err.Error() + "\n" + e.out }

// secret is a string every run is to keep out of its record.
const secret = "sekrit-7f3a9c2e1b"

// decider answers requests as a person would: an allow for a call whose input holds
// "allow-me", a deny with a reason for any other. It keeps what it was shown.
type decider struct {
	mu   sync.Mutex
	seen []approvals.Request
}

func (d *decider) Decide(_ context.Context, req approvals.Request) (approvals.Answer, error) {
	d.mu.Lock()
	d.seen = append(d.seen, req)
	d.mu.Unlock()
	if strings.Contains(string(req.Input), "allow-me") {
		return approvals.Answer{Allow: true, By: approvals.ByPerson}, nil
	}
	return approvals.Answer{By: approvals.ByPerson, Message: "not this one: use ls instead"}, nil
}

func (d *decider) requests() []approvals.Request {
	d.mu.Lock()
	defer d.mu.Unlock()
	return append([]approvals.Request(nil), d.seen...)
}

// harness is a Manager whose runs run the fake ACP agent, with an approvals server that
// d answers.
type harness struct {
	m     *runs.Manager
	d     *decider
	srv   *mcpserver.Server
	state string
}

func newHarness(t *testing.T, env map[string]string) *harness {
	t.Helper()
	bin, err := fakeACP()
	if err != nil {
		t.Fatal(err)
	}
	return harnessFor(t, acp.Runtime{RuntimeName: "fake", Command: []string{bin}, Env: env}, 30*time.Second, nil)
}

// harnessFor is a harness whose runs run rt, with an approvals server that waits at most
// timeout for d's answer; change, when not nil, changes the Manager's settings.
func harnessFor(t *testing.T, rt runs.Runtime, timeout time.Duration, change func(*runs.Config)) *harness {
	t.Helper()
	d := &decider{}
	srv, err := mcpserver.New(mcpserver.Config{Decider: d, Timeout: timeout})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { srv.Close() })
	h := &harness{d: d, srv: srv, state: t.TempDir()}
	cfg := runs.Config{
		Runtime:   rt,
		StateDir:  h.state,
		Approvals: srv,
		StopGrace: 2 * time.Second,
		Secrets:   func() []string { return []string{secret} },
		Env:       []string{"PATH=" + os.Getenv("PATH"), "HOME=" + t.TempDir()},
	}
	if change != nil {
		change(&cfg)
	}
	if h.m, err = runs.NewManager(cfg); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		h.m.StopAll(ctx)
	})
	return h
}

func (h *harness) start(t *testing.T, kind runs.Kind, checkout, prompt string, keepOpen bool) *runs.Run {
	t.Helper()
	r, err := h.m.Start(context.Background(), runs.Spec{Kind: kind, Checkout: checkout, Prompt: prompt, KeepOpen: keepOpen})
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func wait(t *testing.T, r *runs.Run) runs.Info {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	info, err := r.Wait(ctx)
	if err != nil {
		t.Fatalf("run %s did not end (state %s): %v", r.ID(), info.State, err)
	}
	return info
}

func (h *harness) events(t *testing.T, id string) []runs.Event {
	t.Helper()
	var evs []runs.Event
	if err := runs.ReadEvents(h.state, id, func(e runs.Event) error { evs = append(evs, e); return nil }); err != nil {
		t.Fatal(err)
	}
	return evs
}

// texts are the agent's messages of a run.
func texts(evs []runs.Event) []string {
	var out []string
	for _, e := range evs {
		if e.Type == runs.EventText {
			out = append(out, e.Text)
		}
	}
	return out
}

func checkout(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	claudetest.Git(t, dir, "init", "--quiet")
	return dir
}

func TestABuildRunTalksACP(t *testing.T) {
	h := newHarness(t, nil)
	dir := checkout(t)
	r := h.start(t, runs.KindBuild, dir, "say hello "+secret, true)
	await.For(t, 20*time.Second, "the first turn to end", func() bool { return r.Info().Waiting == runs.WaitReply })
	if err := r.Send("run echo allow-me; echo done > made.txt"); err != nil {
		t.Fatal(err)
	}
	await.For(t, 20*time.Second, "the second turn to end", func() bool { return r.Info().Turns == 2 && r.Info().Waiting == runs.WaitReply })
	if err := r.Send("run rm -rf ."); err != nil {
		t.Fatal(err)
	}
	await.For(t, 20*time.Second, "the third turn to end", func() bool { return r.Info().Turns == 3 && r.Info().Waiting == runs.WaitReply })
	r.CloseInput()
	info := wait(t, r)
	if info.State != runs.StateSucceeded || info.SessionID != "sess-1" || info.CostUSD != 0.25 {
		t.Fatalf("ended %s (%s), session %q, cost %v; want succeeded in sess-1 costing 0.25", info.State, info.Reason, info.SessionID, info.CostUSD)
	}
	// Each turn's usage is the prompt result's tokens and what the session's cost grew by
	// (usage_update carries the session's cost so far), so the run's totals are the
	// agent's.
	if u := info.Usage; u == nil || u.Turns != 3 || u.InputTokens != 30 || u.OutputTokens != 15 || u.CacheReadTokens != 9 || u.CostUSD != 0.25 {
		t.Errorf("the run's usage is %+v, want 3 turns of 10 tokens in, 5 out and 3 read from the cache, costing 0.25 in all", u)
	}
	evs := h.events(t, r.ID())
	got := texts(evs)
	want := []string{"hello [REDACTED]", "allowed: allow-me", "denied: Denied by the person at segwi: not this one: use ls instead"}
	if strings.Join(got, "|") != strings.Join(want, "|") {
		t.Errorf("the agent said %q, want %q: whole messages, from chunks, secrets redacted, the deny's reason read from _meta", got, want)
	}
	if b, err := os.ReadFile(filepath.Join(dir, "made.txt")); err != nil || string(b) != "done\n" {
		t.Errorf("made.txt = %q, %v; want the allowed command to have run in the checkout", b, err)
	}
	if _, err := os.Stat(filepath.Join(dir, ".git")); err != nil {
		t.Errorf("the denied rm ran: %v", err)
	}
	var answers []runs.ApprovalInfo
	var calls, results, usage int
	for _, e := range evs {
		switch e.Type {
		case runs.EventApprovalAnswer:
			answers = append(answers, *e.Approval)
		case runs.EventToolCall:
			calls++
		case runs.EventToolResult:
			results++
		case runs.EventStatus:
			if e.Subtype == "usage" {
				usage++
			}
		case runs.EventResult:
			var u map[string]int
			if err := json.Unmarshal(e.Result.Usage, &u); err != nil || u["input_tokens"] != 10 || u["output_tokens"] != 5 || u["cache_read_input_tokens"] != 3 {
				t.Errorf("a result's usage %s, want Claude Code's names for the prompt result's usage", e.Result.Usage)
			}
		}
		if strings.Contains(string(e.Raw)+e.Text+string(e.Input), secret) {
			t.Errorf("event %s holds the secret", e.Type)
		}
	}
	for _, e := range evs {
		if e.Type == runs.EventText {
			if w := (&runs.Narrator{}).Words(e); w.Label != "agent" {
				t.Errorf("the agent's words are narrated as %q's, want the agent's", w.Label)
			}
		}
	}
	if len(answers) != 2 || !answers[0].Allow || answers[1].Allow || !strings.Contains(answers[1].Message, "not this one: use ls instead") {
		t.Errorf("answers %+v, want one allow and one deny with the person's reason", answers)
	}
	if calls != 2 || results != 2 || usage != 1 {
		t.Errorf("%d tool calls, %d results, %d usage updates; want 2, 2, 1", calls, results, usage)
	}
	reqs := h.d.requests()
	if len(reqs) != 2 || reqs[0].ToolName != "Bash" || !strings.Contains(reqs[0].View().Command, "echo allow-me") {
		t.Errorf("requests shown %+v, want two Bash calls showing their command", reqs)
	}
}

// An ask run changes nothing: an ACP agent has no --disallowedTools, so segwi refuses its
// requests to edit, without putting them to a person.
func TestAnAskRunRefusesAnEditRequest(t *testing.T) {
	h := newHarness(t, nil)
	dir := checkout(t)
	info := wait(t, h.start(t, runs.KindAsk, dir, "write notes.txt allow-me", false))
	if got := texts(h.events(t, info.ID)); len(got) != 1 || got[0] != "denied" {
		t.Errorf("the agent said %q, want it told its edit was rejected", got)
	}
	if _, err := os.Stat(filepath.Join(dir, "notes.txt")); err == nil {
		t.Error("notes.txt was written in an ask run")
	}
	if n := len(h.d.requests()); n != 0 {
		t.Errorf("%d requests were put to the person, want none", n)
	}
	refused := false
	for _, e := range h.events(t, info.ID) {
		refused = refused || e.Type == runs.EventRefusal && e.Source == "ask-run" && e.ToolName == "Write"
	}
	if !refused {
		t.Error("no refusal recorded for the ask run's edit")
	}

	t.Run("while a build run's edit is put to the person, with its change", func(t *testing.T) {
		dir := checkout(t)
		info := wait(t, h.start(t, runs.KindBuild, dir, "write notes.txt allow-me", false))
		if info.State != runs.StateSucceeded {
			t.Fatalf("ended %s (%s)", info.State, info.Reason)
		}
		reqs := h.d.requests()
		if len(reqs) != 1 || reqs[0].View().Shape != approvals.ShapeChange || reqs[0].View().File != "notes.txt" {
			t.Errorf("requests %+v, want one showing the change to notes.txt", reqs)
		}
		if b, err := os.ReadFile(filepath.Join(dir, "notes.txt")); err != nil || string(b) != "allow-me\n" {
			t.Errorf("notes.txt = %q, %v; want it written once allowed", b, err)
		}
	})
}

// The protocol's edge cases: each ends the run, or the turn, saying what happened, and
// leaves no process behind.
func TestAnACPAgentThatMisbehaves(t *testing.T) {
	t.Run("a permission request for another session is refused as invalid", func(t *testing.T) {
		h := newHarness(t, nil)
		info := wait(t, h.start(t, runs.KindBuild, checkout(t), "other-session", false))
		got := texts(h.events(t, info.ID))
		if len(got) != 1 || !strings.HasPrefix(got[0], "refused: ") || !strings.Contains(got[0], "-32602") {
			t.Errorf("the agent was told %q, want an invalid-params error", got)
		}
		if n := len(h.d.requests()); n != 0 {
			t.Errorf("%d requests reached the person, want none", n)
		}
	})
	t.Run("a permission request after the stop is answered cancelled", func(t *testing.T) {
		h := newHarness(t, nil)
		r := h.start(t, runs.KindBuild, checkout(t), "hang", true)
		await.For(t, 20*time.Second, "the agent's call to show", func() bool {
			for _, e := range h.events(t, r.ID()) {
				if e.Type == runs.EventToolCall {
					return true
				}
			}
			return false
		})
		r.Stop()
		info := wait(t, r)
		if info.State != runs.StateStopped {
			t.Errorf("ended %s (%s), want stopped", info.State, info.Reason)
		}
		if n := len(h.d.requests()); n != 0 {
			t.Errorf("%d requests reached the person after the stop, want none", n)
		}
		assertGone(t, info.PID)
	})
	t.Run("a line that is not JSON is noted and the turn goes on", func(t *testing.T) {
		h := newHarness(t, nil)
		info := wait(t, h.start(t, runs.KindBuild, checkout(t), "malformed", false))
		if info.State != runs.StateSucceeded {
			t.Errorf("ended %s (%s), want succeeded", info.State, info.Reason)
		}
		evs := h.events(t, info.ID)
		noted := false
		for _, e := range evs {
			noted = noted || e.Type == runs.EventStatus && strings.Contains(e.Text, "failed to parse")
		}
		if got := texts(evs); !noted || len(got) != 1 || got[0] != "still here" {
			t.Errorf("noted %v, said %q; want the bad line noted and the turn finished", noted, got)
		}
	})
	t.Run("a line over 10 MB ends the connection, and the run fails saying so", func(t *testing.T) {
		h := newHarness(t, nil)
		info := wait(t, h.start(t, runs.KindBuild, checkout(t), "huge", false))
		if info.State != runs.StateFailed {
			t.Errorf("ended %s (%s), want failed", info.State, info.Reason)
		}
		var said string
		for _, e := range h.events(t, info.ID) {
			if e.Type == runs.EventResult {
				said = e.Text
			}
		}
		if !strings.Contains(said, "did not finish the turn") {
			t.Errorf("the turn's result says %q, want why it did not finish", said)
		}
		assertGone(t, info.PID)
	})
}

// TestAFailedHandshakeFailsTheRun: an agent that exits before it answers initialize, never
// answers it, or answers it with an error fails its run at once, kept open or not, with a
// reason naming the runtime and its command, and leaves no process. A kept-open run whose
// agent never answered stayed running for good before.
func TestAFailedHandshakeFailsTheRun(t *testing.T) {
	t.Cleanup(acp.SetHandshakeWait(2 * time.Second)) // once the parallel subtests are over
	bin, err := fakeACP()
	if err != nil {
		t.Fatal(err)
	}
	agent := "the ACP agent fake (" + bin + ")"
	for _, c := range []struct {
		name, knob, says string
	}{
		{"never answers", "FAKEACP_NO_INIT", agent + " did not answer initialize within 2s"},
		{"exits", "FAKEACP_INIT_EXIT", agent + " exited, or closed its output, before it answered initialize"},
		{"answers an error", "FAKEACP_INIT_ERROR", agent + " answered initialize with an error: protocol version 1 is not supported"},
	} {
		for _, keepOpen := range []bool{false, true} {
			t.Run(fmt.Sprintf("%s, kept open %v", c.name, keepOpen), func(t *testing.T) {
				t.Parallel()
				h := newHarness(t, map[string]string{c.knob: "1"})
				r := h.start(t, runs.KindBuild, checkout(t), "say hi", keepOpen)
				ctx, cancel := context.WithTimeout(context.Background(), 15*time.Second)
				defer cancel()
				info, err := r.Wait(ctx)
				if err != nil {
					t.Fatalf("run still %s after 15s: the failed handshake did not end it", info.State)
				}
				if info.State != runs.StateFailed || !strings.HasPrefix(info.Reason, c.says) {
					t.Errorf("ended %s (%q); want failed, saying %q", info.State, info.Reason, c.says)
				}
				var status, stderr bool
				for _, e := range h.events(t, info.ID) {
					status = status || e.Type == runs.EventStatus && strings.HasPrefix(e.Text, c.says)
					stderr = stderr || e.Type == runs.EventOutput && strings.Contains(e.Text, "no such mode")
					if e.Type == runs.EventResult {
						t.Errorf("a turn ended (%q), though none was sent", e.Text)
					}
				}
				if !status {
					t.Errorf("the record has no status saying %q", c.says)
				}
				if c.knob == "FAKEACP_INIT_EXIT" && !stderr {
					t.Error("what the agent wrote on stderr is not in the record")
				}
				assertGone(t, info.PID)
			})
		}
	}
}

// assertGone fails the test if process group pgid still has a live process.
func assertGone(t *testing.T, pgid int) {
	t.Helper()
	if pgid == 0 {
		t.Fatal("the run recorded no process")
	}
	await.For(t, 10*time.Second, "the run's processes to be gone", func() bool {
		entries, _ := os.ReadDir("/proc")
		for _, e := range entries {
			b, err := os.ReadFile(filepath.Join("/proc", e.Name(), "stat"))
			if err != nil {
				continue
			}
			s := string(b)
			fields := strings.Fields(s[strings.LastIndexByte(s, ')')+1:])
			if len(fields) > 2 && fields[0] != "Z" && fields[2] == itoa(pgid) {
				return false
			}
		}
		return true
	})
}

func itoa(n int) string { return strconv.Itoa(n) }
