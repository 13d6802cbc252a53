package mcpserver

import (
	"fmt"
	"github.com/segwi/segwi/approvals"
	"github.com/segwi/segwi/internal/testing/approvaltest"
	"slices"
	"sync"
	"testing"
	"time"
)

// BenchmarkTrustedRoundTrip measures one tools/call of approve answered by a trusted rule,
// from an MCP client over real loopback HTTP, and reports its p50 and p99.
func BenchmarkTrustedRoundTrip(b *testing.B) {
	s, err := New(Config{Decider: approvaltest.Nobody(b), Trusted: []string{"go test", "git status"}})
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	reg, err := s.Register(approvals.RunInfo{ID: "bench", Kind: "build"}, approvaltest.Discard{})
	if err != nil {
		b.Fatal(err)
	}
	cs := connect(b, s, reg.Token, "")
	input := `{"command":"go test ./... && git status --short","description":"Run the tests"}`
	want := `{"behavior":"allow"}`

	took := make([]time.Duration, 0, b.N)
	for b.Loop() {
		start := time.Now()
		got := callApprove(b, cs, "Bash", input, "toolu_1")
		took = append(took, time.Since(start))
		if got != want {
			b.Fatalf("answer: got %s, want %s", got, want)
		}
	}
	b.StopTimer()
	slices.Sort(took)
	b.ReportMetric(ms(percentile(took, 50)), "p50-ms")
	b.ReportMetric(ms(percentile(took, 99)), "p99-ms")
}

func percentile(sorted []time.Duration, p int) time.Duration {
	if len(sorted) == 0 {
		return 0
	}
	return sorted[(len(sorted)-1)*p/100]
}

func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }

func TestTwoHundredRunsWaitAtOnce(t *testing.T) {
	if testing.Short() {
		t.Skip("holds 200 loopback connections")
	}
	const n = 200
	p := approvaltest.NewPerson()
	s := newTestServer(t, Config{Decider: p})
	runs := make([]*approvaltest.Run, n)
	texts := make(chan string, n)
	var wg sync.WaitGroup
	for i := range n {
		id := fmt.Sprint("run-", i)
		reg, run := register(t, s, id)
		runs[i] = run
		cs := connect(t, s, reg.Token, "")
		wg.Go(func() {
			texts <- approveText(cs, "Bash", fmt.Sprintf(`{"command":"make %d"}`, i), "toolu_"+id)
		})
	}

	// All 200 wait for the person at the same time.
	for range n {
		p.NextAsked(t)
	}
	for i, run := range runs {
		if got := run.Pending(); !slices.Equal(got, []int{1}) {
			t.Errorf("run-%d SetPending values while all wait: got %v, want [1]", i, got)
		}
	}
	// Each run's deny carries its own reason, so that each answer shows whose it is.
	for i := range n {
		p.Answer(fmt.Sprint("toolu_run-", i), approvals.Answer{By: approvals.ByPerson, Message: fmt.Sprint("not make ", i)})
	}
	wg.Wait()
	close(texts)
	seen := map[string]bool{}
	for text := range texts {
		seen[text] = true
	}
	for i := range n {
		want := fmt.Sprintf(`{"behavior":"deny","message":"Denied by the person at segwi: not make %d"}`, i)
		if !seen[want] {
			t.Errorf("run-%d: no answer %s", i, want)
		}
	}
	for i, run := range runs {
		if got := run.Pending(); !slices.Equal(got, []int{1, 0}) {
			t.Errorf("run-%d SetPending values: got %v, want [1 0]", i, got)
		}
	}
}

// BenchmarkRegister measures what each run costs the server before its first call: the
// registration (its token and its MCP server with the approval tool) and its removal.
func BenchmarkRegister(b *testing.B) {
	s, err := New(Config{Decider: approvaltest.Nobody(b)})
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		id := fmt.Sprintf("bench-%d", i)
		if _, err := s.Register(approvals.RunInfo{ID: id, Kind: "build"}, approvaltest.Discard{}); err != nil {
			b.Fatal(err)
		}
		s.Unregister(id)
	}
}
