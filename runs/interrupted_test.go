package runs

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
	"time"
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
