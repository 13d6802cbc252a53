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
