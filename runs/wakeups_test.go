package runs

import (
	"context"
	"fmt"
	"syscall"
	"testing"
	"time"

	"github.com/segwi/segwi/approvals"
	"github.com/segwi/segwi/approvals/mcpserver"
	"github.com/segwi/segwi/internal/testing/await"
)

// wakeupsGoal is issue 22's bound on the tray process at rest: at most 3 context switches
// a second. A run that waits for the person's reply or for an approval, perhaps for half
// an hour, is at rest.
const wakeupsGoal = 3.0

// contextSwitches returns the voluntary and involuntary context switches of every thread
// of this process so far.
func contextSwitches() int64 {
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return ru.Nvcsw + ru.Nivcsw
}

// TestARunWaitingForAReplyLetsSegwiSleep measures how often segwi's side of its runs (this
// test process, which holds the Manager, as the tray process does) wakes while 1 and then
// 20 runs wait for the person's reply: the context switches of the process over 10 s once
// every record is on disk, with the limits at their defaults. The goal is per process, not
// per run: 20 waiting runs must cost no more than one. It prints the figures
// (go test -run LetsSegwiSleep -v) and fails above wakeupsGoal a second, measuring a second
// time before it fails, so that one burst of a loaded machine does not. Only a waiting run
// is measured: its fakeclaude child sleeps in a read of its input, in a process of its own
// whose switches getrusage(RUSAGE_SELF) does not count.
func TestARunWaitingForAReplyLetsSegwiSleep(t *testing.T) {
	if testing.Short() {
		t.Skip("measures for 20 s or more: not in -short")
	}
	for _, n := range []int{1, 20} {
		t.Run(fmt.Sprintf("%d waiting", n), func(t *testing.T) {
			m, _ := testManager(t, func(c *Config) { c.StopGrace = DefaultStopGrace; c.MaxConcurrent = n })
			var waiting []*Run
			for range n {
				waiting = append(waiting, start(t, m, Spec{Prompt: "fake:success", KeepOpen: true}))
			}
			for _, r := range waiting {
				await.For(t, 30*time.Second, "the run to wait for your reply", func() bool {
					return r.State() == StateWaiting && r.Info().Waiting == WaitReply
				})
				awaitRecordOnDisk(t, r)
			}
			rate := atRest()
			runsWaiting := fmt.Sprintf("%d runs wait", n)
			if n == 1 {
				runsWaiting = "1 run waits"
			}
			t.Logf("while %s for a reply: %.1f context switches a second of segwi's process (goal <= %.0f)", runsWaiting, rate, wakeupsGoal)
			if rate > wakeupsGoal {
				t.Errorf("%.1f context switches a second while %s for a reply, want at most %.0f", rate, runsWaiting, wakeupsGoal)
			}
			for _, r := range waiting {
				if got := r.State(); got != StateWaiting {
					t.Errorf("run %s is %s after the measurement, want still waiting for your reply", r.ID(), got)
				}
			}
		})
	}
}

// awaitRecordOnDisk waits until what run r wrote has reached the disk, which it does
// within syncEvery: a run is at rest once it has.
func awaitRecordOnDisk(t *testing.T, r *Run) {
	t.Helper()
	await.For(t, 2*syncEvery, "the run's record to be on disk", func() bool {
		r.rec.mu.Lock()
		defer r.rec.mu.Unlock()
		return !r.rec.dirty
	})
}

// atRest measures the context switches a second of this process over 10 s, and again when
// that is over wakeupsGoal, so that one burst of a loaded machine does not fail a test; it
// returns the lower.
func atRest() float64 {
	const over = 10 * time.Second
	measure := func() float64 {
		before := contextSwitches()
		time.Sleep(over) // the measurement's clock: nothing happens, and that is the point
		return float64(contextSwitches()-before) / over.Seconds()
	}
	rate := measure()
	if rate > wakeupsGoal {
		rate = min(rate, measure())
	}
	return rate
}

// waitingPerson is a Decider that does not answer: it says when it is asked, and holds
// the request until it is given up.
type waitingPerson struct{ asked chan approvals.Request }

func (p waitingPerson) Decide(ctx context.Context, req approvals.Request) (approvals.Answer, error) {
	p.asked <- req
	<-ctx.Done()
	return approvals.Answer{}, ctx.Err()
}

// TestARunWaitingForAnApprovalLetsSegwiSleep is TestARunWaitingForAReplyLetsSegwiSleep for
// a run whose approval request waits for the person, with segwi's real approvals server:
// Claude Code's stand-in (fake:ask) asks it as Claude Code does, over the server's MCP
// endpoint with the run's token, and holds its HTTP request open while the person does not
// answer. It prints the figure (go test -run ForAnApproval -v) and fails above wakeupsGoal.
func TestARunWaitingForAnApprovalLetsSegwiSleep(t *testing.T) {
	if testing.Short() {
		t.Skip("measures for 10 s or more: not in -short")
	}
	person := waitingPerson{asked: make(chan approvals.Request, 1)}
	srv, err := mcpserver.New(mcpserver.Config{Decider: person})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { srv.Close() })
	m, _ := testManager(t, func(c *Config) { c.Approvals = srv; c.StopGrace = time.Second })
	r := start(t, m, Spec{Prompt: "fake:ask"})
	select {
	case req := <-person.asked:
		t.Logf("asked: %s %s", req.ToolName, req.Input)
	case <-time.After(60 * time.Second):
		t.Fatalf("no approval request within 60 s; the run is %s (%s)", r.State(), r.Info().Reason)
	}
	await.For(t, 10*time.Second, "the run to wait for the approval", func() bool { return r.Info().Waiting == WaitApproval })
	awaitRecordOnDisk(t, r)
	rate := atRest()
	t.Logf("while a run waits for an approval: %.1f context switches a second of segwi's process (goal <= %.0f)", rate, wakeupsGoal)
	if rate > wakeupsGoal {
		t.Errorf("%.1f context switches a second while a run waits for an approval, want at most %.0f", rate, wakeupsGoal)
	}
	if info := r.Info(); info.Waiting != WaitApproval {
		t.Errorf("run %s is %s (%s) after the measurement, want still waiting for the approval", r.ID(), info.State, info.Waiting)
	}
}
