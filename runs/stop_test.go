package runs

import (
	"errors"
	"slices"
	"syscall"
	"testing"
	"time"

	"github.com/segwi/segwi/internal/testing/await"
)

func TestStopReachesAGroupThatIgnoresSIGTERM(t *testing.T) {
	tests := []struct {
		name       string
		secondStop bool
	}{
		{"the kill comes after the grace period", false},
		{"a second stop kills at once", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m, recDir := testManager(t, func(c *Config) {
				c.StopGrace = 400 * time.Millisecond
				if tt.secondStop {
					c.StopGrace = time.Hour
				}
			})
			r := start(t, m, Spec{Prompt: "fake:ignore-term"})
			rec := waitStart(t, recDir, r.ID())
			await.For(t, 10*time.Second, "the run to be running", func() bool { return r.State() == StateRunning })
			began := time.Now()
			r.Stop()
			if tt.secondStop {
				await.For(t, 10*time.Second, "the run to be stopping", func() bool { return r.State() == StateStopping })
				r.Stop()
			}
			info := wait(t, r)
			if info.State != StateStopped {
				t.Errorf("state = %s (%s), want stopped", info.State, info.Reason)
			}
			if !tt.secondStop && time.Since(began) < 400*time.Millisecond {
				t.Errorf("ended %s after the stop, before the grace period", time.Since(began))
			}
			if rec.Grandchild == 0 {
				t.Fatalf("fakeclaude started no grandchild")
			}
			if groupAlive(rec.PGID) {
				t.Errorf("a process of group %d is alive after the run ended", rec.PGID)
			}
			// A killed process lingers as a zombie until its new parent reaps it.
			await.For(t, 10*time.Second, "kill(-pgid, 0) to return ESRCH", func() bool {
				return errors.Is(syscall.Kill(-rec.PGID, 0), syscall.ESRCH)
			})
			evs := events(t, m, r.ID())
			if _, ok := find(evs, func(e Event) bool { return e.Type == EventStatus && e.Subtype == "kill" }); !ok {
				t.Errorf("no kill status among %v", types(evs))
			}
			if got := states(evs); !slices.Equal(got[len(got)-2:], []State{StateStopping, StateStopped}) {
				t.Errorf("states = %v, want them to end stopping, stopped", got)
			}
		})
	}
}
