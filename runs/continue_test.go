package runs

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/segwi/segwi/internal/testing/await"
)

// A run that continues an ended one resumes its Claude Code session in the same checkout,
// and each record names the other.
func TestAContinuedRunResumesTheEarlierSession(t *testing.T) {
	m, _ := testManager(t, nil)
	checkout := newCheckout(t)
	first := wait(t, start(t, m, Spec{Checkout: checkout, Prompt: "fake:success", Model: "sonnet"}))
	r, err := m.Continue(context.Background(), first.ID[:len(first.ID)-1], "fake:success and now the tests", false, nil)
	if err != nil {
		t.Fatalf("Continue: %v", err)
	}
	next := wait(t, r)
	if next.State != StateSucceeded || next.ContinuedFrom != first.ID || next.Checkout != first.Checkout || next.Kind != KindBuild || next.Model != "sonnet" {
		t.Errorf("the continuation: %s, from %q, in %s, %s, model %q; want succeeded, from %s, in %s, build, sonnet",
			next.State, next.ContinuedFrom, next.Checkout, next.Kind, next.Model, first.ID, first.Checkout)
	}
	if i := slices.Index(next.Argv, "--resume"); i < 0 || i+1 >= len(next.Argv) || next.Argv[i+1] != "sess-1" {
		t.Errorf("argv %q does not resume session sess-1", next.Argv)
	}
	earlier, err := Load(m.config().StateDir, first.ID)
	if err != nil || !slices.Equal(earlier.ContinuedBy, []string{next.ID}) {
		t.Errorf("the earlier run's record: continued by %q (%v), want [%s]", earlier.ContinuedBy, err, next.ID)
	}
	last := events(t, m, first.ID)
	if e := last[len(last)-1]; e.Type != EventContinued || e.Text != next.ID {
		t.Errorf("the earlier run's last event = %+v, want continued by %s", e, next.ID)
	}
}

func TestWhatCannotBeContinued(t *testing.T) {
	m, _ := testManager(t, nil)
	if _, err := m.Continue(context.Background(), "20250101-000000-000000", "go on", false, nil); !errors.Is(err, ErrNotFound) {
		t.Errorf("an unknown run: %v, want ErrNotFound", err)
	}
	live := start(t, m, Spec{Prompt: "fake:success", KeepOpen: true})
	if _, err := m.Continue(context.Background(), live.ID(), "go on", false, nil); err == nil || !strings.Contains(err.Error(), "send it a follow-up instead") {
		t.Errorf("a live run: %v, want a refusal pointing at a follow-up", err)
	}
	await.For(t, 10*time.Second, "the kept-open run to wait for a reply", func() bool { return live.Info().Waiting == WaitReply })
	live.CloseInput()
	wait(t, live)
	noSession := wait(t, start(t, m, Spec{Prompt: "fake:success"}))
	// As a run that failed before Claude Code said its session (or a record edited by hand).
	for _, session := range []string{"", "--dangerously-skip-permissions"} {
		if _, err := Annotate(m.config().StateDir, noSession.ID, Event{Type: EventStatus, Text: "test"}, func(in *Info) { in.SessionID = session }); err != nil {
			t.Fatal(err)
		}
		if _, err := m.Continue(context.Background(), noSession.ID, "go on", false, nil); !errors.Is(err, ErrNoSession) {
			t.Errorf("a run with session %q: %v, want ErrNoSession", session, err)
		}
	}
}

// Only what looks like a session id is passed to --resume: never a flag, never a path.
func TestValidSessionID(t *testing.T) {
	for id, want := range map[string]bool{
		"0b9f5c1e-3a2d-4c8e-9f1a-2b3c4d5e6f70": true,
		"a":                                    true,
		"A_b-9":                                true,
		strings.Repeat("a", 128):               true,
		strings.Repeat("a", 129):               false,
		"":                                     false,
		"-rf":                                  false,
		"_a":                                   false,
		"--resume=x":                           false,
		"a/b":                                  false,
		"../x":                                 false,
		"a b":                                  false,
		"é":                                    false,
	} {
		if got := validSessionID(id); got != want {
			t.Errorf("validSessionID(%q) = %v, want %v", id, got, want)
		}
	}
}
