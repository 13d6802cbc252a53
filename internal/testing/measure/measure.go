// Package measure times what segwi's measurement tests time, on a machine that may be
// busy with other work: the best of several tries, in wall time and in CPU time. Other
// work can only slow a try down, so the best try is the nearest to what the code costs;
// CPU time, which waiting for a core does not count, compares more steadily than wall
// time with a baseline measured in the same test.
//
//	old := measure.Best(t, 5, "List", func() { runs.List(state) })
//	now := measure.Best(t, 5, "Summaries", func() { runs.Summaries(state) })
//	if now.CPU > old.CPU/4 { t.Errorf(...) }
package measure

import (
	"runtime"
	"syscall"
	"testing"
	"time"
)

// Figure is what Best measured.
type Figure struct {
	Wall, CPU time.Duration // the least of the tries, each
	// Alloc is how many bytes the last try allocated on the Go heap.
	Alloc uint64
}

// Best calls f tries times and returns the least wall time and the least CPU time a call
// took, and what the last one allocated; it logs them, as "what: 12 ms, 9 ms of CPU (best
// of 5), 1.5 MB allocated".
func Best(t testing.TB, tries int, what string, f func()) Figure {
	t.Helper()
	fig := Figure{Wall: time.Hour, CPU: time.Hour}
	for range tries {
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		startCPU, start := CPU(t), time.Now()
		f()
		fig.Wall, fig.CPU = min(fig.Wall, time.Since(start)), min(fig.CPU, CPU(t)-startCPU)
		runtime.ReadMemStats(&after)
		fig.Alloc = after.TotalAlloc - before.TotalAlloc
	}
	t.Logf("%s: %d ms, %d ms of CPU (best of %d), %.1f MB allocated", what, fig.Wall.Milliseconds(), fig.CPU.Milliseconds(),
		tries, float64(fig.Alloc)/(1<<20))
	return fig
}

// CPU returns the CPU time the process has used so far, in user and system mode, on all
// its threads.
func CPU(t testing.TB) time.Duration {
	t.Helper()
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		t.Fatalf("getrusage: %v", err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
