package app

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"time"

	"github.com/google/go-github/v62/github"

	"github.com/reviewbot-dev/reviewbot/app/gate"
	"github.com/reviewbot-dev/reviewbot/app/ghapi"
	"github.com/reviewbot-dev/reviewbot/app/post"
	"github.com/reviewbot-dev/reviewbot/app/prtree"
	"github.com/reviewbot-dev/reviewbot/app/state"
	"github.com/reviewbot-dev/reviewbot/app/sweep"
)

// prRequest is what the deliveries of one job ask for on one PR.
type prRequest struct {
	installation int64
	owner, repo  string
	number       int
	// pr is the PR as the newest delivery carried it (nil: fetch it).
	pr *github.PullRequest
	// review runs the full review; labels (without review) re-evaluates
	// only the label rules (labeled, unlabeled, edited).
	review, labels bool
	// welcome posts the contributor reminder if the PR needs one.
	welcome bool
	// readHead: a delivery's head could not be trusted to be the newest
	// (late, repeated or out of order), so the job reads the PR's head
	// from the API and records it before anything else.
	readHead bool
	// baseChanged: the PR was retargeted, and the sign-off verdicts
	// verified against its old base no longer stand.
	baseChanged bool
	// reactTo are command comments to acknowledge with 👀.
	reactTo []int64
	// commands are reuse-command comments to reply to.
	commands []*commandRequest
	// signoffs are sign-offs to verify, oldest first.
	signoffs []*gate.Request
	// help are `@<name> help` comments to answer.
	help []int64
}

func newPRJob(installation int64, owner, repo string, number int) *job {
	// GitHub names are case-insensitive: one PR, one key.
	return &job{key: gate.Key(owner, repo, number),
		req: &prRequest{installation: installation, owner: owner, repo: repo, number: number}}
}

// absorb folds an older, still-waiting request of the same PR into r: one
// run does what both asked.
func (r *prRequest) absorb(older *prRequest) bool {
	r.review = r.review || older.review
	r.labels = r.labels || older.labels
	r.welcome = r.welcome || older.welcome
	r.readHead = r.readHead || older.readHead
	r.baseChanged = r.baseChanged || older.baseChanged
	r.reactTo = append(append([]int64(nil), older.reactTo...), r.reactTo...)
	r.commands = append(append([]*commandRequest(nil), older.commands...), r.commands...)
	r.signoffs = append(append([]*gate.Request(nil), older.signoffs...), r.signoffs...)
	r.help = append(append([]int64(nil), older.help...), r.help...)
	if r.installation == 0 {
		r.installation = older.installation
	}
	if r.number == 0 {
		// A request that only names the key (work found in Redis) keeps
		// the older one's repository and PR.
		r.owner, r.repo, r.number = older.owner, older.repo, older.number
	}
	if r.pr == nil && !r.readHead {
		r.pr = older.pr
	}
	if r.readHead {
		r.pr = nil // read from the API
	}
	return true
}

// errDropped marks a job given up on for good (the PR or branch is gone);
// its deliveries are not retried.
type errDropped struct{ err error }

func (e errDropped) Error() string { return e.err.Error() }
func (e errDropped) Unwrap() error { return e.err }

// runJob runs one job and writes the log line of each of its deliveries.
// It reports whether the job crashed (a panic, recovered).
func (s *Server) runJob(ctx context.Context, j *job, lease state.Lease) (crashed bool) {
	ctx, cancel := context.WithTimeout(ctx, s.cfg.JobTimeout)
	defer cancel()
	ctx, calls := ghapi.WithCallCounter(ctx)
	ctx, clock := withPhaseClock(ctx)
	start := time.Now()
	outcome, skip, err := s.setAsideCheck(ctx, j, j.attempts, lease)
	if !skip && err == nil {
		outcome, err = s.runPRSafely(ctx, j, lease)
	}
	crashed = errors.Is(err, errCrashed)
	switch {
	case crashed && s.shared == nil:
		// Without Redis the crashes are counted here; with it, the
		// unfinished work counts them across replicas.
		if n := s.memDead.Crashed(j.key); n >= maxAttempts {
			if o, serr := s.setAside(ctx, j, lease, n); serr == nil {
				outcome, err, crashed = o, nil, false
			}
		}
	case err == nil && s.shared == nil:
		s.memDead.Succeeded(j.key)
	}
	if err != nil {
		var dropped errDropped
		if errors.As(err, &dropped) || ghapi.IsNotFound(err) {
			outcome, err = "dropped", fmt.Errorf("gone: %w", err)
		} else {
			outcome = "failed"
			// Let a redelivery of these deliveries try again.
			for _, d := range j.deliveries {
				if ferr := s.cfg.Deliveries.Forget(context.WithoutCancel(ctx), d.id); ferr != nil {
					s.log.Error("delivery store failed to forget", append(d.attrs(), "error", ferr)...)
				}
			}
		}
	}
	s.metrics.Review(outcome, time.Since(start), calls.Total())
	phases, timed := clock.spent()
	if timed {
		for i, p := range phaseNames {
			s.metrics.Phase(p, phases[i])
		}
	}
	newest := j.deliveries[len(j.deliveries)-1]
	for _, d := range j.deliveries {
		attrs := append(d.attrs(), "outcome", outcome, "duration", time.Since(d.received).String(),
			"github_calls", calls.Total())
		if timed {
			for i, p := range phaseNames {
				attrs = append(attrs, p, phases[i].Round(time.Millisecond).String())
			}
		}
		if d != newest {
			attrs = append(attrs, "merged_into", newest.id)
		}
		level := slog.LevelInfo
		if err != nil {
			attrs = append(attrs, "error", err.Error())
			level = slog.LevelWarn
			if outcome == "failed" {
				level = slog.LevelError
			}
		}
		s.log.Log(ctx, level, "webhook delivery", attrs...)
	}
	return crashed
}

