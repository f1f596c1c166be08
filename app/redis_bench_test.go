package app

import (
	"bytes"
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"sort"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/reviewbot-dev/reviewbot/app/internal/redistest"
	"github.com/reviewbot-dev/reviewbot/app/metrics"
	"github.com/reviewbot-dev/reviewbot/app/state"
)

// BenchmarkAckReplicas measures webhook acknowledgements over loopback
// HTTP with the delivery dedup (and the pending work) in memory or in a
// local redis-server, with one replica or two taking turns. 16 senders
// post at once; the jobs behind the acknowledgements never run (their
// lease is never granted), so only the request path is measured. It
// reports acks/s and the p50/p99 acknowledgement latency.
func BenchmarkAckReplicas(b *testing.B) {
	payload := readFile(b, payloadPath(seed001))
	bodies := make([][]byte, 64)
	sigs := make([]string, len(bodies))
	for i := range bodies {
		bodies[i] = bytes.Replace(payload, []byte(`"number": 2232`), []byte(fmt.Sprintf(`"number": %d`, 5000+i)), -1)
		sigs[i] = Sign(bodies[i], []byte(testSecret))
	}
	var proc *redistest.Proc
	if _, ok := redistest.ServerBinary(); ok {
		proc = redistest.Start(b)
	}
	for _, bc := range []struct {
		name     string
		redis    bool
		replicas int
	}{
		{"memory/1-replica", false, 1},
		{"redis/1-replica", true, 1},
		{"redis/2-replicas", true, 2},
	} {
		b.Run(bc.name, func(b *testing.B) {
			if bc.redis && proc == nil {
				b.Skip("redis-server not found")
			}
			var urls []string
			h := newHarness(b, func(c *Config) { c.Locker = blockingLocker{}; c.MaxQueued = 1 << 20 })
			for range bc.replicas {
				cfg := h.srv.cfg
				cfg.Deliveries, cfg.Locker, cfg.Metrics = nil, blockingLocker{}, metrics.New()
				if bc.redis {
					_ = proc.Client().FlushAll(context.Background()).Err()
					cfg.Redis = newTestRedis(b, proc, func(o *state.RedisOptions) { o.HealthInterval = time.Second })
					cfg.Locker = nil
				}
				srv, err := New(cfg)
				if err != nil {
					b.Fatal(err)
				}
				if bc.redis {
					// Jobs wait for a lease that never comes, as in memory.
					srv.dispatch = newDispatcher(cfg.Workers, cfg.MaxQueued, blockingLocker{}, srv.metrics, srv.shared.run)
				}
				hs := httptest.NewServer(srv.Handler())
				b.Cleanup(func() {
					hs.Close()
					ctx, cancel := context.WithTimeout(context.Background(), time.Millisecond)
					defer cancel()
					_ = srv.Shutdown(ctx)
				})
				urls = append(urls, hs.URL+"/webhook")
			}
			client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 64}}
			var seq atomic.Int64
			var mu sync.Mutex
			var lat []time.Duration
			b.SetParallelism(8)
			b.ResetTimer()
			start := time.Now()
			b.RunParallel(func(pb *testing.PB) {
				mine := make([]time.Duration, 0, 1024)
				for pb.Next() {
					n := seq.Add(1)
					i := int(n) % len(bodies)
					req, _ := http.NewRequest(http.MethodPost, urls[int(n)%len(urls)], bytes.NewReader(bodies[i]))
					req.Header.Set("X-Hub-Signature-256", sigs[i])
					req.Header.Set("X-GitHub-Event", "pull_request")
					req.Header.Set("X-GitHub-Delivery", fmt.Sprintf("ack-%d", n))
					t0 := time.Now()
					resp, err := client.Do(req)
					if err != nil {
						b.Error(err)
						return
					}
					resp.Body.Close()
					mine = append(mine, time.Since(t0))
					if resp.StatusCode != http.StatusAccepted {
						b.Errorf("status %d", resp.StatusCode)
						return
					}
				}
				mu.Lock()
				lat = append(lat, mine...)
				mu.Unlock()
			})
			elapsed := time.Since(start)
			b.StopTimer()
			sort.Slice(lat, func(i, j int) bool { return lat[i] < lat[j] })
			if len(lat) > 0 {
				b.ReportMetric(float64(len(lat))/elapsed.Seconds(), "acks/s")
				b.ReportMetric(float64(lat[len(lat)/2].Microseconds())/1000, "p50-ms")
				b.ReportMetric(float64(lat[len(lat)*99/100].Microseconds())/1000, "p99-ms")
			}
		})
	}
}
