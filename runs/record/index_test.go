package record

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

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
	if err := os.Chtimes(filepath.Join(dir, InfoFile), at, at); err != nil {
		t.Fatal(err)
	}
	return dir
}

// wantSummaries is what Summaries must return for state: the summaries of what List reads
// from the records, and the same damaged files.
func wantSummaries(t *testing.T, state string) ([]Summary, []string) {
	t.Helper()
	infos, damaged, err := List(state)
	if err != nil {
		t.Fatalf("List: %v", err)
	}
	var want []Summary
	for _, in := range infos {
		want = append(want, SummaryOf(in))
	}
	return want, damagedPaths(damaged)
}

func damagedPaths(ds []Damaged) []string {
	var out []string
	for _, d := range ds {
		out = append(out, d.File)
	}
	slices.Sort(out)
	return out
}

// checkSummaries fails t unless Summaries agrees with the records of state.
func checkSummaries(t *testing.T, state, when string) {
	t.Helper()
	want, wantDamaged := wantSummaries(t, state)
	got, damaged, err := Summaries(state)
	if err != nil {
		t.Fatalf("%s: Summaries: %v", when, err)
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("%s: Summaries differ from the records (-records +Summaries):\n%s", when, diff)
	}
	if diff := cmp.Diff(wantDamaged, damagedPaths(damaged)); diff != "" {
		t.Errorf("%s: damaged records (-List +Summaries):\n%s", when, diff)
	}
}

// indexLines returns the run lines of state's index file, each cut to its id, flags and state.
func indexLines(t *testing.T, state string) []string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(state, indexFile))
	if err != nil {
		t.Fatalf("reading the index: %v", err)
	}
	var out []string
	for _, line := range strings.Split(strings.TrimSuffix(string(b), "\n"), "\n") {
		f := strings.Split(line, "\t")
		if len(f) == 8 {
			out = append(out, f[0]+" "+f[5]+" "+f[6])
		}
	}
	return out
}

func TestSummariesFollowTheRecords(t *testing.T) {
	state := t.TempDir()
	long := time.Date(2025, 6, 1, 12, 0, 0, 0, time.UTC)
	code := 0
	for i, s := range []State{StateSucceeded, StateFailed, StateStopped, StateInterrupted} {
		id := fmt.Sprintf("20250601-12000%d-aaaaa%d", i, i)
		indexRun(t, state, Info{ID: id, Kind: KindBuild, Checkout: "/src/web", State: s, ExitCode: &code,
			Prompt: "fix the login\nand its tests\n" + strings.Repeat("more words ", 100), Argv: []string{"claude", "-p"},
			Created: long.Add(time.Duration(i) * time.Minute), End: long.Add(time.Hour), CostUSD: 0.25, Turns: 3,
			PullRequest: "https://github.com/ada/web/pull/1", ContinuedFrom: "20250101-000000-000000"}, long.Add(time.Hour))
	}
	first := filepath.Join(RunsDir(state), "20250601-120000-aaaaa0")
	checkSummaries(t, state, "with no index yet")
	got, _, _ := Summaries(state)
	if want := "fix the login…"; len(got) == 0 || got[0].Task != want || got[0].Dir != first {
		t.Errorf("the first run's summary has the task %q in %q, want %q in %s", got[0].Task, got[0].Dir, want, first)
	}
	checkSummaries(t, state, "from the index")

	tests := []struct {
		name   string
		change func(t *testing.T)
	}{
		{"a record rewritten as segwi writes it, the same size, its modification time put back", func(t *testing.T) {
			in, _ := ReadInfo(first)
			in.State = StateTimedOut // as long as "succeeded"
			indexRun(t, state, in, long.Add(time.Hour))
		}},
		{"a record edited in place, the same size, its modification time put back", func(t *testing.T) {
			path := filepath.Join(first, InfoFile)
			b, _ := os.ReadFile(path)
			if err := os.WriteFile(path, bytes.Replace(b, []byte("fix the login"), []byte("fix the logon"), 1), 0o600); err != nil {
				t.Fatal(err)
			}
			os.Chtimes(path, long.Add(time.Hour), long.Add(time.Hour))
		}},
		{"a new run", func(t *testing.T) {
			indexRun(t, state, Info{ID: "20250601-130000-bbbbbb", Kind: KindAsk, State: StateRunning, Created: long.Add(2 * time.Hour)}, long)
		}},
		{"a run just written, not yet settled", func(t *testing.T) {
			dir := filepath.Join(RunsDir(state), "20250601-140000-cccccc")
			os.MkdirAll(dir, 0o700)
			writeInfo(dir, Info{ID: "20250601-140000-cccccc", Kind: KindAsk, State: StateQueued, Created: long.Add(3 * time.Hour)})
		}},
		{"a run folder removed", func(t *testing.T) {
			os.RemoveAll(filepath.Join(RunsDir(state), "20250601-120001-aaaaa1"))
		}},
		{"a record damaged", func(t *testing.T) {
			os.WriteFile(filepath.Join(RunsDir(state), "20250601-120002-aaaaa2", InfoFile), []byte(`{"id":"20250601-120002-aaaaa2","kind":"bu`), 0o600)
		}},
		{"a damaged record repaired", func(t *testing.T) {
			indexRun(t, state, Info{ID: "20250601-120002-aaaaa2", Kind: KindBuild, State: StateStopped, Created: long}, long)
		}},
		{"a folder without a record, and a file beside the runs", func(t *testing.T) {
			os.MkdirAll(filepath.Join(RunsDir(state), "20250601-150000-dddddd"), 0o700)
			os.WriteFile(filepath.Join(RunsDir(state), "notes.txt"), []byte("mine"), 0o600)
		}},
		{"a run in a folder whose name holds a tab", func(t *testing.T) {
			indexRun(t, state, Info{ID: "odd\tname", Kind: KindAsk, State: StateSucceeded, Created: long}, long)
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tt.change(t)
			checkSummaries(t, state, "after the change")
			checkSummaries(t, state, "again, from the index written after it")
		})
	}
	if got, want := indexLines(t, state), []string{
		"20250601-120000-aaaaa0 - timed-out", "20250601-120002-aaaaa2 - stopped", "20250601-120003-aaaaa3 - interrupted",
		"20250601-130000-bbbbbb - running", "20250601-140000-cccccc r queued",
	}; !slices.Equal(got, want) {
		t.Errorf("the index holds %q, want %q (the run just written marked racy, the odd name left out)", got, want)
	}
}

