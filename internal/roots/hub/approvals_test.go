package hub_test

import (
	"context"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/segwi/segwi/approvals"
	"github.com/segwi/segwi/control"
	"github.com/segwi/segwi/internal/testing/await"
	"github.com/segwi/segwi/internal/testing/claudetest"
	"github.com/segwi/segwi/internal/testing/controltest"
	"github.com/segwi/segwi/internal/testing/fakeapi"
	"github.com/segwi/segwi/runs"
)

// request is an approval request as the broker hands it to its Decider.
func request(id string) approvals.Request {
	now := time.Now()
	return approvals.Request{
		ID: id, Run: approvals.RunInfo{ID: "run-" + id, Kind: "build", Checkout: "/src/web"},
		ToolName: "Bash", Input: json.RawMessage(`{"command":"touch approved.txt"}`), ToolUseID: "toolu_" + id,
		Asked: now, Deadline: now.Add(time.Minute),
	}
}

// decided is what Decide returned.
type decided struct {
	answer approvals.Answer
	err    error
}

// decide calls the hub's Decide on a goroutine of its own.
func decide(ctx context.Context, h *harness, req approvals.Request) <-chan decided {
	out := make(chan decided, 1)
	go func() {
		a, err := h.hub.Decide(ctx, req)
		out <- decided{a, err}
	}()
	return out
}

func result(t *testing.T, ch <-chan decided) decided {
	t.Helper()
	select {
	case d := <-ch:
		return d
	case <-time.After(within):
		t.Fatal("Decide did not return")
		return decided{}
	}
}

func TestAnApprovalStartsAWindowProcessAndWaitsForAPersonsAnswer(t *testing.T) {
	h := newHarness(t, "", options{})
	ctx := context.Background()
	req := request("1")
	got := decide(ctx, h, req)

	w := h.windows.window(t, 1)
	a := waitingFor(t, w, "1")
	if a.Request != "1" || a.Tool != "Bash" || a.Run.Name != "web" {
		t.Errorf("the window process was sent %+v, want request 1 for Bash in web", a)
	}
	if n := h.hub.Snapshot().Pending; n != 1 {
		t.Errorf("the tray shows %d approvals waiting, want 1", n)
	}
	await.For(t, within, "the notification", func() bool { return len(h.notes.all()) == 1 })
	// Titled by the run (this one has no task), not by segwi, which the daemon names; the
	// time to answer by is the request's deadline.
	deadline := req.Deadline.Local().Format("15:04:05")
	if want := "web · build run: The build run in web wants to use Bash: touch approved.txt.\nAnswer by " + deadline + ", or segwi denies it."; h.notes.all()[0] != want {
		t.Errorf("notified %q, want %q", h.notes.all()[0], want)
	}
	select {
	case d := <-got:
		t.Fatalf("Decide returned %+v before anyone answered", d)
	default:
	}

	if err := w.client.Answer(ctx, control.Answer{Request: "1", Decision: control.DenyAndStop, Reason: "wrong branch", By: control.ByThisDesktop}); err != nil {
		t.Fatalf("answering: %v", err)
	}
	d := result(t, got)
	want := approvals.Answer{By: approvals.ByPerson, Interrupt: true, Message: "wrong branch"}
	if d.err != nil || !cmp.Equal(want, d.answer) {
		t.Errorf("Decide = %+v, %v; want %+v", d.answer, d.err, want)
	}
	gone := next[control.ApprovalGone](t, w)
	if gone.Request != "1" || gone.Why != control.WhyAnswered || gone.By != control.ByThisDesktop {
		t.Errorf("the window process was told %+v, want request 1 answered at this desktop", gone)
	}
	if err := w.client.Answer(ctx, control.Answer{Request: "1", Decision: control.Allow}); err == nil ||
		!strings.Contains(err.Error(), "approval request 1: it no longer waits") {
		t.Errorf("a second answer = %v, want it refused as no longer waiting", err)
	}
	if n := h.hub.Snapshot().Pending; n != 0 {
		t.Errorf("the tray shows %d approvals waiting once answered, want 0", n)
	}
	await.For(t, within, "the notification to be withdrawn once answered", func() bool { return len(h.notes.shown()) == 0 })
}

