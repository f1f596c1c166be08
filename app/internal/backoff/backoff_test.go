package backoff

import (
	"testing"
	"time"
)

func TestJitteredDoublesWithinLimit(t *testing.T) {
	base, limit := 100*time.Millisecond, 5*time.Second
	for _, tc := range []struct {
		n    int
		full time.Duration
	}{
		{0, 100 * time.Millisecond},
		{1, 200 * time.Millisecond},
		{5, 3200 * time.Millisecond},
		{6, 5 * time.Second},  // capped
		{40, 5 * time.Second}, // no overflow past many doublings
	} {
		for range 50 {
			if d := Jittered(base, limit, tc.n); d < tc.full/2 || d > tc.full {
				t.Fatalf("Jittered(%d) = %v, want within [%v, %v]", tc.n, d, tc.full/2, tc.full)
			}
		}
	}
}
