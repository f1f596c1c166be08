package app

import (
	"context"

	"github.com/google/go-github/v62/github"

	"github.com/reviewbot-dev/reviewbot/app/comment"
	"github.com/reviewbot-dev/reviewbot/app/gate"
	"github.com/reviewbot-dev/reviewbot/app/standing"
)

// onPullRequestReviewComment handles pull_request_review_comment
// (created, edited, deleted): a comment with the sign-off phrase on an
// open, non-draft PR is verified, for the commit it was written on.
func (s *Server) onPullRequestReviewComment(ctx context.Context, d *delivery, ev *github.PullRequestReviewCommentEvent) routed {
	pr, c, repo := ev.GetPullRequest(), ev.GetComment(), ev.GetRepo()
	if pr == nil || c == nil || repo == nil {
		return routed{outcome: "bad_payload", detail: "pull_request_review_comment without pull_request, comment or repository", status: 400}
	}
	action := ev.GetAction()
	d.action, d.repo, d.number = action, repo.GetFullName(), pr.GetNumber()
	if action != "created" && action != "edited" && action != "deleted" {
		return ignored("pull_request_review_comment " + action + " needs nothing")
	}
	if c.GetUser().GetType() == "Bot" {
		return ignored("comment by a bot")
	}
	before := ev.GetChanges().GetBody().GetFrom()
	if !comment.HasSignoff(c.GetBody()) && !comment.HasSignoff(before) {
		return ignored("review comment without the sign-off phrase")
	}
	if r := signoffTarget(repo, pr); r != nil {
		return *r
	}
	j := newPRJob(ev.GetInstallation().GetID(), repo.GetOwner().GetLogin(), repo.GetName(), pr.GetNumber())
	at := c.GetCreatedAt().Time
	if action == "edited" {
		at = c.GetUpdatedAt().Time
		if err := s.ledger.RecordEdit(ctx, j.key, standing.EditObject(standing.ReviewComment, c.GetID()), ev.GetSender().GetLogin(), at); err != nil {
			return routed{outcome: "store_error", detail: "cannot record who edited the comment: " + err.Error(), status: 503}
		}
	}
	j.req.signoffs = []*gate.Request{{Source: standing.ReviewComment, ID: c.GetID(), URL: c.GetHTMLURL(),
		Author: c.GetUser().GetLogin(), Body: c.GetBody(), At: at, Commit: standing.ReviewCommentCommit(c), Gone: action == "deleted"}}
	return routed{job: j, detail: "sign-off in a review comment by " + c.GetUser().GetLogin()}
}
