package hub

import (
	"fmt"
	"testing"

	"github.com/segwi/segwi/runs/changes"
)

// The tray keeps the stamp of the last reading of each run's changes, for the runs read
// last only, and a token of an earlier reading, or of another run, names none.
func TestTheTrayKeepsTheLastReadingsStampsOfTheRunsReadLast(t *testing.T) {
	var r readings
	first := r.keep("run-0", changes.Stamp{})
	if _, ok := r.stamp("run-0", first); !ok {
		t.Fatal("the stamp of run-0's reading is not kept")
	}
	second := r.keep("run-0", changes.Stamp{})
	if _, ok := r.stamp("run-0", first); ok || first == second {
		t.Errorf("the token of run-0's first reading (%s) still names a stamp after a second reading (%s)", first, second)
	}
	if _, ok := r.stamp("run-1", second); ok {
		t.Error("run-0's token names a stamp of run-1")
	}
	tokens := []string{second}
	for i := 1; i <= maxReadings; i++ {
		tokens = append(tokens, r.keep(fmt.Sprintf("run-%d", i), changes.Stamp{}))
	}
	if _, ok := r.stamp("run-0", second); ok {
		t.Errorf("run-0's stamp is kept after %d later runs were read", maxReadings)
	}
	for i := 1; i <= maxReadings; i++ {
		if _, ok := r.stamp(fmt.Sprintf("run-%d", i), tokens[i]); !ok {
			t.Errorf("run-%d's stamp is not kept", i)
		}
	}
}
