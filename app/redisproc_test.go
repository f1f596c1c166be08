package app

import (
	"github.com/prometheus/client_golang/prometheus"
	"testing"
	"time"

	"github.com/reviewbot-dev/reviewbot/app/internal/redistest"
	"github.com/reviewbot-dev/reviewbot/app/state"
)

// newTestRedis is the App's Redis on p with test-sized timings; opts
// overrides them.
func newTestRedis(t testing.TB, p *redistest.Proc, opts ...func(*state.RedisOptions)) *state.Redis {
	t.Helper()
	o := state.RedisOptions{URL: p.URL, LeaseTTL: time.Second, HealthInterval: 50 * time.Millisecond,
		Logger: quietLogger()}
	for _, f := range opts {
		f(&o)
	}
	r, err := state.NewRedis(o)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { r.Close() })
	return r
}

// redisCount reads the counter metric of r labelled label.
func redisCount(r *state.Redis, metric, label string) float64 {
	reg := prometheus.NewRegistry()
	reg.MustRegister(r.Collectors()...)
	mfs, _ := reg.Gather()
	for _, mf := range mfs {
		if mf.GetName() != metric {
			continue
		}
		for _, m := range mf.GetMetric() {
			for _, lp := range m.GetLabel() {
				if lp.GetValue() == label {
					return m.GetCounter().GetValue()
				}
			}
		}
	}
	return 0
}