// The remote page (issue 14) is a second client of the same messages: it is sent the
// waiting approvals, and its answer counts as the person's, recorded as by the device the
// server knows, whatever the page says.
func TestARemoteClientSeesTheApprovalsAndItsAnswerNamesItsDevice(t *testing.T) {
	h := newHarness(t, "", options{})
	ctx := context.Background()
	got := decide(ctx, h, request("7"))
	w := h.windows.window(t, 1)
	waitingFor(t, w, "7")

	phone := connect(t, h, control.Grant{Role: control.RoleRemote, Who: "ada@example.com on ada-phone"})
	snap := next[control.Approvals](t, phone)
	if len(snap.Waiting) != 1 || snap.Waiting[0].Request != "7" {
		t.Fatalf("the remote client's snapshot is %+v, want request 7", snap)
	}
	// A checkout a run could start in: the refusal is the role's, not the folder's.
	if _, err := phone.client.Start(ctx, runs.Spec{Kind: runs.KindBuild, Checkout: claudetest.Checkout(t), Prompt: "go"}); err == nil {
		t.Error("the remote client started a run")
	}
	if err := phone.client.Answer(ctx, control.Answer{Request: "7", Decision: control.Allow, By: control.ByThisDesktop}); err != nil {
		t.Fatal(err)
	}
	if d := result(t, got); !d.answer.Allow || d.answer.By != approvals.ByPerson || d.answer.Who != "ada@example.com on ada-phone" {
		t.Errorf("Decide = %+v, want allowed by a person, who answered from ada's phone", d.answer)
	}
	for _, c := range []*fakeWindow{w, phone} {
		if g := next[control.ApprovalGone](t, c); g.By != "ada@example.com on ada-phone" || !g.Allow {
			t.Errorf("client %d was told %+v, want allowed from ada's phone", c.n, g)
		}
	}
	if err := w.client.Answer(ctx, control.Answer{Request: "7", Decision: control.Deny, By: control.ByThisDesktop}); err == nil {
		t.Error("the popup's late answer was taken: the first answer must win")
	}

	t.Run("and the other way round: the popup's answer takes the request away from the page", func(t *testing.T) {
		got := decide(ctx, h, request("8"))
		waitingFor(t, w, "8")
		if a := next[control.Approval](t, phone); a.Request != "8" {
			t.Fatalf("the page was sent %+v, want request 8", a)
		}
		if err := w.client.Answer(ctx, control.Answer{Request: "8", Decision: control.Deny, Reason: "no", By: control.ByThisDesktop}); err != nil {
			t.Fatal(err)
		}
		if d := result(t, got); d.answer.Allow || d.answer.Who != "" {
			t.Errorf("Decide = %+v, want a deny at this desktop, naming no device", d.answer)
		}
		if g := next[control.ApprovalGone](t, phone); g.Request != "8" || g.By != control.ByThisDesktop {
			t.Errorf("the page was told %+v, want request 8 answered at this desktop", g)
		}
		if err := phone.client.Answer(ctx, control.Answer{Request: "8", Decision: control.Allow}); err == nil ||
			!strings.Contains(err.Error(), "it no longer waits") {
			t.Errorf("the page's late answer = %v, want it refused as no longer waiting", err)
		}
	})
}

