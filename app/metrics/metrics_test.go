package metrics

import (
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus/testutil"
)

func TestNilMetricsCountNothing(t *testing.T) {
	var m *Metrics
	m.Delivery("pull_request", "queued")
	m.Review("reviewed", time.Second, 3)
	m.Phase("read", time.Second)
	m.SetAside()
	m.CacheLookup("blob", true)
	m.APICall("GET /repos/{owner}/{repo}", 200)
	m.QueuedAdd(1)
	m.RunningAdd(1)
}

func TestMetricsCount(t *testing.T) {
	m := New()
	m.Delivery("pull_request", "queued")
	m.Delivery("pull_request", "queued")
	m.CacheLookup("blob", true)
	m.CacheLookup("blob", false)
	m.SetAside()
	m.Review("reviewed", 2*time.Second, 7)
	m.Phase("rules", 500*time.Millisecond)
	for _, tc := range []struct {
		name string
		got  float64
		want float64
	}{
		{"deliveries", testutil.ToFloat64(m.deliveries.WithLabelValues("pull_request", "queued")), 2},
		{"cache hits", testutil.ToFloat64(m.CacheCounter("blob", "hit")), 1},
		{"cache misses", testutil.ToFloat64(m.CacheCounter("blob", "miss")), 1},
		{"set aside", testutil.ToFloat64(m.setAsideJobs), 1},
	} {
		if tc.got != tc.want {
			t.Errorf("%s = %v, want %v", tc.name, tc.got, tc.want)
		}
	}
	if n := testutil.CollectAndCount(m.reviewDuration); n != 1 {
		t.Errorf("%d review-duration series, want 1", n)
	}
	if n := testutil.CollectAndCount(m.reviewPhase); n != 1 {
		t.Errorf("%d phase series, want 1", n)
	}
	if _, err := m.Registry.Gather(); err != nil {
		t.Fatal(err)
	}
}
