package app

import (
	"context"
	"os"
	"testing"
	"time"

	"github.com/segwi/segwi/internal/testing/proctest"
	"github.com/segwi/segwi/runs"
	"github.com/segwi/segwi/settings"
)

// The run window's Push ends what the run left running before anything else: such a
// process could rewrite the checkout's git configuration while the push reads it.
func TestPushEndsWhatTheRunLeftRunningFirst(t *testing.T) {
	stateDir, checkout := t.TempDir(), t.TempDir() // not a repository: the push is refused after
	id := "20260101-000000-a1b2c3"
	writeRunRecord(t, stateDir, runs.Info{ID: id, Kind: runs.KindBuild, Checkout: checkout, State: runs.StateSucceeded, Created: time.Now()})
	pid := proctest.Detach(t, append(os.Environ(), "SEGWI_RUN_ID="+id), 7511)

	p := corePusher{settings: func() settings.Settings { return settings.Settings{} }, stateDir: stateDir}
	if _, err := p.Push(context.Background(), id, checkout); err == nil {
		t.Errorf("Push of a folder that is not a repository succeeded")
	}
	if proctest.Alive(pid, "sleep 7511") {
		t.Errorf("process %d, which run %s left running, is alive after Push", pid, id)
	}
	var killed bool
	runs.ReadEvents(stateDir, id, func(e runs.Event) error {
		killed = killed || e.Type == runs.EventLeftover && e.Process.PID == pid && e.Process.Killed
		return nil
	})
	if !killed {
		t.Errorf("the run's events do not say process %d was killed", pid)
	}
}
