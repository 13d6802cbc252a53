package overhead

import (
	"testing"
	"time"
)

func TestMedianAndMean(t *testing.T) {
	ms := time.Millisecond
	tests := []struct {
		name         string
		in           []time.Duration
		median, mean time.Duration
	}{
		{"an odd count takes the middle one", []time.Duration{30 * ms, 10 * ms, 20 * ms}, 20 * ms, 20 * ms},
		{"an even count takes the middle two's mean", []time.Duration{40 * ms, 10 * ms, 20 * ms, 90 * ms}, 30 * ms, 40 * ms},
		{"one run is its own median", []time.Duration{7 * ms}, 7 * ms, 7 * ms},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			in := append([]time.Duration(nil), tt.in...)
			if got := median(tt.in); got != tt.median {
				t.Errorf("median(%v) = %v, want %v", tt.in, got, tt.median)
			}
			if got := mean(tt.in); got != tt.mean {
				t.Errorf("mean(%v) = %v, want %v", tt.in, got, tt.mean)
			}
			for i := range in {
				if in[i] != tt.in[i] {
					t.Fatalf("median reordered its input: %v, was %v", tt.in, in)
				}
			}
		})
	}
}

func TestGrowthIsJudgedAgainstClaudeCodes(t *testing.T) {
	ms := time.Millisecond
	tests := []struct {
		name                                       string
		oneSegwi, manySegwi, oneClaude, manyClaude time.Duration
		beyond                                     float64
	}{
		{"both grew alike: no growth of segwi's own", 100 * ms, 130 * ms, 2000 * ms, 2600 * ms, 1},
		{"segwi's grew, Claude Code's did not", 100 * ms, 200 * ms, 2000 * ms, 2000 * ms, 2},
		{"a Claude Code that got faster does not excuse segwi", 100 * ms, 150 * ms, 2000 * ms, 1000 * ms, 1.5},
		{"segwi's grew less than the machine's", 100 * ms, 110 * ms, 2000 * ms, 4000 * ms, 0.55},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			g := growthOf(tt.oneSegwi, tt.manySegwi, tt.oneClaude, tt.manyClaude)
			if got := g.beyond(); got < tt.beyond-1e-9 || got > tt.beyond+1e-9 {
				t.Errorf("%v: beyond() = %.3f, want %.3f", g, got, tt.beyond)
			}
		})
	}
}
