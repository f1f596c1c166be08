package app

import (
	"context"
	"sync"
	"time"

	"github.com/reviewbot-dev/reviewbot/app/ghapi"
	"github.com/reviewbot-dev/reviewbot/app/internal/testkit"
)

var (
	appKey      = testkit.AppKey
	quietLogger = testkit.QuietLogger
)

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
func testPolicy(s *sleeper) ghapi.RetryPolicy {
	p := ghapi.DefaultRetryPolicy()
	p.Sleep = s.Sleep
	return p
}
