package hub_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/segwi/segwi/control"
	"github.com/segwi/segwi/internal/roots/hub"
	"github.com/segwi/segwi/internal/testing/coretest"
	"github.com/segwi/segwi/settings"
)

// The tray shows its menu before the hub has its core (building it reads the run
// records): a window asked for meanwhile waits for the core, then opens, and its window
// process ends with the hub. A window process started before, outside the hub's context,
// kept the tray from quitting on SIGTERM.
func TestAWindowAskedForBeforeTheCoreWaitsForIt(t *testing.T) {
	windows := &fakeWindows{t: t}
	h := hub.New(hub.Options{
		Program: "segwi test tray", Spawn: windows.spawn, Token: &fakeToken{},
		Checks: func(settings.Settings) []error { return nil },
	})

	early, cancelEarly := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancelEarly()
	if err := h.Show(early, control.Show{Window: control.ShowSettings}); !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("Show before the hub has its core = %v, want it to wait until its context is done", err)
	}
	if n := windows.count(); n != 0 {
		t.Fatalf("%d window processes started before the hub had its core, want none", n)
	}

	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	shown := make(chan error, 1)
	go func() { shown <- h.Show(ctx, control.Show{Window: control.ShowHistory}) }()
	c, _ := coretest.New(t, "", coretest.Options{Decider: h})
	done := make(chan struct{})
	go func() {
		defer close(done)
		h.Run(ctx, c)
	}()
	select {
	case err := <-shown:
		if err != nil {
			t.Fatalf("Show once the hub has its core: %v", err)
		}
	case <-time.After(within):
		t.Fatal("the window asked for before the core did not open once the hub had it")
	}
	if got := windows.window(t, 1).nextShow(t); got.Window != control.ShowHistory {
		t.Errorf("the window process was asked for %q, want %q", got.Window, control.ShowHistory)
	}
	cancel()
	select {
	case <-done:
	case <-time.After(within):
		t.Fatal("the hub's Run did not return once its context was done")
	}
}
