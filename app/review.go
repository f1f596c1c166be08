package app

import (
	"context"
	"errors"
	"fmt"
	"path"
	"strings"
	"time"

	"github.com/google/go-github/v62/github"
	"golang.org/x/sync/errgroup"

	"github.com/reviewbot-dev/reviewbot/app/ghapi"
	"github.com/reviewbot-dev/reviewbot/app/internal/text"
	"github.com/reviewbot-dev/reviewbot/app/post"
	"github.com/reviewbot-dev/reviewbot/app/prtree"
	"github.com/reviewbot-dev/reviewbot/app/state"
	"github.com/reviewbot-dev/reviewbot/checks"
	"github.com/reviewbot-dev/reviewbot/checks/prose"
	"github.com/reviewbot-dev/reviewbot/reviewer"
)

// maxHeadMoves bounds how often one job starts over because the PR's head
// moved while it was reviewing; the push that moved it queues its own job
// anyway.
const maxHeadMoves = 3

type reviewOptions struct {
	pr      *github.PullRequest // the payload's PR; nil: fetch it
	welcome bool
	lease   state.Lease
	// resumed: another replica left this work unfinished.
	resumed bool
}

// review reviews a PR and posts the result: the one function behind both a
// pull_request event and `@<name> review`.
func (s *Server) review(ctx context.Context, rc *ghapi.Repo, number int, opts reviewOptions) (string, error) {
	pr := opts.pr
	for attempt := 0; ; attempt++ {
		if pr == nil {
			var err error
			if pr, err = rc.PR(ctx, number); err != nil {
				return "", fmt.Errorf("get %s#%d: %w", rc.Slug(), number, err)
			}
		}
		if pr.GetState() != "open" {
			return "skipped_closed", nil
		}
		outcome, moved, err := s.reviewHead(ctx, rc, pr, opts)
		if err != nil || moved == nil {
			return outcome, err
		}
		if attempt+1 >= maxHeadMoves {
			return "skipped_head_moving", nil
		}
		s.log.Info("head moved during the review; reviewing the new head", "repo", rc.Slug(), "pr", number,
			"reviewed", prose.ShortSHA(pr.GetHead().GetSHA()), "head", prose.ShortSHA(moved.GetHead().GetSHA()))
		pr = moved
	}
}

// reviewHead reviews pr's head. When the PR's head is different by the time
// the result would be posted, nothing is posted and the current PR is
// returned instead.
func (s *Server) reviewHead(ctx context.Context, rc *ghapi.Repo, pr *github.PullRequest, opts reviewOptions) (string, *github.PullRequest, error) {
	number, head := pr.GetNumber(), pr.GetHead().GetSHA()
	t := time.Now()
	if pr.GetDraft() && !s.cfg.ReviewDrafts {
		// The repository may opt in; its configuration is read from the
		// base branch, before anything else is fetched.
		base := prtree.NewTree(rc.Client, rc.Owner, rc.Name, pr.GetBase().GetSHA(), s.git)
		cfg, err := checks.LoadConfig(ctx, base)
		if err != nil {
			return "", nil, err
		}
		if !cfg.ReviewDrafts {
			return "skipped_draft", nil, nil
		}
	}
	// What the bot posted before, and the head's statuses, are read while
	// the PR is: all are needed, none depends on the others.
	type readResult struct {
		st  *prState
		err error
	}
	prior := make(chan readResult, 1)
	go func() {
		st, err := s.readState(ctx, rc, number, head)
		prior <- readResult{st, err}
	}()
	lc, err := s.changes().Load(ctx, rc.Client, pr)
	if err != nil {
		<-prior
		return "", nil, err
	}
	r := <-prior
	if r.err != nil {
		return "", nil, r.err
	}
	st := r.st
	t = since(ctx, phaseRead, t)
	ex := s.executor(rc, number, head, opts.lease, st.login)
	ex.Statuses = st.statuses
	ex.PRURL = pr.GetHTMLURL()
	ex.Resumed = opts.resumed
	// The greeting comes first, as a person would say it; it is posted
	// while the rules run, and everything else waits for it.
	var welcome *pending
	// The configuration says which files are master configs; when it is
	// broken the review says so, and no one is greeted yet.
	if opts.welcome && !st.welcomed && lc.Change.Configure(ctx, s.reg) == nil && needsWelcome(lc.Change) {
		welcome = goWrite(func() error { return ex.PostWelcome(ctx) })
	}
	outcome, moved, err := s.reviewAndPost(ctx, rc, pr, lc, st, ex, welcome, t)
	if werr := welcome.wait(); err == nil {
		err = werr
	}
	return outcome, moved, err
}

// pending is a write under way.
type pending struct {
	done chan struct{}
	err  error
}

func goWrite(write func() error) *pending {
	p := &pending{done: make(chan struct{})}
	go func() {
		defer close(p.done)
		p.err = write()
	}()
	return p
}

// wait returns the write's error once it is done; a nil pending is no
// write.
func (p *pending) wait() error {
	if p == nil {
		return nil
	}
	<-p.done
	return p.err
}

