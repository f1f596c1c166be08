package app

import (
	"time"

	"github.com/reviewbot-dev/reviewbot/app/internal/queue"
	"github.com/reviewbot-dev/reviewbot/app/metrics"
	"github.com/reviewbot-dev/reviewbot/app/state"
)

// job is the work of one or more deliveries on one pull request.
type job struct {
	key        string // owner/repo#number
	deliveries []*delivery
	req        *prRequest
	// enqueued is when the job (its newest delivery) entered the queue.
	enqueued time.Time
	// attempts counts the runs of this work that did not finish (Redis
	// counts them across replicas): past maxAttempts it is set aside.
	attempts int
	// resumed: another replica took this work and left it unfinished.
	resumed bool
}

// Key is the job's PR: owner/repo#number.
func (j *job) Key() string { return j.key }

// Absorb folds older, a job of the same PR still waiting, into j: one run
// does what both asked, for the deliveries of both.
func (j *job) Absorb(older *job) bool {
	if !j.req.absorb(older.req) {
		return false
	}
	j.deliveries = append(older.deliveries, j.deliveries...)
	return true
}

// dispatcher is the server's job queue (internal/queue).
type dispatcher = queue.Queue[*job]

func newDispatcher(workers, maxPending int, locker state.Locker, m *metrics.Metrics, run queue.RunFunc[*job]) *dispatcher {
	var g queue.Gauges
	if m != nil {
		g = m
	}
	return queue.New(workers, maxPending, locker, g, run)
}
