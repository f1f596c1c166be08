package post

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"strings"
	"time"

	"github.com/google/go-github/v62/github"

	"github.com/reviewbot-dev/reviewbot/app/ghapi"
	"github.com/reviewbot-dev/reviewbot/app/internal/text"
	"github.com/reviewbot-dev/reviewbot/app/state"
	"github.com/reviewbot-dev/reviewbot/checks/prose"
	"github.com/reviewbot-dev/reviewbot/reviewer"
)

// StatusContext is the commit status the App sets on the reviewed head.
const StatusContext = "reviewbot"

// Executor posts a reviewer.Plan: the review with the inline comments, the
// summary comment (edited in place once it exists), the commit status. It
// checks the job's lease before every write.
type Executor struct {
	Log     *slog.Logger
	Clients ghapi.Clients // tells the bot's login when Login is ""
	Repo    *ghapi.Repo
	Number  int
	Head    string
	Lease   state.Lease
	// Login is the bot's: its own comments and reviews are found by it.
	Login string
	// Statuses are Head's statuses, newest first, when the caller read
	// them already (with the PR); nil: they are read when a status is set.
	Statuses []*github.RepoStatus
	// PRURL is the PR's page (its html_url), where a first review's
	// status links: the summary's own link is not known until it is
	// posted. "": the status waits for the summary.
	PRURL string
	// Resumed says the job took over work another replica left
	// unfinished: that replica may still be writing.
	Resumed bool
}

// Execute posts the plan. The review, the summary and the status are
// posted at once: none needs another. The status links to the summary
// when it exists (it is edited in place), else to the PR (PRURL), whose
// conversation the summary is about to join; without PRURL the status
// waits for the new summary and links to it. When the review fails, or
// GitHub cannot place some of its comments, the summary is edited to
// list those findings.
func (e *Executor) Execute(ctx context.Context, plan *reviewer.Plan, summary *github.IssueComment) error {
	body, status := plan.Summary, plan.Status
	var posted *github.IssueComment
	summarized := make(chan error, 1)
	go func() {
		target := e.PRURL
		if summary != nil {
			target = summary.GetHTMLURL()
		}
		if target == "" {
			var err error
			if posted, err = e.UpsertSummary(ctx, body, summary); err == nil {
				err = e.SetStatus(ctx, status, posted.GetHTMLURL())
			}
			summarized <- err
			return
		}
		statusSet := make(chan error, 1)
		go func() { statusSet <- e.SetStatus(ctx, status, target) }()
		var err error
		posted, err = e.UpsertSummary(ctx, body, summary)
		if serr := <-statusSet; err == nil {
			err = serr
		}
		summarized <- err
	}()
	var rerr error
	if len(plan.Inline) > 0 {
		rerr = e.PostReview(ctx, plan)
	}
	serr := <-summarized
	if rerr != nil {
		if errors.Is(rerr, state.ErrLeaseLost) || ctx.Err() != nil {
			return rerr
		}
		// The summary still lists every finding; it is the one post that
		// must not be lost.
		e.Log.Error("posting the review failed; listing its findings in the summary",
			"repo", e.Repo.Slug(), "pr", e.Number, "error", rerr)
		all := make([]int, len(plan.Inline))
		for i := range all {
			all[i] = i
		}
		plan.MoveToSummary(all...)
	}
	if serr != nil {
		return serr
	}
	if plan.Summary != body {
		return e.EditComment(ctx, posted, plan.Summary)
	}
	return nil
}

func (e *Executor) check(ctx context.Context) error {
	if err := e.Lease.Check(ctx); err != nil {
		return err
	}
	return ctx.Err()
}

func draftComments(cs []reviewer.InlineComment) []*github.DraftReviewComment {
	out := make([]*github.DraftReviewComment, len(cs))
	for i, c := range cs {
		d := &github.DraftReviewComment{Path: github.String(c.Path), Line: github.Int(c.Line),
			Side: github.String(c.Side), Body: github.String(c.Body)}
		if c.StartLine > 0 {
			d.StartLine = github.Int(c.StartLine)
			d.StartSide = github.String(c.Side)
		}
		out[i] = d
	}
	return out
}

