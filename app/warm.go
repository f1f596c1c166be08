package app

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/reviewbot-dev/reviewbot/app/internal/text"
	"github.com/reviewbot-dev/reviewbot/app/prtree"
	"github.com/reviewbot-dev/reviewbot/checks"
	"github.com/reviewbot-dev/reviewbot/checks/pipeline"
)

// A replica that just started has empty caches: its first review of a
// repository would read the merge base and build its pipeline model (the
// largest part of a first review's time). Config.Warm names repositories
// whose default branch a replica reads first, before /readyz says it is
// ready, so a load balancer sends it no review until then. PRs are
// opened against that branch: the first one's merge base is its head, or
// a few merges before or after it, and the model built here is reused or
// lent as donor. Warming is bounded by Config.WarmTimeout; a repository
// that cannot be warmed is logged and left to its first review.

// DefaultWarmTimeout bounds warming when Config.WarmTimeout is unset.
const DefaultWarmTimeout = 3 * time.Minute

// startWarm warms Config.Warm in the background; s.warmed is closed when
// it is done (at once when there is nothing to warm).
func (s *Server) startWarm() {
	s.warmed = make(chan struct{})
	if len(s.cfg.Warm) == 0 {
		close(s.warmed)
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), s.cfg.WarmTimeout)
	s.stopWarm = cancel
	go func() {
		defer close(s.warmed)
		defer cancel()
		// Every review needs the bot's login (its own comments are found
		// by it); ask once now.
		if _, err := s.cfg.Clients.BotLogin(ctx); err != nil {
			s.log.Warn("could not learn the bot's login while warming", "error", text.FirstLine(err.Error()))
		}
		for _, full := range s.cfg.Warm {
			start := time.Now()
			if err := s.warmRepo(ctx, full); err != nil {
				s.log.Warn("could not warm the caches; the repository's first review builds what it needs",
					"repo", full, "error", text.FirstLine(err.Error()))
				continue
			}
			s.log.Info("warmed the caches", "repo", full, "duration", time.Since(start))
		}
	}()
}

// warming reports whether the replica is still warming its caches.
func (s *Server) warming() bool {
	select {
	case <-s.warmed:
		return false
	default:
		return true
	}
}

// warmRepo reads the head of full's default branch (three calls and its
// tarball) and builds its pipeline model.
func (s *Server) warmRepo(ctx context.Context, full string) error {
	owner, name, ok := strings.Cut(full, "/")
	if !ok || owner == "" || name == "" || strings.Contains(name, "/") {
		return fmt.Errorf("not a repository: %q (want owner/name)", full)
	}
	gh, err := s.cfg.Clients.Installation(ctx, 0, owner, name)
	if err != nil {
		return err
	}
	repo, _, err := gh.Repositories.Get(ctx, owner, name)
	if err != nil {
		return fmt.Errorf("get %s: %w", full, err)
	}
	br, _, err := gh.Repositories.GetBranch(ctx, owner, name, repo.GetDefaultBranch(), 1)
	if err != nil {
		return fmt.Errorf("get the %s branch of %s: %w", repo.GetDefaultBranch(), full, err)
	}
	sha, root := br.GetCommit().GetSHA(), br.GetCommit().GetCommit().GetTree().GetSHA()
	if sha == "" {
		return fmt.Errorf("the %s branch of %s names no commit", repo.GetDefaultBranch(), full)
	}
	tree := prtree.NewTreeOf(gh, owner, name, sha, root, s.git)
	ch := &checks.Change{Base: tree, Head: tree, Cache: s.parseCache}
	if err := ch.Configure(ctx, s.reg); err != nil {
		return err
	}
	return pipeline.Warm(ctx, tree, ch.Config, s.parseCache)
}
