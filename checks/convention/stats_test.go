package convention

import (
	"math"
	"testing"
)

func TestWilson(t *testing.T) {
	tests := []struct {
		name   string
		s, n   float64
		lo, hi float64
	}{
		// 1/(1+z²/n) for a unanimous count.
		{"2 of 2", 2, 2, 0.4250, 1},
		{"4 of 4", 4, 4, 0.5965, 1},
		{"10 of 10", 10, 10, 0.7871, 1},
		{"0 of 5", 0, 5, 0, 0.3511},
		{"9 of 10", 9, 10, 0.6523, 0.9774},
		{"half", 5, 10, 0.2693, 0.7307},
		{"fractional", 2.5, 3, 0.3739, 0.9767},
		{"no trials", 0, 0, 0, 1},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			lo, hi := wilson(tc.s, tc.n)
			if math.Abs(lo-tc.lo) > 5e-4 || math.Abs(hi-tc.hi) > 5e-4 {
				t.Errorf("wilson(%g, %g) = %.4f, %.4f; want %.4f, %.4f", tc.s, tc.n, lo, hi, tc.lo, tc.hi)
			}
		})
	}
}

func TestDiffLower(t *testing.T) {
	tests := []struct {
		name           string
		s1, n1, s2, n2 float64
		positive       bool
	}{
		// The LMCacheMPConnector case: 2 families of 2 set the key, 1 of
		// 6 families with other connectors does.
		{"specific to X, small", 2, 2, 1, 6, true},
		{"specific to X", 5, 5, 0, 8, true},
		// A key every object has is not implied, however many siblings.
		{"everyone has it", 9, 9, 12, 12, false},
		{"most have it", 4, 4, 4, 6, false},
		{"one family each", 1, 1, 0, 1, false},
		{"no alternatives", 3, 3, 0, 0, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			d := diffLower(tc.s1, tc.n1, tc.s2, tc.n2)
			if (d > 0) != tc.positive {
				t.Errorf("diffLower = %.3f, want positive %v", d, tc.positive)
			}
			if d > tc.s1/math.Max(tc.n1, 1) {
				t.Errorf("bound %.3f above the point difference", d)
			}
		})
	}
}

func TestThresholds(t *testing.T) {
	th := DefaultThresholds
	mk := func(fams int, follow float64, others int, othersFollow float64) stat {
		s := stat{families: fams, follow: follow, others: others, othersFollow: othersFollow}
		s.lower, _ = wilson(follow, float64(fams))
		s.lift = diffLower(follow, float64(fams), othersFollow, float64(others))
		return s
	}
	tests := []struct {
		name string
		t    tmpl
		s    stat
		want bool
	}{
		{"component key, 2 of 2, none elsewhere", tObject, mk(2, 2, 5, 0), true},
		{"component key, 1 family", tObject, mk(1, 1, 5, 0), false},
		{"component key every object has", tObject, mk(4, 4, 6, 6), false},
		{"component key, an exception family of 3", tObject, mk(3, 2, 6, 0), false},
		{"option pair, 2 families", tFlagPair, mk(2, 2, 9, 0), false},
		{"option pair, 3 of 3", tFlagPair, mk(3, 3, 9, 0), true},
		{"option pair everyone passes", tFlagPair, mk(8, 8, 10, 9.5), false},
		{"branch env, 3 of 3", tArmEnv, mk(3, 3, 3, 0), true},
		{"branch env, no alternatives", tArmEnv, mk(3, 3, 0, 0), false},
		{"option key, 4 of 4", tFlagJSON, mk(4, 4, 0, 0), false},
		{"option key, 5 of 5", tFlagJSON, mk(5, 5, 0, 0), true},
		{"option key, 9 of 10", tFlagJSON, mk(10, 9, 0, 0), true},
		{"option key, 3 of 4", tFlagJSON, mk(4, 3, 0, 0), false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := tc.s.holds(tc.t, th); got != tc.want {
				t.Errorf("holds = %v, want %v (lower %.3f, lift %.3f)", got, tc.want, tc.s.lower, tc.s.lift)
			}
		})
	}
}
