package app

import (
	"context"
	"errors"
	"fmt"
	"runtime/debug"
	"strings"

	"github.com/reviewbot-dev/reviewbot/app/ghapi"
	"github.com/reviewbot-dev/reviewbot/app/state"
	"github.com/reviewbot-dev/reviewbot/reviewer"
)

// A job that crashes its worker must not take the service down with it,
// again and again: as trusted job queues do, the App counts the attempts
// of a PR's work and sets aside (dead-letters) work that crashed
// maxAttempts times, with a status on the PR's head saying so. A panic is
// recovered and counts as a crash. A crash that kills the process (a
// stack overflow, the OOM killer) leaves the work unfinished in Redis, and
// the next replica to take it counts the attempt; without Redis the work
// dies with the process.
//
// The record is per head: a new push is reviewed afresh, a redelivery of
// the same head is not tried again.

// maxAttempts is how many times a PR's work may crash before it is set
// aside.
const maxAttempts = 3

// errCrashed marks a job that panicked.
var errCrashed = errors.New("the job crashed")

// runPRSafely runs a job's request, turning a panic into errCrashed (with
// the stack in the log).
func (s *Server) runPRSafely(ctx context.Context, j *job, lease state.Lease) (outcome string, err error) {
	defer func() {
		if p := recover(); p != nil {
			s.log.Error("job panicked", "key", j.key, "panic", fmt.Sprint(p), "stack", string(debug.Stack()))
			outcome, err = "crashed", fmt.Errorf("%w: %v", errCrashed, p)
		}
	}()
	if s.beforeRun != nil {
		s.beforeRun(j)
	}
	return s.runPR(ctx, j.req, j.resumed, lease)
}

// setAsideCheck decides, before a job runs, whether its PR's work is set
// aside: it crashed too often (attempts, counted by Redis for work a
// killed replica left), or its head was set aside before. It returns the
// outcome when the job must not run.
func (s *Server) setAsideCheck(ctx context.Context, j *job, attempts int, lease state.Lease) (string, bool, error) {
	if attempts > maxAttempts {
		o, err := s.setAside(ctx, j, lease, attempts-1)
		return o, true, err
	}
	dead, ok, err := s.dead.Head(ctx, j.key)
	if err != nil || !ok {
		return "", false, err
	}
	gh, err := s.cfg.Clients.Installation(ctx, j.req.installation, j.req.owner, j.req.repo)
	if err != nil {
		return "", false, err
	}
	pr, err := (&ghapi.Repo{Client: gh, Owner: j.req.owner, Name: j.req.repo}).PR(ctx, j.req.number)
	if err != nil {
		return "", false, fmt.Errorf("get %s: %w", j.key, err)
	}
	if pr.GetHead().GetSHA() == dead {
		return "set_aside", true, nil
	}
	// A new head gets a fresh start.
	return "", false, s.dead.Clear(ctx, j.key)
}

// setAside records the PR's head as set aside and says so on it: an
// error status, so the PR shows it was not reviewed, and a log line an
// operator can find.
func (s *Server) setAside(ctx context.Context, j *job, lease state.Lease, crashes int) (string, error) {
	s.metrics.SetAside()
	gh, err := s.cfg.Clients.Installation(ctx, j.req.installation, j.req.owner, j.req.repo)
	if err != nil {
		return "", err
	}
	rc := &ghapi.Repo{Client: gh, Owner: j.req.owner, Name: j.req.repo}
	pr, err := rc.PR(ctx, j.req.number)
	if err != nil {
		return "", fmt.Errorf("get %s: %w", j.key, err)
	}
	head := pr.GetHead().GetSHA()
	s.log.Error("work set aside: it crashed the reviewer repeatedly", "key", j.key, "head", head, "crashes", crashes)
	if err := s.dead.SetHead(ctx, j.key, head); err != nil {
		return "", err
	}
	ex := s.executor(rc, j.req.number, head, lease, "")
	st := reviewer.Status{State: "error", Description: fmt.Sprintf("Not reviewed: reviewing this head crashed the reviewer %d times; set aside for an operator", crashes)}
	if err := ex.SetStatus(ctx, st, ""); err != nil {
		return "", err
	}
	return "set_aside", nil
}

// crashCount reads the attempts a work hash carries (workTake counts
// them).
func crashCount(h map[string]string) int {
	n := 0
	if v, ok := h[fieldAttempts]; ok {
		_, _ = fmt.Sscanf(strings.TrimSpace(v), "%d", &n)
	}
	return n
}
