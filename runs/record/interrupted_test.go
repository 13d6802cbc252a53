package record_test

import (
	"testing"
	"time"

	"github.com/segwi/segwi/runs"
	"github.com/segwi/segwi/runs/record"
)

// The index only says which runs to look at: a run it holds as live whose record, read
// under the run's lock, says it ended (its segwi ended it after the index was read, then
// let go of the lock) is left as it ended.
func TestMarkInterruptedGoesByTheRecordReadUnderTheLock(t *testing.T) {
	state := t.TempDir()
	long := time.Date(2025, 6, 1, 12, 0, 0, 0, time.UTC)
	record.IndexRun(t, state, record.Info{ID: "20250601-120000-aaaaaa", Kind: record.KindBuild, State: record.StateSucceeded, Created: long}, long)
	entries, _, _ := record.LoadIndex(state)
	if len(entries) != 1 {
		t.Fatalf("the index holds %d runs, want 1", len(entries))
	}
	seen := entries[0] // as the index read it while the run was going
	seen.State = record.StateRunning
	if err := record.WriteIndex(state, []record.IndexEntry{seen}); err != nil {
		t.Fatal(err)
	}
	if damaged := runs.MarkInterrupted(state); len(damaged) != 0 {
		t.Fatalf("MarkInterrupted: %v", damaged)
	}
	if in, err := record.Load(state, "aaaaaa"); err != nil || in.State != record.StateSucceeded {
		t.Errorf("the run is %s (%v), want succeeded, as its record says", in.State, err)
	}
}
