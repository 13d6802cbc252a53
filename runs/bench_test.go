package runs

import (
	"bytes"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"
)

// streamJSON returns about n bytes of typical stream-json output: text, tool calls and
// results, as a real run prints them.
func streamJSON(n int) []byte {
	lines := []string{
		`{"type":"assistant","message":{"id":"msg_1","role":"assistant","content":[{"type":"text","text":"` + strings.Repeat("I will look at the failing test and then fix the parser. ", 12) + `"}]},"parent_tool_use_id":null,"session_id":"7f1c2d"}`,
		`{"type":"assistant","message":{"content":[{"type":"tool_use","id":"toolu_01","name":"Bash","input":{"command":"go test ./...","description":"run the tests"}}]},"session_id":"7f1c2d"}`,
		`{"type":"user","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_01","content":"` + strings.Repeat(`ok  \tgithub.com/x/y/pkg\t0.012s\n`, 40) + `","is_error":false}]},"tool_use_result":{"stdout":"ok"},"session_id":"7f1c2d"}`,
		`{"type":"system","subtype":"status","status":"thinking","session_id":"7f1c2d"}`,
	}
	var b bytes.Buffer
	for b.Len() < n {
		for _, l := range lines {
			b.WriteString(l)
			b.WriteByte('\n')
		}
	}
	return b.Bytes()
}

// BenchmarkParseAndRecord measures reading stream-json output into events: redaction,
// parsing, events.jsonl and output.log, on one goroutine as a run's reader does it.
func BenchmarkParseAndRecord(b *testing.B) {
	data := streamJSON(16 << 20)
	r := bareRun(b, b.TempDir())
	defer r.rec.close()
	b.SetBytes(int64(len(data)))
	parse := ClaudeParser()
	cpu0 := cpuTime()
	n := 0
	for b.Loop() {
		r.readLines(bytes.NewReader(data), MaxLineBytes, parse)
		r.rec.mu.Lock()
		r.rec.outN = 0 // keep output.log below its cap, to measure its writes too
		r.rec.mu.Unlock()
		n++
	}
	// On a shared machine wall time says little; CPU time of the process (all its
	// threads, the garbage collector's included) says what one core does.
	b.ReportMetric(float64(n*len(data))/(1<<20)/(cpuTime()-cpu0).Seconds(), "MiB/cpu-s")
}

// BenchmarkReadEvents measures reading a run's events.jsonl back into events, as segwi
// runs events and a run window opening on a run do.
func BenchmarkReadEvents(b *testing.B) {
	state := b.TempDir()
	dir := filepath.Join(RunsDir(state), "bench")
	if err := os.MkdirAll(dir, 0o700); err != nil {
		b.Fatal(err)
	}
	r := bareRun(b, dir)
	r.readLines(bytes.NewReader(streamJSON(16<<20)), MaxLineBytes, ClaudeParser())
	if err := r.rec.close(); err != nil {
		b.Fatal(err)
	}
	st, err := os.Stat(filepath.Join(dir, eventsFile))
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(st.Size())
	cpu0 := cpuTime()
	reads := 0
	for b.Loop() {
		n := 0
		if err := ReadEvents(state, "bench", func(Event) error { n++; return nil }); err != nil || n == 0 {
			b.Fatalf("read %d events: %v", n, err)
		}
		reads++
	}
	b.ReportMetric(float64(int64(reads)*st.Size())/(1<<20)/(cpuTime()-cpu0).Seconds(), "MiB/cpu-s")
}

// cpuTime returns the user and system CPU time this process has used.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// rss returns this process's resident set size in bytes.
func rss(t *testing.T) int64 {
	b, err := os.ReadFile("/proc/self/statm")
	if err != nil {
		t.Skip("no /proc/self/statm:", err)
	}
	f := strings.Fields(string(b))
	pages, _ := strconv.ParseInt(f[1], 10, 64)
	return pages * int64(os.Getpagesize())
}

// TestA200MBRunStaysWithinItsBounds runs fakeclaude printing 200 MB of stream-json, and
// checks that output.log stops at its cap and that segwi's memory stays bounded. It logs
// the figures (go test -run 200MB -v).
func TestA200MBRunStaysWithinItsBounds(t *testing.T) {
	if testing.Short() {
		t.Skip("200 MB of output: not in -short")
	}
	m, _ := testManager(t, nil)
	runtime.GC()
	base := rss(t)
	var peak atomic.Int64
	stop := make(chan struct{})
	sampled := make(chan struct{})
	// Sampling ends with the run, or with the test when it fails first: left going, it
	// woke this process 100 times a second through the tests after it, and the test of a
	// process at rest counted 659 context switches a second.
	stopSampling := sync.OnceFunc(func() { close(stop); <-sampled })
	t.Cleanup(stopSampling)
	go func() {
		defer close(sampled)
		for {
			if v := rss(t); v > peak.Load() {
				peak.Store(v)
			}
			select {
			case <-stop:
				return
			case <-time.After(10 * time.Millisecond):
			}
		}
	}()
	began := time.Now()
	r := start(t, m, Spec{Prompt: "fake:flood=" + strconv.Itoa(200<<20)})
	// 200 MB through a pty takes 2-5 s alone, and four times that beside the other
	// packages' tests on two cores: the bound is for a hang, the speed is logged.
	info := waitWithin(t, r, 2*time.Minute)
	took := time.Since(began)
	stopSampling()
	if info.State != StateSucceeded {
		t.Fatalf("got %s (%s), want succeeded", info.State, info.Reason)
	}
	growth := peak.Load() - base
	t.Logf("200 MB run: %s (%.0f MB/s through the pty), RSS growth %.1f MB (base %.1f MB)",
		took.Round(time.Millisecond), 200/took.Seconds(), float64(growth)/(1<<20), float64(base)/(1<<20))
	if growth > 50<<20 {
		t.Errorf("RSS grew by %.1f MB, want under 50 MB", float64(growth)/(1<<20))
	}
	out, err := os.ReadFile(filepath.Join(r.Dir(), outputFile))
	if err != nil {
		t.Fatal(err)
	}
	if len(out) > MaxOutputBytes+len(outputCutMarker) || !bytes.HasSuffix(out, []byte(outputCutMarker)) {
		t.Errorf("output.log is %d bytes ending %q, want at most %d ending with the cut marker",
			len(out), out[max(0, len(out)-80):], MaxOutputBytes+len(outputCutMarker))
	}
	// events.jsonl stops at its cap too, saying so, and records the run's end after it.
	st, err := os.Stat(filepath.Join(r.Dir(), eventsFile))
	if err != nil {
		t.Fatal(err)
	}
	if st.Size() > MaxEventsBytes+64<<10 {
		t.Errorf("events.jsonl is %d bytes, want at most its cap of %d and the few events kept past it", st.Size(), MaxEventsBytes)
	}
	var texts int
	var capped bool
	var after []EventType
	if err := ReadEvents(m.config().StateDir, r.ID(), func(e Event) error {
		switch {
		case capped:
			after = append(after, e.Type)
		case e.Type == EventText:
			texts++
		case e.Type == EventCapped:
			capped = true
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	if want := MaxEventsBytes / 4400; texts < want || !capped {
		t.Errorf("%d text events recorded before the cap (capped: %v), want at least %d and the cap's event: events were lost", texts, capped, want)
	}
	if !slices.Contains(after, EventResult) || !slices.Contains(after, EventExit) || !slices.Contains(after, EventState) {
		t.Errorf("past the cap the record holds %q, want the turn's result, the exit and the final state", after)
	}
}
