package app

import (
	"context"
	"sync"
	"time"
)

// A review's time falls in three phases, kept apart so an operator (and
// the latency replay) can tell GitHub's latency from the rules' CPU:
// read (the PR, its trees and what the bot posted before), rules
// (checks.Review and the plan) and write (the last look at the PR and
// every write, the welcome's remainder included).
const (
	phaseRead  = "read"
	phaseRules = "rules"
	phaseWrite = "write"
)

var phaseNames = []string{phaseRead, phaseRules, phaseWrite}

// phaseClock adds up the time a job spent in each phase; a job that
// starts over (the head moved) adds its second run to the first.
type phaseClock struct {
	mu sync.Mutex
	d  map[string]time.Duration
}

type phaseClockKey struct{}

func withPhaseClock(ctx context.Context) (context.Context, *phaseClock) {
	c := &phaseClock{d: map[string]time.Duration{}}
	return context.WithValue(ctx, phaseClockKey{}, c), c
}

// since adds the time since start to phase on ctx's clock, if it has
// one, and returns now: the start of the next phase.
func since(ctx context.Context, phase string, start time.Time) time.Time {
	now := time.Now()
	if c, ok := ctx.Value(phaseClockKey{}).(*phaseClock); ok {
		c.mu.Lock()
		c.d[phase] += now.Sub(start)
		c.mu.Unlock()
	}
	return now
}

// spent is each phase's time, in phaseNames' order; ok is false when no
// phase was timed (the job reviewed nothing).
func (c *phaseClock) spent() (d [3]time.Duration, ok bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for i, p := range phaseNames {
		v, timed := c.d[p]
		d[i], ok = v, ok || timed
	}
	return d, ok
}
