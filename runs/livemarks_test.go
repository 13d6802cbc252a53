package runs

import (
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"
)

// liveRecord writes, under state, the record a segwi that was killed leaves: a run in a
// live state whose folder lock no process holds; marked says whether its marker is there,
// as a segwi that marks its runs leaves it.
func liveRecord(t *testing.T, state, id string, marked bool) string {
	t.Helper()
	dir := filepath.Join(RunsDir(state), id)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	if marked {
		if err := markLive(state, id); err != nil {
			t.Fatal(err)
		}
	}
	if err := writeInfo(dir, Info{ID: id, Kind: KindBuild, Checkout: "/src", State: StateRunning, Created: time.Now(),
		Cgroup: "/sys/fs/cgroup/segwi-run-" + id}); err != nil {
		t.Fatal(err)
	}
	return dir
}

// stampOfTheLastBoot makes the stamp name under state one written before the system
// started: it holds another boot's id, and is dated before the start.
func stampOfTheLastBoot(t *testing.T, state, name string) {
	t.Helper()
	path := filepath.Join(liveDir(state), name)
	if err := os.WriteFile(path, []byte(lastBootID+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	before := bootTime().Add(-time.Minute)
	if err := os.Chtimes(path, before, before); err != nil {
		t.Fatal(err)
	}
}

// lastBootID is a boot id of another boot of the system.
const lastBootID = "0f3c51a6-96b1-4d51-9e1a-2a6d3d5c1b7e"

func stateOf(t *testing.T, dir string) State {
	t.Helper()
	info, err := readInfo(dir)
	if err != nil {
		t.Fatal(err)
	}
	return info.State
}

func marked(t *testing.T, state string) []string {
	t.Helper()
	ids, err := markedRuns(state)
	if err != nil {
		t.Fatal(err)
	}
	slices.Sort(ids)
	return ids
}

// A run is marked live from before its first record until it ended: a segwi that is
// killed leaves the marks of its runs, and the next segwi looks at those runs only, not
// at every record (with 10,000 runs, 44 to 72 ms of CPU at every `segwi run`'s start).
func TestARunIsMarkedLiveUntilItEnds(t *testing.T) {
	m, recDir := testManager(t, nil)
	state := m.config().StateDir
	r := start(t, m, Spec{Prompt: "fake:silent"})
	waitStart(t, recDir, r.ID())
	if got := marked(t, state); !slices.Equal(got, []string{r.ID()}) {
		t.Errorf("runs marked live while run %s goes: %v", r.ID(), got)
	}
	r.Stop()
	wait(t, r)
	if got := marked(t, state); len(got) != 0 {
		t.Errorf("runs marked live once run %s ended: %v, want none", r.ID(), got)
	}
}

// Once a segwi read every record since the system started, the next ones find a killed
// segwi's runs by their marks, and leave the marks of live runs and the runs not marked
// alone; after the system restarts (a power cut can lose a mark, which is not synced),
// the first segwi reads every record again.
func TestRunsLeftLiveAreFoundByTheirMarksUntilTheSystemRestarts(t *testing.T) {
	state := t.TempDir()
	if err := os.MkdirAll(RunsDir(state), 0o700); err != nil {
		t.Fatal(err)
	}
	if damaged := MarkInterrupted(state); len(damaged) != 0 { // the first since the start: every record
		t.Fatalf("MarkInterrupted: %v", damaged)
	}
	if !stampedSinceBoot(state, checkedStamp) {
		t.Fatal("no stamp says every record was read since the system started")
	}

	killed := liveRecord(t, state, "20250101-000000-aaaaaa", true)
	going := liveRecord(t, state, "20250101-000001-bbbbbb", true)
	lock, err := lockRun(going) // its segwi is alive
	if err != nil {
		t.Fatal(err)
	}
	defer lock.Close()
	lost := liveRecord(t, state, "20250101-000002-cccccc", false) // its mark lost in a power cut
	if damaged := MarkInterrupted(state); len(damaged) != 0 {
		t.Fatalf("MarkInterrupted: %v", damaged)
	}
	for dir, want := range map[string]State{killed: StateInterrupted, going: StateRunning, lost: StateRunning} {
		if got := stateOf(t, dir); got != want {
			t.Errorf("run %s: %s, want %s", filepath.Base(dir), got, want)
		}
	}
	if got, want := marked(t, state), []string{filepath.Base(going)}; !slices.Equal(got, want) {
		t.Errorf("runs still marked live: %v, want %v (the interrupted run's mark gone)", got, want)
	}

	stampOfTheLastBoot(t, state, checkedStamp) // the system restarted since the stamp
	if damaged := MarkInterrupted(state); len(damaged) != 0 {
		t.Fatalf("MarkInterrupted: %v", damaged)
	}
	if got := stateOf(t, lost); got != StateInterrupted {
		t.Errorf("the run whose mark was lost: %s after the system restarted, want interrupted", got)
	}
	if !stampedSinceBoot(state, checkedStamp) {
		t.Error("reading every record did not stamp the state folder")
	}
}

// A stamp says it was written since the system started by the boot id in it, whatever the
// clock says: a machine without a clock of its own may start with its clock behind the
// last boot's (a stamp of that boot then looks new) or ahead of it, until it sets its
// clock (a stamp of this boot then looks old). A stamp without a boot id, as a segwi of
// before boot ids wrote it, goes by its date.
func TestAStampIsOfThisBootWhateverTheClockSays(t *testing.T) {
	if bootID() == "" {
		t.Skip("this system has no boot id: the stamps are dated")
	}
	state := t.TempDir()
	path := filepath.Join(liveDir(state), checkedStamp)
	write := func(content string, date time.Time) {
		t.Helper()
		if err := os.WriteFile(path, []byte(content), 0o600); err != nil {
			t.Fatal(err)
		}
		if err := os.Chtimes(path, date, date); err != nil {
			t.Fatal(err)
		}
	}
	if err := stamp(state, checkedStamp); err != nil {
		t.Fatal(err)
	}
	if !stampedSinceBoot(state, checkedStamp) {
		t.Fatal("a stamp written now is not of this boot")
	}
	lastYear, nextYear := bootTime().AddDate(-1, 0, 0), time.Now().AddDate(1, 0, 0)
	for _, c := range []struct {
		what    string
		content string
		date    time.Time
		want    bool
	}{
		{"the last boot's stamp dated after the start", lastBootID + "\n", nextYear, false},
		{"this boot's stamp dated before the start", bootID() + "\n", lastYear, true},
		{"a stamp without a boot id dated before the start", "", lastYear, false},
		{"a stamp without a boot id dated after the start", "", time.Now(), true},
	} {
		write(c.content, c.date)
		if got := stampedSinceBoot(state, checkedStamp); got != c.want {
			t.Errorf("%s: written since the start = %v, want %v", c.what, got, c.want)
		}
	}
}

// A segwi too old to mark its runs may be running beside the first segwi that reads every
// record: that one marks the runs it finds live, so that they are found if their segwi is
// killed later.
func TestReadingEveryRecordMarksTheRunsOfALiveSegwi(t *testing.T) {
	state := t.TempDir()
	going := liveRecord(t, state, "20250101-000001-bbbbbb", false)
	lock, err := lockRun(going)
	if err != nil {
		t.Fatal(err)
	}
	if damaged := MarkInterrupted(state); len(damaged) != 0 {
		t.Fatalf("MarkInterrupted: %v", damaged)
	}
	lock.Close() // its segwi is killed
	if damaged := MarkInterrupted(state); len(damaged) != 0 {
		t.Fatalf("MarkInterrupted: %v", damaged)
	}
	if got := stateOf(t, going); got != StateInterrupted {
		t.Errorf("the run of a killed segwi too old to mark it: %s, want interrupted", got)
	}
}

// A manager that makes cgroups learns before each run that a run went without one since
// the system started, in any segwi that may since have been killed, from one stamp in the
// state folder: not from a listing of every run (about 6 ms with 10,000, at every start).
func TestARunWithoutACgroupSinceBootCallsForASweepBeforeTheNextRun(t *testing.T) {
	if !canFindLeftovers {
		t.Skip("no sweep of /proc here")
	}
	if _, err := runCgroupHome(); err != nil {
		t.Skipf("no cgroups for runs here (%v): every run is swept for", err)
	}
	m, _ := testManager(t, nil)
	state := m.config().StateDir
	m.sweepBeforeRun(state)
	if m.sweep.needed {
		t.Fatal("a sweep is needed where every run had a cgroup")
	}
	stampOfTheLastBoot(t, state, noCgroupStamp)
	m.sweepBeforeRun(state)
	if m.sweep.needed {
		t.Fatal("a run without a cgroup before the system started calls for a sweep")
	}
	if err := stamp(state, noCgroupStamp); err != nil { // another segwi's run, just now
		t.Fatal(err)
	}
	m.sweepBeforeRun(state)
	if !m.sweep.needed {
		t.Error("a run another segwi ran without a cgroup calls for no sweep before the next run")
	}
}

// A run left live whose record cannot be read is named (Damaged), and keeps its mark: it
// is looked at again until its record is repaired or its folder moved away.
func TestARunLeftLiveWithADamagedRecordIsNamed(t *testing.T) {
	state := t.TempDir()
	if err := os.MkdirAll(RunsDir(state), 0o700); err != nil {
		t.Fatal(err)
	}
	MarkInterrupted(state) // every record, once since the system started
	dir := liveRecord(t, state, "20250101-000000-aaaaaa", true)
	if err := os.WriteFile(filepath.Join(dir, infoFile), []byte(`{"id":"20250101-0`), 0o600); err != nil { // cut short
		t.Fatal(err)
	}
	for range 2 {
		damaged := MarkInterrupted(state)
		if len(damaged) != 1 || damaged[0].File != filepath.Join(dir, infoFile) {
			t.Fatalf("MarkInterrupted = %v, want %s named", damaged, filepath.Join(dir, infoFile))
		}
	}
	if got := marked(t, state); len(got) != 1 {
		t.Errorf("runs marked live: %v, want the damaged one still", got)
	}
}