// connect serves a client of grant g on the hub's server, as the remote page's server
// would, and returns it.
func connect(t *testing.T, h *harness, g control.Grant) *fakeWindow {
	t.Helper()
	ours, theirs := controltest.Pair(t)
	ctx, cancel := context.WithCancel(context.Background())
	served := make(chan struct{})
	go func() {
		defer close(served)
		h.hub.Server().Serve(ctx, ours, g)
	}()
	c := &fakeWindow{n: 100, events: make(chan control.Body, 256), conn: theirs, gone: make(chan struct{})}
	var err error
	c.client, err = control.NewClient(theirs, control.ClientOptions{Program: "test client", Event: func(b control.Body) { c.events <- b }})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		c.client.Close()
		cancel()
		<-served
	})
	return c
}

func TestARequestThatStopsWaitingIsTakenAwayFromTheWindows(t *testing.T) {
	for _, tt := range []struct {
		cause error
		want  control.Why
	}{
		{approvals.ErrTimedOut, control.WhyTimedOut},
		{approvals.ErrRunEnded, control.WhyRunEnded},
		{approvals.ErrWithdrawn, control.WhyWithdrawn},
	} {
		t.Run(string(tt.want), func(t *testing.T) {
			h := newHarness(t, "", options{})
			ctx, cancel := context.WithCancelCause(context.Background())
			got := decide(ctx, h, request("3"))
			w := h.windows.window(t, 1)
			waitingFor(t, w, "3")
			cancel(tt.cause)
			if d := result(t, got); !errors.Is(d.err, context.Canceled) {
				t.Errorf("Decide = %+v, %v; want the context's error", d.answer, d.err)
			}
			if g := next[control.ApprovalGone](t, w); g.Why != tt.want || g.Request != "3" {
				t.Errorf("the window process was told %+v, want request 3 %s", g, tt.want)
			}
			await.For(t, within, "the request's notification, then its withdrawal", func() bool {
				return len(h.notes.all()) == 1 && len(h.notes.shown()) == 0
			})
		})
	}
}

// A window process that dies (a crash, kill -9) leaves its requests waiting: the hub
// starts another, whose snapshot holds them, and its answer is the one that counts.
func TestAKilledWindowProcessLeavesItsRequestsWaiting(t *testing.T) {
	h := newHarness(t, "", options{})
	ctx := context.Background()
	got := decide(ctx, h, request("5"))
	first := h.windows.window(t, 1)
	waitingFor(t, first, "5")

	first.kill()
	second := h.windows.window(t, 2)
	snap := next[control.Approvals](t, second)
	if ids := requestIDs(snap); !slices.Equal(ids, []string{"5"}) {
		t.Fatalf("the new window process's snapshot holds %q, want request 5", ids)
	}
	select {
	case d := <-got:
		t.Fatalf("Decide returned %+v when the window process died", d)
	default:
	}
	if err := second.client.Answer(ctx, control.Answer{Request: "5", Decision: control.Allow, By: control.ByThisDesktop}); err != nil {
		t.Fatal(err)
	}
	if d := result(t, got); !d.answer.Allow {
		t.Errorf("Decide = %+v, want allowed", d.answer)
	}
	if n := h.windows.count(); n != 2 {
		t.Errorf("%d window processes were started, want 2", n)
	}
}

func requestIDs(a control.Approvals) []string {
	var ids []string
	for _, w := range a.Waiting {
		ids = append(ids, w.Request)
	}
	return ids
}

// waitingFor waits until the window process was told that request id waits, in a snapshot
// (it started after the request came) or as the request came, and returns it.
func waitingFor(t *testing.T, w *fakeWindow, id string) control.Approval {
	t.Helper()
	deadline := time.After(within)
	for {
		select {
		case b := <-w.events:
			switch b := b.(type) {
			case control.Approval:
				if b.Request == id {
					return b
				}
			case control.Approvals:
				for _, a := range b.Waiting {
					if a.Request == id {
						return a
					}
				}
			}
		case <-deadline:
			t.Fatalf("window process %d was not told that request %s waits", w.n, id)
			return control.Approval{}
		}
	}
}

