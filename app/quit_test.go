package app

import (
	"testing"
	"time"
)

// The quit question agrees with how many runs it stops.
func TestTheQuitQuestionCountsTheRuns(t *testing.T) {
	for n, want := range map[int]string{
		1: "1 run is still going. Quitting stops it: first politely, then by force after 10s.",
		3: "3 runs are still going. Quitting stops them: first politely, then by force after 10s.",
	} {
		if got := quitQuestion(n, 10*time.Second); got != want {
			t.Errorf("quitQuestion(%d) = %q, want %q", n, got, want)
		}
	}
}