// The index is a cache: whatever is wrong with it, the records say.
func TestADamagedIndexIsRebuiltFromTheRecords(t *testing.T) {
	long := time.Date(2025, 6, 1, 12, 0, 0, 0, time.UTC)
	setup := func(t *testing.T) (state string, index []byte) {
		state = t.TempDir()
		for i := range 3 {
			indexRun(t, state, Info{ID: fmt.Sprintf("20250601-12000%d-aaaaaa", i), Kind: KindBuild, State: StateSucceeded,
				Prompt: "task", Created: long.Add(time.Duration(i) * time.Minute)}, long)
		}
		Summaries(state)
		index, err := os.ReadFile(filepath.Join(state, indexFile))
		if err != nil {
			t.Fatalf("no index written: %v", err)
		}
		return state, index
	}
	tests := []struct {
		name  string
		spoil func(index []byte) []byte
	}{
		{"empty, as a crash may leave it", func([]byte) []byte { return nil }},
		{"cut short", func(b []byte) []byte { return b[:len(b)/2] }},
		{"its last line cut", func(b []byte) []byte { return b[:len(b)-1] }},
		{"a summary changed", func(b []byte) []byte { return bytes.Replace(b, []byte(`"task"`), []byte(`"fake"`), 1) }},
		{"a state changed", func(b []byte) []byte { return bytes.Replace(b, []byte("\tsucceeded\t"), []byte("\trunning\t\t"), 1) }},
		{"of another version", func(b []byte) []byte {
			return bytes.Replace(b, []byte(fmt.Sprintf("%s %d\n", indexHeader, indexVersion)), []byte(indexHeader+" 999\n"), 1)
		}},
		{"garbage", func([]byte) []byte { return []byte("\x00\x01\x02 not an index\nend 3 00000000\n") }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			state, index := setup(t)
			path := filepath.Join(state, indexFile)
			if err := os.WriteFile(path, tt.spoil(bytes.Clone(index)), 0o600); err != nil {
				t.Fatal(err)
			}
			checkSummaries(t, state, "over the spoilt index")
			if b, _ := os.ReadFile(path); !bytes.Equal(b, index) {
				t.Errorf("the index was not rebuilt as it was:\n%s\nwant:\n%s", b, index)
			}
		})
	}

	t.Run("one that cannot be written", func(t *testing.T) {
		state, _ := setup(t)
		path := filepath.Join(state, indexFile)
		os.Remove(path)
		if err := os.Mkdir(path, 0o700); err != nil { // nothing can be renamed over a folder
			t.Fatal(err)
		}
		checkSummaries(t, state, "with no index to read or write")
	})
	t.Run("a temporary file left by a writer that died", func(t *testing.T) {
		state, _ := setup(t)
		left := filepath.Join(state, indexFile+".123.tmp")
		os.WriteFile(left, []byte("half an index"), 0o600)
		os.Chtimes(left, long, long)
		indexRun(t, state, Info{ID: "20250601-130000-bbbbbb", Kind: KindAsk, State: StateSucceeded, Created: long.Add(time.Hour)}, long)
		checkSummaries(t, state, "after a new run")
		if _, err := os.Stat(left); err == nil {
			t.Errorf("%s is still there after the index was written again", left)
		}
	})
}

