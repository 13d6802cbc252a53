package tray

import (
	"context"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/segwi/segwi/runs"
)

// within bounds the waits of these tests for something that happens at once.
const within = 10 * time.Second

func TestFollowShowsEachChangeAndTicksOnlyForATimeShown(t *testing.T) {
	tr := New(Actions{})
	tr.every = 5 * time.Millisecond
	taken := make(chan Snapshot, 100)
	current := make(chan Snapshot, 1)
	current <- Snapshot{Now: t0}
	snapshot := func() Snapshot {
		s := <-current
		current <- s
		taken <- s
		return s
	}
	next := func(what string) Snapshot {
		t.Helper()
		select {
		case s := <-taken:
			return s
		case <-time.After(within):
			t.Fatalf("no snapshot taken %s", what)
			return Snapshot{}
		}
	}
	ctx, cancel := context.WithCancel(context.Background())
	changes := make(chan runs.Event, 4)
	done := make(chan struct{})
	go func() {
		defer close(done)
		Follow(ctx, tr, changes, snapshot)
	}()
	defer func() { cancel(); <-done }()

	next("at start")
	// A burst of changes is one refresh, or two if the refresh began mid-burst.
	<-current
	current <- Snapshot{Now: t0, Runs: []Run{{ID: "r", Name: "web", Kind: runs.KindBuild, State: runs.StateRunning, Since: t0}}}
	changes <- runs.Event{}
	changes <- runs.Event{}
	if s := next("after a change"); len(s.Runs) != 1 {
		t.Fatalf("the snapshot after the change has %d runs", len(s.Runs))
	}
	// With a running run's time shown, it refreshes without any change.
	next("for the elapsed time, with no change")
	next("for the elapsed time, again")
	tr.mu.Lock()
	shown := menuLines(tr.items)
	tr.mu.Unlock()
	if !strings.Contains(strings.Join(shown, "\n"), "web · build · running <1m") {
		t.Errorf("the tray shows %q, without the run", shown)
	}
}

// TestNoFyneInTheTrayProcess checks that the tray and its channel link no Fyne package:
// the tray process must not carry Fyne's driver, which starts GL and a render loop.
func TestNoFyneInTheTrayProcess(t *testing.T) {
	out, err := exec.Command("go", "list", "-deps", "github.com/segwi/segwi/tray", "github.com/segwi/segwi/control", "github.com/segwi/segwi/internal/hub", "github.com/segwi/segwi/internal/trayproc").CombinedOutput()
	if err != nil {
		t.Fatalf("go list: %v\n%s", err, out)
	}
	deps := strings.Fields(string(out))
	var fyne []string
	for _, d := range deps {
		if strings.HasPrefix(d, "fyne.io/fyne/") {
			fyne = append(fyne, d)
		}
	}
	if len(fyne) > 0 {
		t.Errorf("the tray process's packages import Fyne: %s", strings.Join(fyne, ", "))
	}
	if !strings.Contains(string(out), "fyne.io/systray\n") {
		t.Errorf("go list -deps does not list fyne.io/systray; is the check reading the right packages?\n%s", out)
	}
}