// PostReview posts the plan's inline comments as one COMMENT review on the
// reviewed head. GitHub rejects the whole review with a 422 when one
// comment is not on its diff, without saying which: the rejected comments
// are found by trying subsets as pending reviews, moved to the summary,
// and the rest posted.
func (e *Executor) PostReview(ctx context.Context, plan *reviewer.Plan) error {
	err := e.createReview(ctx, plan, plan.Inline)
	if err == nil || !ghapi.IsStatus(err, http.StatusUnprocessableEntity) {
		return err
	}
	e.Log.Info("GitHub rejected the review; finding the comments it cannot place",
		"repo", e.Repo.Slug(), "pr", e.Number, "comments", len(plan.Inline), "error", text.FirstLine(err.Error()))
	bad, err := e.rejected(ctx, plan.Inline, 0, true)
	if err != nil {
		return err
	}
	if len(bad) == 0 {
		// Every comment is fine on its own: something else about the review
		// is wrong, and the summary must carry the findings.
		return fmt.Errorf("GitHub rejects the review although it accepts each of its comments")
	}
	for _, i := range bad {
		c := plan.Inline[i]
		e.Log.Info("inline comment moved to the summary", "repo", e.Repo.Slug(), "pr", e.Number,
			"path", c.Path, "line", c.Line, "rule", c.Finding.Rule)
	}
	plan.MoveToSummary(bad...)
	if len(plan.Inline) == 0 {
		return nil
	}
	return e.createReview(ctx, plan, plan.Inline)
}

// createReview posts one COMMENT review. A 5xx or timeout does not say
// whether GitHub created it, so before trying again the bot's reviews are
// searched for it (its body names the head).
func (e *Executor) createReview(ctx context.Context, plan *reviewer.Plan, cs []reviewer.InlineComment) error {
	req := &github.PullRequestReviewRequest{CommitID: github.String(e.Head), Body: github.String(plan.ReviewBody(e.Head)),
		Event: github.String("COMMENT"), Comments: draftComments(cs)}
	for try := 0; ; try++ {
		if err := e.check(ctx); err != nil {
			return err
		}
		_, _, err := e.Repo.Client.PullRequests.CreateReview(ctx, e.Repo.Owner, e.Repo.Name, e.Number, req)
		if err == nil || !ambiguous(err) || try == 2 {
			return err
		}
		found, lerr := e.findReview(ctx)
		if lerr != nil {
			return errors.Join(err, lerr)
		}
		if found {
			return nil
		}
	}
}

// findReview reports whether the bot already posted a submitted review of
// this head.
func (e *Executor) findReview(ctx context.Context) (bool, error) {
	found := false
	ended, err := ghapi.Pages(ghapi.MaxPages, func(opts *github.ListOptions) ([]*github.PullRequestReview, *github.Response, error) {
		return e.Repo.Client.PullRequests.ListReviews(ctx, e.Repo.Owner, e.Repo.Name, e.Number, opts)
	}, func(rs []*github.PullRequestReview) bool {
		for _, r := range rs {
			if sha, ok := reviewer.ParseReviewMarker(r.GetBody()); ok && sha == e.Head &&
				ghapi.IsUser(r.GetUser(), e.Login) && r.GetState() != "PENDING" {
				found = true
				return false
			}
		}
		return true
	})
	if err == nil && !ended {
		err = fmt.Errorf("more than %d pages", ghapi.MaxPages)
	}
	if err != nil {
		return false, fmt.Errorf("list the reviews of %s#%d: %w", e.Repo.Slug(), e.Number, err)
	}
	return found, nil
}

// rejected returns the indexes (offset by base) of the comments GitHub
// will not place, by bisection: a subset is tried as a pending review
// (invisible to others, deleted at once); a subset GitHub accepts holds no
// rejected comment. known says cs as a whole was already refused.
func (e *Executor) rejected(ctx context.Context, cs []reviewer.InlineComment, base int, known bool) ([]int, error) {
	if len(cs) == 0 {
		return nil, nil
	}
	if !known {
		ok, err := e.probe(ctx, cs)
		if err != nil || ok {
			return nil, err
		}
	}
	if len(cs) == 1 {
		if known {
			// The review failed for its only comment, or for something
			// else: one probe tells.
			ok, err := e.probe(ctx, cs)
			if err != nil || ok {
				return nil, err
			}
		}
		return []int{base}, nil
	}
	mid := len(cs) / 2
	left, err := e.rejected(ctx, cs[:mid], base, false)
	if err != nil {
		return nil, err
	}
	right, err := e.rejected(ctx, cs[mid:], base+mid, false)
	if err != nil {
		return nil, err
	}
	return append(left, right...), nil
}

