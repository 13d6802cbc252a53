package tray

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"slices"
	"strings"
	"testing"
	"time"

	"fyne.io/systray"
	"github.com/godbus/dbus/v5"

	"github.com/segwi/segwi/internal/testing/await"
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
	out, err := exec.Command("go", "list", "-deps", "github.com/segwi/segwi/tray", "github.com/segwi/segwi/control", "github.com/segwi/segwi/internal/roots/hub", "github.com/segwi/segwi/internal/roots/trayproc").CombinedOutput()
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

// TestAChangeKeepsTheMenuItemsIds checks that a change of labels, of states or a run
// leaving updates the menu in place: a tray host that read the menu a moment before
// (the person has it open) clicks an id that still does what its label said. Only a new
// run builds the menu anew. (A rebuild while the host had the menu open lost a click in
// CI: systray drops a click on an id that is gone.)
func TestAChangeKeepsTheMenuItemsIds(t *testing.T) {
	tr := New(Actions{})
	ids := func() map[string]*systray.MenuItem {
		tr.mu.Lock()
		defer tr.mu.Unlock()
		m := make(map[string]*systray.MenuItem)
		for _, e := range tr.entries {
			if e.mi != nil && !e.hidden {
				m[e.item.Label] = e.mi
			}
		}
		return m
	}
	web := Run{ID: "r1", Name: "web", Kind: runs.KindBuild, State: runs.StateRunning, Since: t0}
	api := Run{ID: "r2", Name: "api", Kind: runs.KindAsk, State: runs.StateRunning, Since: t0}
	tr.Show(Snapshot{Now: t0, Canary: true, Runs: []Run{web, api}})
	before := ids()

	waiting := web
	waiting.State, waiting.Waiting = runs.StateWaiting, runs.WaitApproval
	tr.Show(Snapshot{Now: t0.Add(3 * time.Minute), Canary: false, Pending: 1, Runs: []Run{waiting}})
	after := ids()
	for _, label := range []string{LabelNewBuild, LabelAsk, LabelHistory, LabelUsage, LabelSettings, LabelQuit} {
		if before[label] == nil || before[label] != after[label] {
			t.Errorf("%q is item %v before the change and %v after; want the same item", label, before[label], after[label])
		}
	}
	if got := menuLines(tr.items); !slices.Contains(got, LabelCanary+" (off)") {
		t.Errorf("the menu after the change is %q; want the canary item disabled", got)
	}
	lines := menuLines(tr.items)
	if len(after) != len(lines)-strings.Count(strings.Join(lines, "\n"), "---") {
		t.Errorf("the menu shows %d items, want those of %q: the run that left is still shown", len(after), menuLines(tr.items))
	}
	var runItem *systray.MenuItem
	for label, mi := range after {
		if strings.HasPrefix(label, "web · build") {
			runItem = mi
		}
	}
	if runItem == nil {
		t.Fatalf("the menu after the change is %q; want the web run's item", menuLines(tr.items))
	}
	if runItem != before["web · build · running <1m"] {
		t.Errorf("the web run's item changed from %v to %v; want its label changed in place", before["web · build · running <1m"], runItem)
	}

	// A run that is new to the menu takes a free line kept for it: nothing is built anew.
	tr.Show(Snapshot{Now: t0, Canary: true, Runs: []Run{waiting, api}})
	again := ids()
	for _, label := range []string{LabelNewBuild, LabelAsk, LabelHistory, LabelUsage, LabelSettings, LabelQuit} {
		if after[label] != again[label] {
			t.Errorf("%q is item %v before a new run and %v after; want the same item", label, after[label], again[label])
		}
	}
	if again["web · build · ⚠ waiting for you <1m"] != runItem {
		t.Errorf("the web run's item changed when a run came: %v", again)
	}
	apiLine := "api · ask · running <1m"
	if again[apiLine] == nil {
		t.Fatalf("the menu after a new run is %q; want the api run", menuLines(tr.items))
	}
	if act, ok := tr.actionOf(again[apiLine]); !ok || act != (Action{Verb: OpenRun, Run: "r2"}) {
		t.Errorf("a click on the new run's line does %+v, %v; want it to open r2", act, ok)
	}
	if len(again) != len(menuLines(tr.items))-3 { // its three separators
		t.Errorf("the menu shows %d items, want those of %q", len(again), menuLines(tr.items))
	}

	// No runs, then runs again: the "No runs going" line and the free lines are kept.
	tr.Show(Snapshot{Now: t0, Canary: true})
	none := ids()
	if none[LabelNoRuns] == nil || none[LabelNewBuild] != again[LabelNewBuild] {
		t.Errorf("with no runs the menu is %v; want No runs going, and the same items", none)
	}
	if act, ok := tr.actionOf(runItem); !ok || act.Run != "r1" {
		t.Errorf("a click on the line of a run that left does %+v, %v; want it to open that run still", act, ok)
	}
	tr.Show(Snapshot{Now: t0, Canary: true, Runs: []Run{api}})
	if back := ids(); back[LabelNewBuild] != again[LabelNewBuild] || back[apiLine] == nil {
		t.Errorf("a run after none rebuilt the menu or lost the run: %v", back)
	}
}

