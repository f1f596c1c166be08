// Package metrics holds the App's Prometheus metrics: deliveries,
// reviews and their phases, GitHub calls, cache lookups and the job
// gauges. Every method is safe on a nil *Metrics (no metrics).
package metrics

import (
	"strconv"
	"time"

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
	reviewPhase    *prometheus.HistogramVec
	apiCalls       *prometheus.CounterVec
	cache          *prometheus.CounterVec
	queued         prometheus.Gauge
	running        prometheus.Gauge
	setAsideJobs   prometheus.Counter
}

// New registers the App's metrics (and the Go runtime's).
func New() *Metrics {
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
		reviewPhase: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name:    "reviewbot_review_phase_seconds",
			Help:    "Time one review job spent reading the PR (read), running the rules (rules) and writing the result (write).",
			Buckets: []float64{.05, .1, .25, .5, 1, 2, 5, 10, 30},
		}, []string{"phase"}),
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
	m.Registry.MustRegister(m.deliveries, m.reviewDuration, m.reviewCalls, m.reviewPhase, m.apiCalls, m.cache, m.queued, m.running, m.setAsideJobs,
		collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	return m
}

// CacheLookup counts a lookup of a cache by result.
func (m *Metrics) CacheLookup(cache string, hit bool) {
	if m == nil {
		return
	}
	result := "miss"
	if hit {
		result = "hit"
	}
	m.cache.WithLabelValues(cache, result).Inc()
}

// APICall counts one GitHub call (an attempt) by route template and
// status.
func (m *Metrics) APICall(route string, status int) {
	if m != nil {
		m.apiCalls.WithLabelValues(route, strconv.Itoa(status)).Inc()
	}
}

// SetAside counts a PR head set aside after crashing the reviewer.
func (m *Metrics) SetAside() {
	if m != nil {
		m.setAsideJobs.Inc()
	}
}

// Delivery counts one webhook delivery by event and outcome.
func (m *Metrics) Delivery(event, outcome string) {
	if m != nil {
		m.deliveries.WithLabelValues(event, outcome).Inc()
	}
}

// Review observes one review job: its outcome, how long it took and how
// many GitHub calls it made.
func (m *Metrics) Review(outcome string, took time.Duration, calls int) {
	if m != nil {
		m.reviewDuration.WithLabelValues(outcome).Observe(took.Seconds())
		m.reviewCalls.Observe(float64(calls))
	}
}

// Phase observes the time one review job spent in a phase (read, rules,
// write).
func (m *Metrics) Phase(phase string, took time.Duration) {
	if m != nil {
		m.reviewPhase.WithLabelValues(phase).Observe(took.Seconds())
	}
}

// CacheCounter is the counter of a cache's lookups with result "hit" or
// "miss".
func (m *Metrics) CacheCounter(cache, result string) prometheus.Counter {
	return m.cache.WithLabelValues(cache, result)
}

// QueuedAdd moves the gauge of jobs queued or running.
func (m *Metrics) QueuedAdd(n float64) {
	if m != nil {
		m.queued.Add(n)
	}
}

// RunningAdd moves the gauge of jobs running.
func (m *Metrics) RunningAdd(n float64) {
	if m != nil {
		m.running.Add(n)
	}
}