// reviewAndPost runs the rules on a loaded PR and posts the result, once
// the welcome (if any) is out.
func (s *Server) reviewAndPost(ctx context.Context, rc *ghapi.Repo, pr *github.PullRequest, lc *prtree.Loaded, st *prState, ex *post.Executor, welcome *pending, t time.Time) (_ string, _ *github.PullRequest, err error) {
	number, head := pr.GetNumber(), pr.GetHead().GetSHA()
	ch := lc.Change
	res, err := checks.Review(ctx, s.reg, ch)
	t = since(ctx, phaseRules, t)
	defer func() { since(ctx, phaseWrite, t) }()
	if err != nil {
		if ce := (*checks.ConfigError)(nil); errors.As(err, &ce) && ce.Source == checks.ConfigPath {
			// The repository's configuration is broken: no review can be
			// trusted until it is fixed, and the author must hear why.
			desc := text.FirstLine(err.Error())
			if r := []rune(desc); len(r) > 140 {
				desc = string(r[:139]) + "…"
			}
			if serr := ex.SetStatus(ctx, reviewer.Status{State: "error", Description: desc}, ""); serr != nil {
				return "", nil, serr
			}
			return "config_error", nil, nil
		}
		return "", nil, fmt.Errorf("review %s#%d at %s: %w", rc.Slug(), number, prose.ShortSHA(head), err)
	}
	for _, e := range res.Errors {
		s.log.Warn("rule failed", "repo", rc.Slug(), "pr", number, "error", text.FirstLine(e.Error()))
	}
	sweep := &reviewer.SweepLabels{Applies: touchesSweep(ch), Labels: ch.PR.Labels}
	plan := reviewer.BuildPlan(res.Findings, ch.Files, reviewer.PlanOptions{
		Previous: st.previous, ReReview: st.summary != nil, Notes: reviewNotes(lc, res), SweepLabels: sweep,
		NotReviewed: res.NotReviewed,
	})
	t = since(ctx, phaseRules, t)

	// The last look before posting: a result for a head that is no longer
	// the PR's would be stale.
	cur, err := rc.PR(ctx, number)
	if err != nil {
		return "", nil, fmt.Errorf("get %s#%d: %w", rc.Slug(), number, err)
	}
	// What GitHub says the head is now also corrects the record of heads
	// when a push's delivery is late or lost.
	s.gate().RecordHead(ctx, rc, cur)
	if cur.GetHead().GetSHA() != head {
		return "", cur, nil
	}
	if cur.GetState() != "open" {
		return "skipped_closed", nil, nil
	}
	if err := welcome.wait(); err != nil {
		return "", nil, err
	}
	if err := ex.Execute(ctx, plan, st.summary); err != nil {
		return "", nil, err
	}
	return "reviewed", nil, nil
}

// prState is what the bot posted on a PR before.
type prState struct {
	login    string
	summary  *github.IssueComment
	previous []reviewer.PostedFinding
	welcomed bool
	// statuses are the head's, newest first; nil when they could not be
	// read (the executor then reads them itself).
	statuses []*github.RepoStatus
}

// readState reads the bot's earlier summary, inline comments and welcome
// comment, and head's statuses, all at once. Only the bot's own comments
// count for findings: anyone can paste a marker.
func (s *Server) readState(ctx context.Context, rc *ghapi.Repo, number int, head string) (*prState, error) {
	st := &prState{}
	var comments []*github.IssueComment
	var rcs []*github.PullRequestComment
	g, gctx := errgroup.WithContext(ctx)
	g.Go(func() error {
		var err error
		st.login, comments, err = s.botComments(gctx, rc, number)
		return err
	})
	g.Go(func() error {
		opts := &github.PullRequestListCommentsOptions{}
		var err error
		rcs, err = ghapi.ListAll(gctx, func(lo *github.ListOptions) ([]*github.PullRequestComment, *github.Response, error) {
			opts.ListOptions = *lo
			return rc.Client.PullRequests.ListComments(gctx, rc.Owner, rc.Name, number, opts)
		})
		if err != nil {
			return fmt.Errorf("list the review comments of %s#%d: %w", rc.Slug(), number, err)
		}
		return nil
	})
	g.Go(func() error {
		// Whether the status to set is set already (a repeated run): when
		// they cannot be read now, the executor reads them when it sets it.
		sts, _, err := rc.Client.Repositories.ListStatuses(gctx, rc.Owner, rc.Name, head, &github.ListOptions{PerPage: 100})
		if err == nil {
			st.statuses = append([]*github.RepoStatus{}, sts...)
		}
		return nil
	})
	if err := g.Wait(); err != nil {
		return nil, err
	}
	// The bot's inline comments are what is inline: a summary that says a
	// finding is (its writer stopped between the summary and the review)
	// does not make it so, and the finding is posted inline again.
	inline := map[string]bool{}
	for _, c := range rcs {
		if !ghapi.IsUser(c.GetUser(), st.login) {
			continue
		}
		if rule, fp, ok := reviewer.ParseFindingMarker(c.GetBody()); ok {
			inline[fp] = true
			st.previous = append(st.previous, reviewer.PostedFinding{Fingerprint: fp, Rule: rule, Path: c.GetPath()})
		}
	}
	for _, c := range comments {
		if reviewer.HasWelcomeMarker(c.GetBody()) && (ghapi.IsUser(c.GetUser(), st.login) || isWorkflowAccount(c.GetUser())) {
			// The bot's own reminder, or the one the repository's workflow
			// posted before the App: anyone else can paste the marker.
			st.welcomed = true
		}
		if st.summary == nil && ghapi.IsUser(c.GetUser(), st.login) && reviewer.ParseSummaryMarker(c.GetBody()) {
			st.summary = c
			for _, pf := range reviewer.ParseSummaryFindings(c.GetBody()) {
				if pf.InSummary || inline[pf.Fingerprint] {
					st.previous = append(st.previous, pf)
				}
			}
		}
	}
	return st, nil
}

