package par

import (
	"sync/atomic"
	"testing"
)

func TestFor(t *testing.T) {
	tests := []struct {
		name       string
		workers, n int
		stopAt     int // fn returns false at this index (-1: never)
		wantAll    bool
	}{
		{name: "one worker", workers: 1, n: 100, stopAt: -1, wantAll: true},
		{name: "no worker runs on the caller", workers: 0, n: 10, stopAt: -1, wantAll: true},
		{name: "several workers", workers: 4, n: 1000, stopAt: -1, wantAll: true},
		{name: "nothing to do", workers: 4, n: 0, stopAt: -1, wantAll: true},
		{name: "one worker stops", workers: 1, n: 100, stopAt: 10},
		{name: "several workers stop", workers: 4, n: 100000, stopAt: 10},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			seen := make([]atomic.Int32, tc.n)
			var calls atomic.Int64
			For(tc.workers, tc.n, func(i int) bool {
				seen[i].Add(1)
				calls.Add(1)
				return i != tc.stopAt
			})
			for i := range seen {
				if c := seen[i].Load(); c > 1 || tc.wantAll && c != 1 {
					t.Fatalf("index %d called %d times", i, c)
				}
			}
			if !tc.wantAll {
				if seen[tc.stopAt].Load() != 1 {
					t.Fatalf("the stopping index was not called")
				}
				if c := calls.Load(); c == int64(tc.n) {
					t.Fatalf("every index was called after fn returned false")
				}
			}
		})
	}
}

func TestForPanics(t *testing.T) {
	for _, workers := range []int{1, 4} {
		func() {
			defer func() {
				if v := recover(); v != "boom" {
					t.Errorf("%d workers: recovered %v, want the panic of fn", workers, v)
				}
			}()
			For(workers, 1000, func(i int) bool {
				if i == 3 {
					panic("boom")
				}
				return true
			})
			t.Errorf("%d workers: For returned after a panic", workers)
		}()
	}
}
