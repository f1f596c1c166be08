package app

import (
	"context"

	"github.com/google/go-github/v62/github"
)

// onPullRequestReviewComment handles pull_request_review_comment (created,
// edited): a comment with the sign-off phrase on an open, non-draft PR is
// verified, for the commit the comment was written on.
func (s *Server) onPullRequestReviewComment(_ context.Context, d *delivery, ev *github.PullRequestReviewCommentEvent) routed {
	pr, c := ev.GetPullRequest(), ev.GetComment()
	d.action, d.repo, d.number = ev.GetAction(), ev.GetRepo().GetFullName(), pr.GetNumber()
	if ev.GetAction() != "created" && ev.GetAction() != "edited" {
		return ignored("pull_request_review_comment " + ev.GetAction() + " needs nothing")
	}
	if c.GetUser().GetType() == "Bot" {
		return ignored("comment by a bot")
	}
	if !hasSignoff(c.GetBody()) {
		return ignored("review comment without the sign-off phrase")
	}
	if r := signoffTarget(pr); r != nil {
		return *r
	}
	commit := c.GetOriginalCommitID()
	if commit == "" {
		commit = c.GetCommitID()
	}
	at := c.GetUpdatedAt().Time
	if at.IsZero() {
		at = c.GetCreatedAt().Time
	}
	j := newPRJob(ev.GetInstallation().GetID(), ev.GetRepo().GetOwner().GetLogin(), ev.GetRepo().GetName(), pr.GetNumber())
	j.req.signoffs = []*signoffRequest{{source: sourceReviewComment, id: c.GetID(), url: c.GetHTMLURL(),
		author: c.GetUser().GetLogin(), body: c.GetBody(), at: at, commit: commit}}
	return routed{job: j, detail: "sign-off in a review comment by " + c.GetUser().GetLogin()}
}