// probe reports whether GitHub accepts cs, by creating them as a pending
// review and deleting it again.
func (e *Executor) probe(ctx context.Context, cs []reviewer.InlineComment) (bool, error) {
	req := &github.PullRequestReviewRequest{CommitID: github.String(e.Head), Comments: draftComments(cs)}
	for try := 0; ; try++ {
		if err := e.check(ctx); err != nil {
			return false, err
		}
		r, _, err := e.Repo.Client.PullRequests.CreateReview(ctx, e.Repo.Owner, e.Repo.Name, e.Number, req)
		if err == nil {
			if _, _, derr := e.Repo.Client.PullRequests.DeletePendingReview(ctx, e.Repo.Owner, e.Repo.Name, e.Number, r.GetID()); derr != nil {
				return false, fmt.Errorf("delete a probe review: %w", derr)
			}
			return true, nil
		}
		if !ghapi.IsStatus(err, http.StatusUnprocessableEntity) {
			return false, err
		}
		if try == 0 && strings.Contains(strings.ToLower(err.Error()), "pending review") {
			// A pending review of an earlier, interrupted probe is in the
			// way (GitHub allows one per user and PR).
			if cerr := e.deletePending(ctx); cerr != nil {
				return false, cerr
			}
			continue
		}
		return false, nil
	}
}

func (e *Executor) deletePending(ctx context.Context) error {
	rs, _, err := e.Repo.Client.PullRequests.ListReviews(ctx, e.Repo.Owner, e.Repo.Name, e.Number, &github.ListOptions{PerPage: 100})
	if err != nil {
		return fmt.Errorf("list the reviews of %s#%d: %w", e.Repo.Slug(), e.Number, err)
	}
	for _, r := range rs {
		if r.GetState() == "PENDING" && ghapi.IsUser(r.GetUser(), e.Login) {
			if _, _, err := e.Repo.Client.PullRequests.DeletePendingReview(ctx, e.Repo.Owner, e.Repo.Name, e.Number, r.GetID()); err != nil {
				return fmt.Errorf("delete a stale pending review: %w", err)
			}
		}
	}
	return nil
}

// UpsertSummary edits the summary comment in place, or posts it the first
// time. An unchanged summary is left alone.
func (e *Executor) UpsertSummary(ctx context.Context, body string, existing *github.IssueComment) (*github.IssueComment, error) {
	return e.UpsertComment(ctx, "the summary", body, existing, reviewer.ParseSummaryMarker)
}

// UpsertComment edits existing in place (an unchanged body is left alone),
// or posts body the first time. A 5xx or timeout does not say whether
// GitHub created the comment, so before posting again the bot's comments
// are searched for one whose body marked says is the same comment.
func (e *Executor) UpsertComment(ctx context.Context, what, body string, existing *github.IssueComment, marked func(string) bool) (*github.IssueComment, error) {
	if existing != nil {
		if existing.GetBody() == body {
			return existing, nil
		}
		return existing, e.EditComment(ctx, existing, body)
	}
	for try := 0; ; try++ {
		if err := e.check(ctx); err != nil {
			return nil, err
		}
		c, _, err := e.Repo.Client.Issues.CreateComment(ctx, e.Repo.Owner, e.Repo.Name, e.Number, &github.IssueComment{Body: github.String(body)})
		if err == nil {
			return c, nil
		}
		if !ambiguous(err) || try == 2 {
			return nil, fmt.Errorf("post %s on %s#%d: %w", what, e.Repo.Slug(), e.Number, err)
		}
		// GitHub may have created it before failing: look before posting
		// a second one.
		comments, lerr := e.Repo.IssueComments(ctx, e.Number)
		if lerr != nil {
			return nil, errors.Join(err, lerr)
		}
		for _, c := range comments {
			if ghapi.IsUser(c.GetUser(), e.Login) && marked(c.GetBody()) {
				return c, e.EditComment(ctx, c, body)
			}
		}
	}
}

func (e *Executor) EditComment(ctx context.Context, c *github.IssueComment, body string) error {
	if err := e.check(ctx); err != nil {
		return err
	}
	// Editing to the same body twice is harmless, so it may be retried.
	if _, _, err := e.Repo.Client.Issues.EditComment(ghapi.Idempotent(ctx), e.Repo.Owner, e.Repo.Name, c.GetID(),
		&github.IssueComment{Body: github.String(body)}); err != nil {
		return fmt.Errorf("edit comment %d on %s#%d: %w", c.GetID(), e.Repo.Slug(), e.Number, err)
	}
	return nil
}

func (e *Executor) SetStatus(ctx context.Context, st reviewer.Status, target string) error {
	return e.PostStatus(ctx, e.Head, StatusContext, st, target)
}

