// Package overhead measures what segwi adds to a Claude Code run: the wall time of the same
// scripted run started directly (claude -p, the prompt on a stdin pipe) and started by
// `segwi run`, several times each, alternating, against the project's fake model server.
// It prints each time, the median and mean of both, their ratio and difference, and whether
// segwi stays within the goal (at most 10 % and at most 150 ms more).
//
// Two more variants split segwi's overhead: direct+tool starts Claude Code directly with
// the approval tool wired as segwi wires it (--permission-prompt-tool and --mcp-config to
// an approvals server in the benchmark's process), and tool+pty does the same with stdout
// and stderr a raw pty, as segwi starts it. What is left (segwi - tool+pty) is segwi's own
// process: its start, settings, keyring, approvals server, and reading, recording and
// printing the events. segwi's own CPU is measured directly, per run: the kernel's count
// for the segwi process (its git calls included, which it waits for) less Claude Code's,
// which segwi records on the run's exit event.
//
// TestOwnCost measures segwi's own share alone (scripts/bench-overhead.sh --own): its CPU
// per run with one run and with many at once, the time to Claude Code's exec, and
// `segwi version` against a hello world, each the best of several tries; it fails on a
// clear regression.
//
// The benchmark is TestOverhead, built on the test harness: internal/testing/fakeapi plays
// the model, internal/testing/claudetest seals the environment, makes the checkout and runs
// Claude Code directly. Both run only when given a segwi binary (-segwi), so `go test ./...`
// skips them; scripts/bench-overhead.sh builds segwi and this package's test binary and runs
// it. See there for the flags.
package overhead

import (
	"fmt"
	"io"
	"slices"
	"time"
)

// The goal of issue 7: segwi adds at most this much to a run.
const (
	goalRatio = 1.10
	goalDiff  = 150 * time.Millisecond
)

// timing is one run's wall time and when, from exec, its phases began: Claude Code's
// process started under segwi (from the run's record; zero for a direct run), the
// session's init event, and the result event; and for a run by segwi, the CPU time of
// segwi's own process and the processes it waited for other than Claude Code (its git
// calls), that of segwi's process alone, and Claude Code's.
type timing struct {
	wall, running, init, result     time.Duration
	segwiCPU, processCPU, claudeCPU time.Duration
	cgroup                          bool // the run's processes were in a cgroup of its own (run.json's cgroup)
}

func (t timing) String() string {
	s := fmt.Sprintf("%7.1f ms (", ms(t.wall))
	if t.running > 0 {
		s += fmt.Sprintf("claude exec'd %5.1f, ", ms(t.running))
	}
	s += fmt.Sprintf("init %6.1f, result %6.1f)", ms(t.init), ms(t.result))
	if t.claudeCPU > 0 {
		s += fmt.Sprintf("  CPU: segwi %5.1f ms, claude %6.1f ms", ms(t.segwiCPU), ms(t.claudeCPU))
	}
	return s
}

// Names of the variants report expects, in its order.
const (
	direct     = "direct"
	viaSegwi   = "segwi"
	directTool = "direct+tool"
	toolPTY    = "tool+pty"
)

// report prints each variant's medians and means, the ratio and difference of segwi over
// direct, and how the difference splits; it reports whether segwi met the goal. times
// holds each variant's timings by name.
func report(w io.Writer, times map[string][]timing) (met bool) {
	phase := func(ts []timing, f func(timing) time.Duration) time.Duration {
		var ds []time.Duration
		for _, t := range ts {
			ds = append(ds, f(t))
		}
		return median(ds)
	}
	wall := func(t timing) time.Duration { return t.wall }
	for _, name := range []string{direct, viaSegwi, directTool, toolPTY} {
		var walls []time.Duration
		for _, t := range times[name] {
			walls = append(walls, t.wall)
		}
		fmt.Fprintf(w, "%-11s median %7.1f ms  mean %7.1f ms   (medians from exec: claude exec'd %5.1f, init %6.1f, result %6.1f ms)\n",
			name, ms(median(walls)), ms(mean(walls)),
			ms(phase(times[name], func(t timing) time.Duration { return t.running })),
			ms(phase(times[name], func(t timing) time.Duration { return t.init })),
			ms(phase(times[name], func(t timing) time.Duration { return t.result })))
	}
	dMed, sMed := phase(times[direct], wall), phase(times[viaSegwi], wall)
	tMed, pMed := phase(times[directTool], wall), phase(times[toolPTY], wall)
	ratio := float64(sMed) / float64(dMed)
	diff := sMed - dMed
	fmt.Fprintf(w, "segwi / direct (medians) %.3f, difference %+.1f ms\n", ratio, ms(diff))
	fmt.Fprintf(w, "segwi's own CPU per run (its process and its git calls; median) %.1f ms; Claude Code's %.1f ms\n",
		ms(phase(times[viaSegwi], func(t timing) time.Duration { return t.segwiCPU })),
		ms(phase(times[viaSegwi], func(t timing) time.Duration { return t.claudeCPU })))
	fmt.Fprintf(w, "  the approval tool inside Claude Code (direct+tool - direct) %+.1f ms; the pty (tool+pty - direct+tool) %+.1f ms;\n"+
		"  segwi's own process (segwi - tool+pty) %+.1f ms\n", ms(tMed-dMed), ms(pMed-tMed), ms(sMed-pMed))
	met = ratio <= goalRatio && diff <= goalDiff
	verdict := "met"
	if !met {
		verdict = "MISSED"
	}
	fmt.Fprintf(w, "goal (segwi at most +%.0f %% and +%d ms over direct): %s\n", (goalRatio-1)*100, goalDiff.Milliseconds(), verdict)
	return met
}

func median(ds []time.Duration) time.Duration {
	s := slices.Clone(ds)
	slices.Sort(s)
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}

func mean(ds []time.Duration) time.Duration {
	var sum time.Duration
	for _, d := range ds {
		sum += d
	}
	return sum / time.Duration(len(ds))
}

func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }
