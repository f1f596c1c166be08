package state

import (
	"sync"
	"testing"
	"time"

	"github.com/reviewbot-dev/reviewbot/app/internal/redistest"
	"github.com/reviewbot-dev/reviewbot/app/internal/testkit"
)

var quietLogger = testkit.QuietLogger

// newTestRedis is a Redis on p with test-sized timings; opts overrides
// them.
func newTestRedis(t testing.TB, p *redistest.Proc, opts ...func(*RedisOptions)) *Redis {
	t.Helper()
	o := RedisOptions{URL: p.URL, LeaseTTL: time.Second, HealthInterval: 50 * time.Millisecond,
		Logger: quietLogger()}
	for _, f := range opts {
		f(&o)
	}
	r, err := NewRedis(o)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { r.Close() })
	return r
}

func waitFor(t testing.TB, d time.Duration, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(d)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("condition not met within %v", d)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// lookups counts the cache lookups a cache reports.
type lookups struct {
	mu sync.Mutex
	n  map[string]int
}

func (l *lookups) CacheLookup(cache string, hit bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.n == nil {
		l.n = map[string]int{}
	}
	l.n[cache]++
}
