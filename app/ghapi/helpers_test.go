package ghapi

import (
	"context"
	"sync"
	"time"

	"github.com/reviewbot-dev/reviewbot/app/internal/testkit"
)

var (
	appKey      = testkit.AppKey
	quietLogger = testkit.QuietLogger
)

// fakeClock is a settable clock.
type fakeClock struct {
	mu sync.Mutex
	t  time.Time
}

func newFakeClock() *fakeClock { return &fakeClock{t: time.Now()} }

func (c *fakeClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *fakeClock) Advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = c.t.Add(d)
}

// sleeper records the waits of the retry policy instead of sleeping.
type sleeper struct {
	mu    sync.Mutex
	waits []time.Duration
}

func (s *sleeper) Sleep(ctx context.Context, d time.Duration) error {
	s.mu.Lock()
	s.waits = append(s.waits, d)
	s.mu.Unlock()
	return ctx.Err()
}

func (s *sleeper) Waits() []time.Duration {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]time.Duration(nil), s.waits...)
}

// testPolicy is the production policy with recorded sleeps.
func testPolicy(s *sleeper) RetryPolicy {
	p := DefaultRetryPolicy()
	p.Sleep = s.Sleep
	return p
}

// routeCounts counts the calls the transport chain observes, by route.
type routeCounts struct {
	mu sync.Mutex
	n  map[string]int
}

func (c *routeCounts) APICall(route string, status int) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.n == nil {
		c.n = map[string]int{}
	}
	c.n[route]++
}