// PostStatus sets commit status name on sha.
func (e *Executor) PostStatus(ctx context.Context, sha, name string, st reviewer.Status, target string) error {
	if err := e.check(ctx); err != nil {
		return err
	}
	status := &github.RepoStatus{State: github.String(st.State), Description: github.String(st.Description),
		Context: github.String(name)}
	if target != "" {
		status.TargetURL = github.String(target)
	}
	if e.statusIsSet(ctx, status) {
		return nil
	}
	// Setting the same status again only repeats it: safe to retry.
	if _, _, err := e.Repo.Client.Repositories.CreateStatus(ghapi.Idempotent(ctx), e.Repo.Owner, e.Repo.Name, sha, status); err != nil {
		return fmt.Errorf("set the %s status on %s@%s: %w", name, e.Repo.Slug(), prose.ShortSHA(sha), err)
	}
	return nil
}

func (e *Executor) PostWelcome(ctx context.Context) error {
	if err := e.check(ctx); err != nil {
		return err
	}
	// Once the check has passed the write and its second look run to the
	// end: a lease lost meanwhile cancels ctx, and a welcome GitHub made
	// for a request cancelled on the way would stay without its second look.
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), welcomeTimeout)
	defer cancel()
	c, _, err := e.Repo.Client.Issues.CreateComment(ctx, e.Repo.Owner, e.Repo.Name, e.Number,
		&github.IssueComment{Body: github.String(reviewer.WelcomeComment())})
	if err != nil {
		return fmt.Errorf("post the welcome comment on %s#%d: %w", e.Repo.Slug(), e.Number, err)
	}
	// A replica that stalled between its check and the write may have lost
	// the PR meanwhile, and one that took the work over may have raced the
	// stalled one's write: of two welcomes, the later takes itself back.
	// Each poster looks after its own write, so the later one always sees
	// the earlier.
	lost := e.Lease.Check(ctx)
	if lost == nil && !e.Resumed {
		return nil
	}
	if derr := e.dropLaterWelcome(ctx, c); derr != nil {
		e.Log.Warn("could not check for a second welcome comment", "repo", e.Repo.Slug(), "pr", e.Number, "error", derr)
	}
	return lost
}

// welcomeTimeout bounds the welcome's write and its second look once they
// no longer follow the review's context.
const welcomeTimeout = 30 * time.Second

// dropLaterWelcome deletes mine, a welcome just posted, when the same
// account's welcome is already on the PR.
func (e *Executor) dropLaterWelcome(ctx context.Context, mine *github.IssueComment) error {
	comments, err := e.Repo.IssueComments(ctx, e.Number)
	if err != nil {
		return err
	}
	for _, c := range comments {
		if c.GetID() < mine.GetID() && reviewer.HasWelcomeMarker(c.GetBody()) && ghapi.IsUser(c.GetUser(), mine.GetUser().GetLogin()) {
			if _, err := e.Repo.Client.Issues.DeleteComment(ctx, e.Repo.Owner, e.Repo.Name, mine.GetID()); err != nil {
				return fmt.Errorf("delete the second welcome comment on %s#%d: %w", e.Repo.Slug(), e.Number, err)
			}
			e.Log.Info("took back a second welcome comment", "repo", e.Repo.Slug(), "pr", e.Number, "kept", c.GetID())
			return nil
		}
	}
	return nil
}

// ambiguous reports an error after which GitHub may or may not have done
// the write: a 5xx or no answer at all.
func ambiguous(err error) bool {
	var er *github.ErrorResponse
	if errors.As(err, &er) && er.Response != nil {
		return er.Response.StatusCode >= 500
	}
	var rl *github.RateLimitError
	var ab *github.AbuseRateLimitError
	if errors.As(err, &rl) || errors.As(err, &ab) {
		return false // rejected before anything was done
	}
	return !errors.Is(err, context.Canceled) && !errors.Is(err, context.DeadlineExceeded) && !errors.Is(err, state.ErrLeaseLost)
}

// React puts a reaction on conversation comment id of rc: the receipt of
// a command. err is the lease's (nothing was written); failed is the
// reaction's own failure, which the caller may shrug off.
func React(ctx context.Context, rc *ghapi.Repo, lease state.Lease, id int64, content string) (failed, err error) {
	if err := lease.Check(ctx); err != nil {
		return nil, err
	}
	_, _, failed = rc.Client.Reactions.CreateIssueCommentReaction(ghapi.Idempotent(ctx), rc.Owner, rc.Name, id, content)
	return failed, nil
}
