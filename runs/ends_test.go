package runs

import (
	"context"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/segwi/segwi/approvals"
	"github.com/segwi/segwi/internal/testing/await"
	"github.com/segwi/segwi/internal/testing/claudetest"
)

// runsApprovals registers every run and keeps what the approvals server asks it.
type runsApprovals struct {
	mu   sync.Mutex
	runs map[string]approvals.Run // by run id
}

func (a *runsApprovals) Register(info approvals.RunInfo, r approvals.Run) (approvals.Registration, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.runs[info.ID] = r
	return approvals.Registration{URL: "http://127.0.0.1:1/mcp", Token: "tok-" + info.ID + "-secretsecret"}, nil
}

func (a *runsApprovals) Unregister(string) {}

func (a *runsApprovals) run(id string) approvals.Run {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.runs[id]
}

// A run's end (runs.maxDuration from its agent's start) is known to the approvals server
// as soon as the agent's process has started, not only once the owner hears of the start,
// which waits for the checkout's base to be read: an agent asking meanwhile (a slow git,
// a large checkout) is given, and has recorded, the deadline it will be held to.
func TestARunsEndIsKnownOnceItsAgentHasStarted(t *testing.T) {
	checkout := newCheckout(t)
	// A git that waits for the test before doing anything: the base is read while it
	// waits.
	released := filepath.Join(t.TempDir(), "released")
	bin := filepath.Dir(claudetest.WrappedGit(t, "until [ -e '"+released+"' ]; do sleep 0.01; done"))
	t.Setenv("PATH", bin+string(os.PathListSeparator)+os.Getenv("PATH"))
	release := func() { os.WriteFile(released, nil, 0o644) } //nolint:errcheck // the test fails waiting if not

	fa := &runsApprovals{runs: map[string]approvals.Run{}}
	m := catManager(t, func(c *Config) { c.Approvals, c.MaxDuration = fa, time.Hour })
	t.Cleanup(release) // before the Manager stops its runs
	before := time.Now()
	r, err := m.Start(context.Background(), Spec{Kind: KindBuild, Checkout: checkout, Prompt: "x"})
	if err != nil {
		t.Fatal(err)
	}
	await.For(t, 10*time.Second, "the run's end, while its base is read", func() bool {
		ar := fa.run(r.ID())
		return ar != nil && !ar.Ends().IsZero()
	})
	ends := fa.run(r.ID()).Ends()
	if !r.Info().Start.IsZero() {
		t.Fatal("the owner heard of the start before the base was read: the test shows nothing")
	}
	if ends.Before(before.Add(time.Hour)) || ends.After(time.Now().Add(time.Hour)) {
		t.Errorf("the run ends %s after the test began, want an hour after its agent started", ends.Sub(before))
	}
	release()
	await.For(t, 30*time.Second, "the owner to hear of the start", func() bool { return !r.Info().Start.IsZero() })
	if got, want := r.Ends(), r.Info().Start.Add(time.Hour); !got.Equal(ends) || !got.Equal(want) {
		t.Errorf("once started, the run ends at %s, want %s, as it said before (%s)", got, want, ends)
	}
}