// WorkflowAccount is the account the repository's own workflows comment
// as: the contributor reminder it posted counts as posted. A person cannot
// hold the login, GitHub reserves the [bot] suffix for Apps.
const WorkflowAccount = "github-actions[bot]"

func isWorkflowAccount(u *github.User) bool {
	return u.GetType() == "Bot" && strings.EqualFold(u.GetLogin(), WorkflowAccount)
}

// reviewNotes are the summary's remarks about the review itself.
func reviewNotes(lc *prtree.Loaded, res *checks.Result) []string {
	var notes []string
	if lc.Truncated() {
		notes = append(notes, fmt.Sprintf("⚠️ GitHub lists only the first %d of this PR's %d changed files, so only those "+
			"were reviewed. Run `reviewbot review` on a clone to review all of them.", lc.Listed, lc.Changed))
	}
	if len(res.Errors) > 0 {
		lines := []string{"⚠️ Some checks could not finish, so findings of theirs may be missing:"}
		for i, e := range res.Errors {
			if i == 10 {
				lines = append(lines, fmt.Sprintf("- … and %d more", len(res.Errors)-10))
				break
			}
			lines = append(lines, "- "+text.FirstLine(e.Error()))
		}
		notes = append(notes, strings.Join(lines, "\n"))
	}
	return notes
}

// touchesSweep reports whether the PR changes what the benchmark sweep
// runs: recipes, master configs or the perf changelog.
func touchesSweep(ch *checks.Change) bool {
	return anyFile(ch, func(p string) bool {
		return ch.Config.IsRecipe(p) || ch.Config.IsMasterConfig(p) || p == ch.Config.Paths.Changelog
	})
}

// needsWelcome reports whether the PR touches master configs,
// benchmarks/** or the perf changelog (docs/app.md: the contributor reminder).
func needsWelcome(ch *checks.Change) bool {
	return anyFile(ch, func(p string) bool {
		return ch.Config.IsMasterConfig(p) || p == ch.Config.Paths.Changelog ||
			strings.HasPrefix(p, "benchmarks/") || strings.HasPrefix(p, path.Join(checks.NewerLayoutRoot, "benchmarks")+"/")
	})
}

func anyFile(ch *checks.Change, pred func(string) bool) bool {
	for _, f := range ch.Files {
		if pred(f.Path) || (f.OldPath != "" && pred(f.OldPath)) {
			return true
		}
	}
	return false
}

// updateLabels re-evaluates the sweep-label rule for a label change and
// rewrites that line of the summary in place; no new review. A PR the bot
// has not reviewed yet has no summary to update: its first review states
// the labels.
func (s *Server) updateLabels(ctx context.Context, rc *ghapi.Repo, number int, lease state.Lease) (string, error) {
	pr, err := rc.PR(ctx, number)
	if err != nil {
		return "", fmt.Errorf("get %s#%d: %w", rc.Slug(), number, err)
	}
	login, comments, err := s.botComments(ctx, rc, number)
	if err != nil {
		return "", err
	}
	var summary *github.IssueComment
	for _, c := range comments {
		if ghapi.IsUser(c.GetUser(), login) && reviewer.ParseSummaryMarker(c.GetBody()) {
			summary = c
			break
		}
	}
	if summary == nil {
		return "labels_no_summary", nil
	}
	applies, _ := reviewer.ParseLabelSection(summary.GetBody())
	labels := make([]string, 0, len(pr.Labels))
	for _, l := range pr.Labels {
		labels = append(labels, l.GetName())
	}
	body := reviewer.UpdateLabelSection(summary.GetBody(), reviewer.SweepLabels{Applies: applies, Labels: labels})
	if body == summary.GetBody() {
		return "labels_unchanged", nil
	}
	ex := s.executor(rc, number, pr.GetHead().GetSHA(), lease, login)
	if err := ex.EditComment(ctx, summary, body); err != nil {
		return "", err
	}
	return "labels_updated", nil
}