func TestPlaceInKeepsSeparatorsAndOrder(t *testing.T) {
	for _, tt := range []struct {
		shown, wanted []string
		at            []int
		ok            bool
	}{
		{[]string{"a", "---", "b"}, []string{"a", "---", "b"}, []int{0, 1, 2}, true},
		{[]string{"a", "note", "---", "b"}, []string{"a", "---", "b"}, []int{0, 2, 3}, true}, // the note is hidden
		{[]string{"a", "---", "b"}, []string{"---", "b"}, []int{1, 2}, true},                 // a is hidden
		{[]string{"a", "---", "b"}, []string{"a", "b"}, nil, false},                          // a separator cannot be hidden
		{[]string{"a", "b"}, []string{"b", "a"}, nil, false},                                 // out of order
		{[]string{"a"}, []string{"a", "c"}, nil, false},                                      // a new key
		{[]string{"a", "b", "---"}, []string{"a", "---"}, []int{0, 2}, true},
		// A new run takes a free line after the runs shown.
		{[]string{"---", "run:r1", "run:", "run:", "---"}, []string{"---", "run:r1", "run:r2", "---"}, []int{0, 1, 2, 4}, true},
		// A run keeps its own line rather than take the free line of one that left before it.
		{[]string{"---", "run:", "run:r2", "run:", "---"}, []string{"---", "run:r2", "run:r3", "---"}, []int{0, 2, 3, 4}, true},
		// No free line left: the menu is built anew.
		{[]string{"---", "run:r1", "---"}, []string{"---", "run:r1", "run:r2", "---"}, nil, false},
	} {
		at, ok := placeIn(tt.shown, tt.wanted)
		if ok != tt.ok || (ok && !slices.Equal(at, tt.at)) {
			t.Errorf("placeIn(%q, %q) = %v, %v; want %v, %v", tt.shown, tt.wanted, at, ok, tt.at, tt.ok)
		}
	}
}

// TestTheTrayQuitsWhileTheMenuChanges quits the tray while its menu keeps changing, as
// on SIGTERM with runs ending: systray closes its bus connection on quitting, and a
// change shown after that panicked ("dbus: connection closed by user"), ending segwi with
// exit status 2 instead of a clean exit.
//
// systray runs once per process and keeps its bus connection in package globals, closed
// once it quits: the test runs in a process of its own, so that the other tests' trays
// (and a -count above 1) do not meet a closed connection.
func TestTheTrayQuitsWhileTheMenuChanges(t *testing.T) {
	if _, err := dbus.SessionBus(); err != nil {
		t.Skipf("no session bus to show a tray on (scripts/test.sh starts one): %v", err)
	}
	if os.Getenv("SEGWI_TRAY_QUIT_TEST") != "1" {
		cmd := exec.Command(os.Args[0], "-test.run=^TestTheTrayQuitsWhileTheMenuChanges$", "-test.count=1")
		cmd.Env = append(os.Environ(), "SEGWI_TRAY_QUIT_TEST=1")
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("the tray's process ended with %v:\n%s", err, out)
		}
		return
	}
	tr := New(Actions{})
	ctx, cancel := context.WithCancel(context.Background())
	ran := make(chan error, 1)
	go func() { ran <- tr.Run(ctx, Snapshot{Now: t0}) }()

	stop := make(chan struct{})
	changing := make(chan struct{})
	go func() {
		defer close(changing)
		web := Run{ID: "r1", Name: "web", Kind: runs.KindBuild, State: runs.StateRunning, Since: t0}
		for i := 0; ; i++ {
			select {
			case <-stop:
				return
			default:
			}
			s := Snapshot{Now: t0.Add(time.Duration(i) * time.Minute), Pending: i % 2}
			if i%3 == 0 {
				s.Runs = []Run{web}
			}
			tr.Show(s) // icon, tooltip and menu change each time
		}
	}()
	bus, err := dbus.ConnectSessionBus()
	if err != nil {
		t.Fatal(err)
	}
	defer bus.Close()
	name := fmt.Sprintf("org.kde.StatusNotifierItem-%d-1", os.Getpid()) // systray's
	await.For(t, within, "the tray to be on the bus as "+name, func() bool {
		var has bool
		return bus.BusObject().Call("org.freedesktop.DBus.NameHasOwner", 0, name).Store(&has) == nil && has
	})
	cancel()
	select {
	case err := <-ran:
		if err != nil {
			t.Errorf("Run: %v", err)
		}
	case <-time.After(within):
		t.Fatal("Run did not return once its context was done")
	}
	// Changes after the quit are not shown, and end nothing.
	for i := range 100 {
		tr.Show(Snapshot{Now: t0.Add(time.Duration(i) * time.Hour), Pending: i})
	}
	close(stop)
	<-changing
}
