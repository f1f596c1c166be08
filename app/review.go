package app

import (
	"context"
	"errors"
	"fmt"
	"path"
	"strings"

	"github.com/google/go-github/v62/github"

	"github.com/reviewbot-dev/reviewbot/app/ghapi"
	"github.com/reviewbot-dev/reviewbot/app/internal/text"
	"github.com/reviewbot-dev/reviewbot/app/prtree"
	"github.com/reviewbot-dev/reviewbot/app/state"
	"github.com/reviewbot-dev/reviewbot/checks"
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
			"reviewed", text.Short(pr.GetHead().GetSHA()), "head", text.Short(moved.GetHead().GetSHA()))
		pr = moved
	}
}

// reviewHead reviews pr's head. When the PR's head is different by the time
// the result would be posted, nothing is posted and the current PR is
// returned instead.
func (s *Server) reviewHead(ctx context.Context, rc *ghapi.Repo, pr *github.PullRequest, opts reviewOptions) (string, *github.PullRequest, error) {
	number, head := pr.GetNumber(), pr.GetHead().GetSHA()
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
	// What the bot posted before is read while the PR is: both are
	// needed, neither depends on the other.
	type readResult struct {
		st  *prState
		err error
	}
	prior := make(chan readResult, 1)
	go func() {
		st, err := s.readState(ctx, rc, number)
		prior <- readResult{st, err}
	}()
	lc, err := s.changes().Load(ctx, rc.Client, pr)
	if err != nil {
		return "", nil, err
	}
	ch := lc.Change
	res, err := checks.Review(ctx, s.reg, ch)
	if err != nil {
		if ce := (*checks.ConfigError)(nil); errors.As(err, &ce) && ce.Source == checks.ConfigPath {
			// The repository's configuration is broken: no review can be
			// trusted until it is fixed, and the author must hear why.
			ex := s.executor(rc, number, head, opts.lease, "")
			desc := text.FirstLine(err.Error())
			if r := []rune(desc); len(r) > 140 {
				desc = string(r[:139]) + "…"
			}
			if serr := ex.SetStatus(ctx, reviewer.Status{State: "error", Description: desc}, ""); serr != nil {
				return "", nil, serr
			}
			return "config_error", nil, nil
		}
		return "", nil, fmt.Errorf("review %s#%d at %s: %w", rc.Slug(), number, text.Short(head), err)
	}
	for _, e := range res.Errors {
		s.log.Warn("rule failed", "repo", rc.Slug(), "pr", number, "error", text.FirstLine(e.Error()))
	}

	r := <-prior
	st, err := r.st, r.err
	if err != nil {
		return "", nil, err
	}
	sweep := &reviewer.SweepLabels{Applies: touchesSweep(ch), Labels: ch.PR.Labels}
	plan := reviewer.BuildPlan(res.Findings, ch.Files, reviewer.PlanOptions{
		Previous: st.previous, ReReview: st.summary != nil, Notes: reviewNotes(lc, res), SweepLabels: sweep,
		NotReviewed: res.NotReviewed,
	})

	// The last look before posting: a result for a head that is no longer
	// the PR's would be stale.
	cur, err := rc.PR(ctx, number)
	if err != nil {
		return "", nil, fmt.Errorf("get %s#%d: %w", rc.Slug(), number, err)
	}
	if cur.GetHead().GetSHA() != head {
		return "", cur, nil
	}
	if cur.GetState() != "open" {
		return "skipped_closed", nil, nil
	}

	ex := s.executor(rc, number, head, opts.lease, st.login)
	// The greeting comes first, as a person would say it.
	if opts.welcome && !st.welcomed && needsWelcome(ch) {
		if err := ex.PostWelcome(ctx); err != nil {
			return "", nil, err
		}
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
}

// readState reads the bot's earlier summary, inline comments and welcome
// comment. Only the bot's own comments count for findings: anyone can
// paste a marker.
func (s *Server) readState(ctx context.Context, rc *ghapi.Repo, number int) (*prState, error) {
	login, comments, err := s.botComments(ctx, rc, number)
	if err != nil {
		return nil, err
	}
	st := &prState{login: login}
	for _, c := range comments {
		if reviewer.HasWelcomeMarker(c.GetBody()) {
			st.welcomed = true // whoever posted it: the repository's own workflow used the marker too
		}
		if st.summary == nil && ghapi.IsUser(c.GetUser(), login) && reviewer.ParseSummaryMarker(c.GetBody()) {
			st.summary = c
			st.previous = append(st.previous, reviewer.ParseSummaryFindings(c.GetBody())...)
		}
	}
	opts := &github.PullRequestListCommentsOptions{}
	rcs, err := ghapi.ListAll(ctx, func(lo *github.ListOptions) ([]*github.PullRequestComment, *github.Response, error) {
		opts.ListOptions = *lo
		return rc.Client.PullRequests.ListComments(ctx, rc.Owner, rc.Name, number, opts)
	})
	if err != nil {
		return nil, fmt.Errorf("list the review comments of %s#%d: %w", rc.Slug(), number, err)
	}
	for _, c := range rcs {
		if !ghapi.IsUser(c.GetUser(), login) {
			continue
		}
		if rule, fp, ok := reviewer.ParseFindingMarker(c.GetBody()); ok {
			st.previous = append(st.previous, reviewer.PostedFinding{Fingerprint: fp, Rule: rule, Path: c.GetPath()})
		}
	}
	return st, nil
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
// benchmarks/** or the perf changelog (SPEC §7).
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
