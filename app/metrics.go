package app

import (
	"context"
	"net/http"
	"strconv"
	"strings"
	"sync/atomic"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
)

// Metrics are the App's Prometheus metrics, on a registry of their own so
// two servers in one process (tests) do not collide.
type Metrics struct {
	Registry *prometheus.Registry

	deliveries     *prometheus.CounterVec
	reviewDuration *prometheus.HistogramVec
	reviewCalls    prometheus.Histogram
	apiCalls       *prometheus.CounterVec
	cache          *prometheus.CounterVec
	queued         prometheus.Gauge
	running        prometheus.Gauge
	setAsideJobs   prometheus.Counter
}

// NewMetrics registers the App's metrics (and the Go runtime's).
func NewMetrics() *Metrics {
	m := &Metrics{
		Registry: prometheus.NewRegistry(),
		deliveries: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "reviewbot_webhook_deliveries_total",
			Help: "Webhook deliveries by event and outcome (queued, duplicate, ignored, bad_signature, ...).",
		}, []string{"event", "outcome"}),
		reviewDuration: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name:    "reviewbot_review_duration_seconds",
			Help:    "Time from starting a review job to its last GitHub write, by outcome.",
			Buckets: []float64{.05, .1, .25, .5, 1, 2.5, 5, 10, 30, 60, 120},
		}, []string{"outcome"}),
		reviewCalls: prometheus.NewHistogram(prometheus.HistogramOpts{
			Name:    "reviewbot_review_github_calls",
			Help:    "GitHub API calls one review job made.",
			Buckets: []float64{5, 8, 10, 15, 20, 50, 100, 250, 500},
		}),
		apiCalls: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "reviewbot_github_api_calls_total",
			Help: "GitHub API calls by route template and HTTP status (0: no response).",
		}, []string{"route", "status"}),
		cache: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "reviewbot_cache_requests_total",
			Help: "Lookups of the blob and tree caches, by cache and result (hit, miss).",
		}, []string{"cache", "result"}),
		queued: prometheus.NewGauge(prometheus.GaugeOpts{
			Name: "reviewbot_jobs_queued", Help: "Jobs queued or running."}),
		running: prometheus.NewGauge(prometheus.GaugeOpts{
			Name: "reviewbot_jobs_running", Help: "Jobs running now."}),
		setAsideJobs: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "reviewbot_jobs_set_aside_total", Help: "PR heads set aside (dead-lettered) after crashing the reviewer repeatedly."}),
	}
	m.Registry.MustRegister(m.deliveries, m.reviewDuration, m.reviewCalls, m.apiCalls, m.cache, m.queued, m.running, m.setAsideJobs,
		collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	return m
}

func (m *Metrics) cacheLookup(cache string, hit bool) {
	if m == nil {
		return
	}
	result := "miss"
	if hit {
		result = "hit"
	}
	m.cache.WithLabelValues(cache, result).Inc()
}

// callCounter counts the GitHub calls of one job.
type callCounter struct{ n atomic.Int64 }

type callCounterKey struct{}

func withCallCounter(ctx context.Context) (context.Context, *callCounter) {
	c := &callCounter{}
	return context.WithValue(ctx, callCounterKey{}, c), c
}

// Total is the number of calls so far.
func (c *callCounter) Total() int { return int(c.n.Load()) }

// metricsTransport counts every attempt, retries included, so the metrics
// show what GitHub saw.
type metricsTransport struct {
	metrics *Metrics
	next    http.RoundTripper
}

func (t *metricsTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	route := apiRoute(req.Method, req.URL.Path)
	if c, ok := req.Context().Value(callCounterKey{}).(*callCounter); ok {
		c.n.Add(1)
	}
	resp, err := t.next.RoundTrip(req)
	if t.metrics != nil {
		t.metrics.apiCalls.WithLabelValues(route, strconv.Itoa(statusOf(resp))).Inc()
	}
	return resp, err
}

// routeWords are the literal path segments of the GitHub routes; any other
// segment is an identifier, so the route label has bounded cardinality.
var routeWords = map[string]bool{
	"app": true, "installations": true, "access_tokens": true, "installation": true, "user": true,
	"repos": true, "pulls": true, "issues": true, "comments": true, "reviews": true, "files": true,
	"compare": true, "git": true, "trees": true, "blobs": true, "statuses": true, "status": true,
	"commits": true, "reactions": true, "labels": true, "events": true, "check-runs": true,
	"check-suites": true, "actions": true, "runs": true, "artifacts": true, "zip": true, "jobs": true,
	"workflows": true, "merge": true, "requested_reviewers": true, "collaborators": true,
	"permission": true, "teams": true, "orgs": true, "members": true, "memberships": true, "contents": true,
}

// apiRoute turns a request path into its route template,
// "GET /repos/{owner}/{repo}/pulls/{id}/files". A GitHub Enterprise
// prefix (/api/v3) is dropped.
func apiRoute(method, path string) string {
	path = strings.TrimPrefix(path, "/api/v3")
	segs := strings.Split(strings.Trim(path, "/"), "/")
	for i, s := range segs {
		switch {
		case i == 1 && segs[0] == "repos":
			segs[i] = "{owner}"
		case i == 2 && segs[0] == "repos":
			segs[i] = "{repo}"
		case !routeWords[s]:
			segs[i] = "{id}"
		}
	}
	return method + " /" + strings.Join(segs, "/")
}

func (m *Metrics) setAside() {
	if m != nil {
		m.setAsideJobs.Inc()
	}
}

func (m *Metrics) queuedAdd(n float64) {
	if m != nil {
		m.queued.Add(n)
	}
}

func (m *Metrics) runningAdd(n float64) {
	if m != nil {
		m.running.Add(n)
	}
}
