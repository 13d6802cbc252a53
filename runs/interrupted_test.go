package runs

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

func TestNewManagerMarksRunsOfAGoneSegwiInterrupted(t *testing.T) {
	state := t.TempDir()
	mk := func(id string, s State, w ...WaitReason) string {
		dir := filepath.Join(RunsDir(state), id)
		os.MkdirAll(dir, 0o700)
		info := Info{ID: id, Kind: KindBuild, State: s, Created: time.Now()}
		if len(w) > 0 {
			info.Waiting = w[0]
		}
		if err := writeInfo(dir, info); err != nil {
			t.Fatal(err)
		}
		os.WriteFile(filepath.Join(dir, eventsFile), []byte(`{"run":"`+id+`","seq":7,"type":"state"}`+"\n"+`{"run":"x","seq":8,"ty`), 0o600)
		return dir
	}
	mk("20250101-000000-aaaaaa", StateRunning)
	mk("20250101-000001-bbbbbb", StateSucceeded)
	liveDir := mk("20250101-000002-cccccc", StateWaiting)
	mk("20250101-000003-dddddd", StateWaiting, WaitReply)
	lock, err := lockRun(liveDir) // another segwi, still alive, owns this one
	if err != nil {
		t.Fatal(err)
	}
	defer lock.Close()

	if _, err := NewManager(Config{StateDir: state, Runtime: ClaudeRuntime(fakeClaude)}); err != nil {
		t.Fatalf("NewManager: %v", err)
	}
	want := map[string]State{"20250101-000000-aaaaaa": StateInterrupted, "20250101-000001-bbbbbb": StateSucceeded, "20250101-000002-cccccc": StateWaiting,
		"20250101-000003-dddddd": StateInterrupted}
	infos, damaged, err := List(state)
	if err != nil || len(damaged) != 0 || len(infos) != 4 {
		t.Fatalf("List = %d runs, damaged %v, %v; want 4 runs", len(infos), damaged, err)
	}
	for _, info := range infos {
		if info.State != want[info.ID] {
			t.Errorf("run %s: %s, want %s", info.ID, info.State, want[info.ID])
		}
		if info.State == StateInterrupted && info.Waiting != "" {
			t.Errorf("run %s: interrupted, still waiting for %q", info.ID, info.Waiting)
		}
	}
	var last Event
	if err := ReadEvents(state, "20250101-000000", func(e Event) error { last = e; return nil }); err != nil {
		t.Fatalf("ReadEvents by prefix: %v", err)
	}
	if last.Seq != 8 || last.State == nil || last.State.To != StateInterrupted || last.State.From != StateRunning {
		t.Errorf("last event = %+v, want seq 8 running -> interrupted", last)
	}
}

// The start of every segwi reads the cgroup each ended run names from the index without
// decoding its summary: a task that quotes a cgroup key is not mistaken for one, and a
// path with characters JSON escapes reads back as recorded.
func TestTheCgroupOfASummaryIsReadAsRecorded(t *testing.T) {
	for _, info := range []Info{
		{ID: "a", Prompt: `Set "cgroup":"/sys/fs/cgroup/victim" in the config`},
		{ID: "b", Prompt: `Set "cgroup":"/x"`, Cgroup: `/sys/fs/cgroup/a "quoted" <dir>/segwi-run-b`},
		{ID: "c", Cgroup: "/sys/fs/cgroup/user.slice/segwi-run-c"},
	} {
		b, err := json.Marshal(SummaryOf(info))
		if err != nil {
			t.Fatal(err)
		}
		if got := summaryCgroup(b); got != info.Cgroup {
			t.Errorf("the cgroup of summary %s = %q, want %q", b, got, info.Cgroup)
		}
	}
}

// A run recorded after the index was written, left running by a segwi that is gone, is
// marked interrupted though the index never knew it.
func TestNewManagerMarksARunTheIndexDoesNotKnow(t *testing.T) {
	state := t.TempDir()
	long := time.Date(2025, 6, 1, 12, 0, 0, 0, time.UTC)
	indexRun(t, state, Info{ID: "20250601-120000-aaaaaa", Kind: KindBuild, State: StateSucceeded, Created: long}, long)
	Summaries(state)
	indexRun(t, state, Info{ID: "20250601-130000-bbbbbb", Kind: KindBuild, State: StateRunning, Created: long}, long.Add(time.Hour))
	if _, err := NewManager(Config{StateDir: state, Runtime: ClaudeRuntime(fakeClaude)}); err != nil {
		t.Fatalf("NewManager: %v", err)
	}
	if in, err := Load(state, "bbbbbb"); err != nil || in.State != StateInterrupted {
		t.Errorf("the run unknown to the index is %s (%v), want interrupted", in.State, err)
	}
	// The index agrees with the records (package record's tests check it at length).
	infos, _, err := List(state)
	if err != nil {
		t.Fatal(err)
	}
	var want []Summary
	for _, in := range infos {
		want = append(want, SummaryOf(in))
	}
	got, _, err := Summaries(state)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("after NewManager, Summaries differ from the records (-records +Summaries):\n%s", diff)
	}
}

// indexRun writes info as the record of its folder under state, as segwi does, and dates
// it (its modification time) at, so that the index takes it as settled; it returns the
// folder.
func indexRun(t *testing.T, state string, info Info, at time.Time) string {
	t.Helper()
	dir := filepath.Join(RunsDir(state), info.ID)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := writeInfo(dir, info); err != nil {
		t.Fatal(err)
	}
	if err := os.Chtimes(filepath.Join(dir, infoFile), at, at); err != nil {
		t.Fatal(err)
	}
	return dir
}
