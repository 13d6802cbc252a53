package await

import (
	"errors"
	"fmt"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// recorder is a testing.TB that keeps what For reports instead of ending the test.
type recorder struct {
	testing.TB
	fatal string
}

func (r *recorder) Helper() {}

func (r *recorder) Fatalf(format string, args ...any) { r.fatal = fmt.Sprintf(format, args...) }

func TestForReturnsOnceTheConditionHolds(t *testing.T) {
	var ready atomic.Bool
	time.AfterFunc(30*time.Millisecond, func() { ready.Store(true) })
	rec := &recorder{TB: t}
	start := time.Now()

	For(rec, 10*time.Second, "the flag", ready.Load)

	if rec.fatal != "" {
		t.Fatalf("For failed: %s", rec.fatal)
	}
	if took := time.Since(start); took < 30*time.Millisecond || took > 2*time.Second {
		t.Errorf("For returned after %s; want soon after the flag was set at 30ms", took)
	}
}

func TestForChecksAtOnce(t *testing.T) {
	rec := &recorder{TB: t}
	calls := 0
	start := time.Now()

	For(rec, 10*time.Second, "a true condition", func() bool { calls++; return true })

	if rec.fatal != "" || calls != 1 || time.Since(start) > time.Second {
		t.Errorf("For on a true condition: fatal %q, %d calls, %s; want no failure, 1 call, no pause", rec.fatal, calls, time.Since(start))
	}
}

func TestForFailsSayingWhatItWaitedFor(t *testing.T) {
	tests := []struct {
		name string
		wait func(testing.TB)
		want string
	}{
		{"a bool condition", func(tb testing.TB) {
			For(tb, 50*time.Millisecond, "the popup to open", func() bool { return false })
		}, "timed out after 50ms waiting for the popup to open"},
		{"an error condition adds what it saw last", func(tb testing.TB) {
			n := 0
			For(tb, 50*time.Millisecond, "the run to end", func() error { n++; return fmt.Errorf("check %d: still running", n) })
		}, "timed out after 50ms waiting for the run to end: check "},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rec := &recorder{TB: t}
			start := time.Now()
			tt.wait(rec)
			if !strings.HasPrefix(rec.fatal, tt.want) {
				t.Errorf("failure %q, want it to start with %q", rec.fatal, tt.want)
			}
			if took := time.Since(start); took < 50*time.Millisecond {
				t.Errorf("gave up after %s, before the 50ms deadline", took)
			}
		})
	}
}

func TestForStopsCheckingOnceAnErrorConditionHolds(t *testing.T) {
	rec := &recorder{TB: t}
	left := 3
	For(rec, 10*time.Second, "three checks", func() error {
		if left--; left > 0 {
			return errors.New("not yet")
		}
		return nil
	})
	if rec.fatal != "" || left != 0 {
		t.Errorf("fatal %q, %d checks left; want no failure, 0 left", rec.fatal, left)
	}
}

func TestRecvReturnsTheValueSent(t *testing.T) {
	ch := make(chan string, 1)
	ch <- "answer"
	rec := &recorder{TB: t}
	if got := Recv(rec, 10*time.Second, "the answer", ch); got != "answer" || rec.fatal != "" {
		t.Errorf("Recv: got %q (failure %q), want %q and no failure", got, rec.fatal, "answer")
	}
}

func TestRecvFailsSayingWhatItWaitedFor(t *testing.T) {
	rec := &recorder{TB: t}
	Recv(rec, 20*time.Millisecond, "the answer", make(chan string))
	if want := "timed out after 20ms waiting for the answer"; rec.fatal != want {
		t.Errorf("failure: got %q, want %q", rec.fatal, want)
	}
}