// A run of the real Claude Code whose call is escalated to segwi: the window process the
// hub started for it is killed while the request waits, the run goes on waiting, a new
// window process is shown the request, and its Allow lets the command run.
func TestARealRunOutlivesItsWindowProcessAndIsAllowedFromTheNext(t *testing.T) {
	touch := fakeapi.ToolUse("Bash", fakeapi.Input{"command": "touch approved.txt", "description": "Create approved.txt"})
	srv := fakeapi.New(t, fakeapi.Turns(
		fakeapi.Say(fakeapi.Text("I will create the file."), touch),
		fakeapi.Say(fakeapi.Text("Created approved.txt.")),
	))
	env := claudetest.Env(t, srv.URL)
	env.WriteSettings(t, claudetest.Settings{Permissions: &claudetest.Permissions{Ask: []string{"Bash(touch:*)"}}})
	checkout := claudetest.Checkout(t)
	h := newHarness(t, fmt.Sprintf("segwi:\n  claude:\n    path: %q\n  runs:\n    stopGrace: 2s\n", claudetest.Binary(t)),
		options{env: env.Vars()})

	r, err := h.core.Start(context.Background(), runs.Spec{Kind: runs.KindBuild, Checkout: checkout, Prompt: "Create approved.txt"})
	if err != nil {
		t.Fatal(err)
	}
	await.For(t, forClaude, "the run to wait for an answer to its command", func() bool { return r.Info().Waiting == runs.WaitApproval })
	first := h.windows.window(t, 1)
	a := waitingFor(t, first, "req-1")
	if a.Run.ID != r.ID() || a.Run.Prompt != "Create approved.txt" {
		t.Errorf("the request came as %+v, want run %s with its task", a.Run, r.ID())
	}
	first.kill()
	second := h.windows.window(t, 2)
	waitingFor(t, second, "req-1")
	if st := r.State(); st != runs.StateWaiting {
		t.Errorf("the run is %s once its window process died, want still waiting", st)
	}
	if err := second.client.Answer(context.Background(), control.Answer{Request: "req-1", Decision: control.Allow, By: control.ByThisDesktop}); err != nil {
		t.Fatal(err)
	}
	info, err := r.Wait(context.Background())
	if err != nil || info.State != runs.StateSucceeded {
		t.Fatalf("the run ended %s (%v), want succeeded", info.State, err)
	}
	if _, err := os.Stat(filepath.Join(checkout, "approved.txt")); err != nil {
		t.Errorf("the allowed command did not run: %v", err)
	}
}

// A window process that sends a malformed message gets an error reply and goes on; one
// that sends an oversized one is cut off. Either way the tray goes on, the request keeps
// waiting, and a new window process shows it.
func TestABadMessageFromTheWindowProcessEndsAtMostItsConnection(t *testing.T) {
	h := newHarness(t, "", options{})
	ctx := context.Background()
	got := decide(ctx, h, request("9"))
	first := h.windows.window(t, 1)
	waitingFor(t, first, "9")

	frame := func(data []byte, n uint32) []byte {
		return append(binary.BigEndian.AppendUint32(nil, n), data...)
	}
	malformed := []byte(`{"type":"answer","id":77,"body":{"request":"9","decision":"maybe"}}`)
	if _, err := first.conn.Write(frame(malformed, uint32(len(malformed)))); err != nil {
		t.Fatal(err)
	}
	// The connection goes on: the window process's own requests are still answered.
	if _, err := first.client.TokenStatus(ctx); err != nil {
		t.Fatalf("after a malformed message, the channel failed: %v", err)
	}
	if _, err := first.conn.Write(frame(nil, control.MaxMessageBytes+1)); err != nil {
		t.Fatal(err)
	}
	second := h.windows.window(t, 2)
	waitingFor(t, second, "9")
	select {
	case d := <-got:
		t.Fatalf("Decide returned %+v for a bad message", d)
	default:
	}
	if err := second.client.Answer(ctx, control.Answer{Request: "9", Decision: control.Deny, Reason: "not now", By: control.ByThisDesktop}); err != nil {
		t.Fatal(err)
	}
	if d := result(t, got); d.answer.Allow || d.answer.Message != "not now" {
		t.Errorf("Decide = %+v, want the second window process's deny", d.answer)
	}
}