// runPR does what a request asks on its PR; resumed says another replica
// left the work unfinished (it may still be writing).
func (s *Server) runPR(ctx context.Context, req *prRequest, resumed bool, lease state.Lease) (string, error) {
	if err := lease.Check(ctx); err != nil {
		return "", err
	}
	gh, err := s.cfg.Clients.Installation(ctx, req.installation, req.owner, req.repo)
	if err != nil {
		return "", err
	}
	rc := &ghapi.Repo{Client: gh, Owner: req.owner, Name: req.repo}
	if req.readHead {
		pr, err := rc.PR(ctx, req.number)
		if err != nil {
			return "", fmt.Errorf("get %s#%d: %w", rc.Slug(), req.number, err)
		}
		s.gate().RecordHead(ctx, rc, pr)
		req.pr = pr
	}
	var outcomes []string
	if req.baseChanged {
		o, err := s.gate().BaseChanged(ctx, rc, req.number, lease)
		if err != nil {
			return "", err
		}
		outcomes = append(outcomes, o)
	}
	reacted := map[int64]bool{}
	for _, id := range req.reactTo {
		if reacted[id] {
			continue
		}
		reacted[id] = true
		failed, err := post.React(ctx, rc, lease, id, "eyes")
		if err != nil {
			return "", err
		}
		if failed != nil {
			// The receipt matters less than the work: log and go on.
			s.log.Warn("could not react to a command", "repo", req.owner+"/"+req.repo, "comment", id, "error", failed)
		}
	}
	if len(req.help) > 0 {
		o, err := s.answerHelp(ctx, rc, req.number, req.help, lease)
		if err != nil {
			return "", err
		}
		outcomes = append(outcomes, o)
	}
	if len(req.commands) > 0 {
		o, err := s.answerCommands(ctx, rc, req.number, req.commands, lease)
		if err != nil {
			return "", err
		}
		outcomes = append(outcomes, o)
	}
	for i, so := range req.signoffs {
		if later(req.signoffs[i+1:], so) {
			continue // a newer delivery of the same sign-off follows
		}
		o, err := s.gate().Handle(ctx, rc, req.number, so, lease)
		if err != nil {
			return "", err
		}
		outcomes = append(outcomes, o)
	}
	switch {
	case req.review:
		o, err := s.review(ctx, rc, req.number, reviewOptions{pr: req.pr, welcome: req.welcome, lease: lease, resumed: resumed})
		if err != nil {
			return "", err
		}
		outcomes = append(outcomes, o)
	case req.labels:
		o, err := s.updateLabels(ctx, rc, req.number, lease)
		if err != nil {
			return "", err
		}
		outcomes = append(outcomes, o)
	}
	return strings.Join(outcomes, "+"), nil
}

// later reports whether rest holds another delivery of so's comment or
// review.
func later(rest []*gate.Request, so *gate.Request) bool {
	for _, o := range rest {
		if o.Source == so.Source && o.ID == so.ID {
			return true
		}
	}
	return false
}

// repoClient is a GitHub client bound to one repository.

// executor is the one way a job writes to PR number of rc: head is the
// commit it is about, lease fences every write, login ("": ask) is the
// bot's.
func (s *Server) executor(rc *ghapi.Repo, number int, head string, lease state.Lease, login string) *post.Executor {
	return &post.Executor{Log: s.log, Clients: s.cfg.Clients, Repo: rc, Number: number, Head: head, Lease: lease, Login: login}
}

// changes reads PRs through the API with the server's caches.
func (s *Server) changes() *prtree.Loader {
	return &prtree.Loader{Caches: s.git, MergeBases: s.mergeBases, ParseCache: s.parseCache, Now: s.now}
}

// gate is the sign-off flow with the server's clients, caches and
// ledger.
func (s *Server) gate() *gate.Gate {
	return &gate.Gate{Log: s.log, Ledger: s.ledger, Registry: s.reg, Now: s.now, Timeout: s.cfg.SignoffTimeout,
		SweepWorkflow: s.cfg.SweepWorkflow,
		Reader:        sweep.Reader{MaxArtifactBytes: s.cfg.MaxArtifactBytes, Download: s.download, MayCommand: s.mayCommand},
		BotComments:   s.botComments, Changes: s.changes, Executor: s.executor}
}