// Another segwi writes records while this one reads them through the index, and both
// write the index: the index may lag, but what a read returns is what the records said.
func TestTheIndexKeepsUpWithWritersElsewhere(t *testing.T) {
	state := t.TempDir()
	long := time.Date(2025, 6, 1, 12, 0, 0, 0, time.UTC)
	for i := range 50 {
		indexRun(t, state, Info{ID: fmt.Sprintf("20250601-1200%02d-aaaaaa", i), Kind: KindBuild, State: StateSucceeded, Created: long}, long)
	}
	// Each writer writes a bounded number of runs, so that the test's work does not
	// depend on how fast the file system is (on a tmpfs, writers that ran until the
	// readers were done wrote thousands of runs, which every read then indexed); the
	// readers read until the writers are done, so that they read while writes go on.
	const runsEach = 150
	var writers, readers sync.WaitGroup
	stop := make(chan struct{})
	for w := range 2 {
		writers.Go(func() { // a segwi running runs: each goes through its states
			for i := range runsEach {
				id := fmt.Sprintf("20250601-13%02d%02d-%06d", w, i%60, i)
				dir := filepath.Join(RunsDir(state), id)
				os.MkdirAll(dir, 0o700)
				info := Info{ID: id, Kind: KindBuild, Created: long.Add(time.Hour)}
				for _, s := range []State{StateQueued, StateStarting, StateRunning, StateSucceeded} {
					info.State = s
					if err := writeInfo(dir, info); err != nil {
						t.Error(err)
						return
					}
				}
			}
		})
	}
	for range 3 { // readers: the tray, the history window, segwi runs
		readers.Go(func() {
			for {
				if _, _, err := Summaries(state); err != nil {
					t.Errorf("Summaries: %v", err)
				}
				select {
				case <-stop:
					return
				default:
				}
			}
		})
	}
	writers.Wait()
	close(stop)
	readers.Wait()
	checkSummaries(t, state, "once the writers stopped")
	checkSummaries(t, state, "again")
}

// A record written within a timestamp tick of the stat that indexed it could be written
// again in the same tick, the same size, in place, and look unchanged to the next stat: its
// entry is marked racy and read again, whatever its key says, until the record has settled.
func TestARacyEntryIsReadAgainThoughItsKeyMatches(t *testing.T) {
	state := t.TempDir()
	info := Info{ID: "20250601-120000-aaaaaa", Kind: KindBuild, State: StateSucceeded, Created: time.Now()}
	dir := filepath.Join(RunsDir(state), info.ID)
	os.MkdirAll(dir, 0o700)
	if err := writeInfo(dir, info); err != nil {
		t.Fatal(err)
	}
	entries, _, _ := LoadIndex(state)
	if len(entries) != 1 || !entries[0].racy {
		t.Fatalf("a record written just now is indexed as %+v, want one racy entry", entries)
	}
	// What a same-tick write would leave: the index's entry, its key matching the record,
	// summarising another version of it.
	stale := entries[0]
	stale.Summary = bytes.Replace(stale.Summary, []byte(`"succeeded"`), []byte(`"timed-out"`), 1)
	if err := writeIndex(state, []IndexEntry{stale}); err != nil {
		t.Fatal(err)
	}
	if got, _, _ := Summaries(state); len(got) != 1 || got[0].State != StateSucceeded {
		t.Errorf("Summaries = %+v, want the record's state, succeeded", got)
	}

	// Settled (dated an hour back), its entry is trusted while its key matches.
	old := time.Now().Add(-time.Hour)
	os.Chtimes(filepath.Join(dir, InfoFile), old, old)
	if entries, _, _ = LoadIndex(state); len(entries) != 1 || entries[0].racy {
		t.Fatalf("a settled record is indexed as %+v, want one entry, not racy", entries)
	}
}

// A record's key as a list stats it (statRuns) and as a read of the record gets it
// (readInfoStat) agree: were they to differ, every list would read every record again.
func TestAListAndAReadOfARecordSeeTheSameKey(t *testing.T) {
	state := t.TempDir()
	dir := indexRun(t, state, Info{ID: "20250601-120000-aaaaaa", Kind: KindBuild, State: StateSucceeded}, time.Now().Add(-time.Hour))
	_, st, err := ReadInfoStat(dir)
	if err != nil {
		t.Fatal(err)
	}
	names, keys, errs, err := statRuns(RunsDir(state))
	if err != nil || len(names) != 1 || errs[0] != nil {
		t.Fatalf("statRuns = %q, %v, %v", names, errs, err)
	}
	if keys[0] != keyOf(st) || (keys[0].Ino == 0 && runtime.GOOS == "linux") {
		t.Errorf("a list sees %+v, a read %+v; want the same key, with its inode", keys[0], keyOf(st))
	}
}

// writeInfo writes info as dir's run.json as the runs engine does (runs.writeInfo): a new
// file renamed over the old one.
func writeInfo(dir string, info Info) error {
	b, err := info.AppendJSON(nil)
	if err != nil {
		return err
	}
	tmp := filepath.Join(dir, InfoFile+".tmp")
	if err := os.WriteFile(tmp, append(b, '\n'), 0o600); err != nil {
		return err
	}
	return os.Rename(tmp, filepath.Join(dir, InfoFile))
}