// Window processes that keep dying soon after their start are not started again and again
// for a waiting request: after three in a row the log says so and the request waits; the
// next window the person asks for (a menu item) starts one, which shows the request.
func TestWindowProcessesThatKeepDyingAreNotStartedAgainForARequest(t *testing.T) {
	h := newHarness(t, "", options{})
	ctx := context.Background()
	got := decide(ctx, h, request("7"))
	for n := 1; n <= 3; n++ {
		w := h.windows.window(t, n)
		waitingFor(t, w, "7")
		w.kill()
	}
	await.For(t, within, "the hub to say it starts no more window processes for the request", func() bool {
		return strings.Contains(h.log.String(), "the last 3 window processes ended within 5s of their start")
	})
	if n := h.windows.count(); n != 3 {
		t.Fatalf("%d window processes were started for the request, want 3", n)
	}
	select {
	case d := <-got:
		t.Fatalf("Decide returned %+v while no window could show the request", d)
	default:
	}

	go h.hub.Open(ctx, control.Show{Window: control.ShowHistory}) // the person clicks Run history…
	fourth := h.windows.window(t, 4)
	waitingFor(t, fourth, "7")
	if err := fourth.client.Answer(ctx, control.Answer{Request: "7", Decision: control.Deny, By: control.ByThisDesktop}); err != nil {
		t.Fatal(err)
	}
	if d := result(t, got); d.answer.Allow {
		t.Errorf("Decide = %+v, want denied", d.answer)
	}
}

// The run windows a window process had open come back when it dies: the hub starts a new
// one and asks it to show each of them again. One that died with none open, its last
// window closed, is not replaced.
func TestTheRunWindowsOfADeadWindowProcessOpenAgain(t *testing.T) {
	h := newHarness(t, "", options{})
	ctx := context.Background()
	opened := make(chan struct{})
	go func() {
		defer close(opened)
		h.hub.Open(ctx, control.Show{Window: control.ShowHistory}) // the person opens a window
	}()
	first := h.windows.window(t, 1)
	first.nextShow(t)
	// Killed before its answer to the show reached the hub, the window process would leave
	// the history unshown, and the hub would rightly ask the next one to show it first.
	select {
	case <-opened:
	case <-time.After(within):
		t.Fatal("the hub was not told that the history window is shown")
	}
	open := []string{"20250314-092653-abcd", "20250314-101010-beef"}
	if err := first.client.RunWindows(ctx, open); err != nil {
		t.Fatal(err)
	}

	first.kill()
	second := h.windows.window(t, 2)
	var shown []string
	for range open {
		s := second.nextShow(t)
		if s.Window != control.ShowRun {
			t.Fatalf("the new window process was asked to show %+v, want run windows", s)
		}
		shown = append(shown, s.Run)
	}
	slices.Sort(shown)
	if !slices.Equal(shown, open) {
		t.Errorf("the new window process shows the windows of runs %q, want %q", shown, open)
	}

	// The person closes them; then this window process dies too: nothing comes back.
	if err := second.client.RunWindows(ctx, nil); err != nil {
		t.Fatal(err)
	}
	second.answered(t)
	second.kill()
	await.For(t, within, "the second window process to be gone", func() bool { return h.hub.WindowPid() == 0 })
	go h.hub.Open(ctx, control.Show{Window: control.ShowHistory}) // the person opens a window again
	third := h.windows.window(t, 3)
	if s := third.nextShow(t); s.Window != control.ShowHistory {
		t.Errorf("the next window process was first asked to show %+v, want only the history the person asked for", s)
	}
	if n := h.windows.count(); n != 3 {
		t.Errorf("%d window processes were started, want 3", n)
	}
}
