// Package backoff is the one retry wait of the App, shared by its GitHub
// calls and its Redis operations.
package backoff

import (
	"context"
	"math/rand/v2"
	"time"
)

// Jittered is the wait before retry n (0-based): base doubled per retry up
// to limit, with full jitter in its upper half, so replicas retrying
// together spread out.
func Jittered(base, limit time.Duration, n int) time.Duration {
	// Past 32 doublings any sane base is beyond any sane limit; stopping
	// there keeps the shift from overflowing.
	d := base << min(n, 32)
	if d <= 0 || d > limit {
		d = limit
	}
	return d/2 + time.Duration(rand.Int64N(int64(d/2)+1))
}

// Sleep waits d or until ctx ends.
func Sleep(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}
