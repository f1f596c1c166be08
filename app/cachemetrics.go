package app

import (
	"errors"
	"fmt"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/reviewbot-dev/reviewbot/app/state"
	"github.com/reviewbot-dev/reviewbot/checks/pipeline/ghexpr"
	"github.com/reviewbot-dev/reviewbot/checks/pipeline/sheval"
)

// Every cache and buffer the server holds is bounded in bytes, and its
// size is in /metrics: reviewbot_cache_bytes, reviewbot_cache_entries
// and reviewbot_cache_budget_bytes, by cache.
type cacheCollector struct {
	s                      *Server
	bytes, entries, budget *prometheus.Desc
}

func newCacheCollector(s *Server) *cacheCollector {
	return &cacheCollector{s: s,
		bytes:   prometheus.NewDesc("reviewbot_cache_bytes", "Bytes held by each in-process cache (an estimate for parsed values).", []string{"cache"}, nil),
		entries: prometheus.NewDesc("reviewbot_cache_entries", "Entries held by each in-process cache.", []string{"cache"}, nil),
		budget:  prometheus.NewDesc("reviewbot_cache_budget_bytes", "The byte budget of each in-process cache.", []string{"cache"}, nil),
	}
}

func (c *cacheCollector) Describe(ch chan<- *prometheus.Desc) {
	ch <- c.bytes
	ch <- c.entries
	ch <- c.budget
}

// cacheSize is one cache's figures.
type cacheSize struct {
	name           string
	bytes, budget  int64
	entries        int
	entriesUnknown bool
}

func (s *Server) cacheSizes() []cacheSize {
	var out []cacheSize
	b, n := s.git.BlobStats()
	out = append(out, cacheSize{name: "blob", bytes: b, entries: n, budget: s.cfg.BlobCacheBytes})
	b, n, tb := s.git.TreeStats()
	out = append(out, cacheSize{name: "tree", bytes: b, entries: n, budget: tb})
	b, n = s.mergeBases.Stats()
	out = append(out, cacheSize{name: "merge_base", bytes: b, entries: n, budget: s.mergeBases.Budget()})
	ps := s.parseCache.Stats()
	out = append(out, cacheSize{name: "parse", bytes: ps.Bytes, entries: ps.Entries, budget: ps.MaxBytes})
	if d, ok := s.cfg.Deliveries.(*state.MemoryDeliveries); ok {
		b, n = d.Stats()
		out = append(out, cacheSize{name: "deliveries", bytes: b, entries: n, budget: d.Budget()})
	}
	if l, ok := s.ledger.(*state.MemoryLedger); ok {
		out = append(out, cacheSize{name: "ledger", bytes: l.Size(), entriesUnknown: true, budget: l.Budget()})
	}
	out = append(out, cacheSize{name: "webhook_bodies", bytes: s.bodies.InUse(), entriesUnknown: true, budget: s.bodies.Total()})
	// Two caches of the pipeline evaluator are the process's, not a
	// server's: parsed GitHub expressions and the nodes of shell words.
	b64, n, budget := ghexpr.CompiledStats()
	out = append(out, cacheSize{name: "pipeline_expressions", bytes: b64, entries: n, budget: budget})
	b64, n, budget = sheval.WordNodeStats()
	out = append(out, cacheSize{name: "pipeline_word_nodes", bytes: b64, entries: n, budget: budget})
	return out
}

func (c *cacheCollector) Collect(ch chan<- prometheus.Metric) {
	for _, cs := range c.s.cacheSizes() {
		ch <- prometheus.MustNewConstMetric(c.bytes, prometheus.GaugeValue, float64(cs.bytes), cs.name)
		ch <- prometheus.MustNewConstMetric(c.budget, prometheus.GaugeValue, float64(cs.budget), cs.name)
		if !cs.entriesUnknown {
			ch <- prometheus.MustNewConstMetric(c.entries, prometheus.GaugeValue, float64(cs.entries), cs.name)
		}
	}
}

// registerCacheMetrics reports this server's caches; a server made anew on
// the same metrics (a restart in one process) takes the place of the old
// one.
func (s *Server) registerCacheMetrics() error {
	c := newCacheCollector(s)
	err := s.metrics.Registry.Register(c)
	var already prometheus.AlreadyRegisteredError
	if errors.As(err, &already) {
		s.metrics.Registry.Unregister(already.ExistingCollector)
		err = s.metrics.Registry.Register(c)
	}
	if err != nil {
		return fmt.Errorf("register the cache metrics: %w", err)
	}
	return nil
}
