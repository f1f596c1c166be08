package app

import (
	"context"

	"github.com/google/go-github/v62/github"
)

// onPullRequestReview handles pull_request_review (submitted, edited): a
// review body with the sign-off phrase on an open, non-draft PR is
// verified.
func (s *Server) onPullRequestReview(_ context.Context, d *delivery, ev *github.PullRequestReviewEvent) routed {
	pr, review := ev.GetPullRequest(), ev.GetReview()
	d.action, d.repo, d.number = ev.GetAction(), ev.GetRepo().GetFullName(), pr.GetNumber()
	if ev.GetAction() != "submitted" && ev.GetAction() != "edited" {
		return ignored("pull_request_review " + ev.GetAction() + " needs nothing")
	}
	if review.GetUser().GetType() == "Bot" {
		return ignored("review by a bot")
	}
	if !hasSignoff(review.GetBody()) {
		return ignored("review without the sign-off phrase")
	}
	if r := signoffTarget(pr); r != nil {
		return *r
	}
	j := newPRJob(ev.GetInstallation().GetID(), ev.GetRepo().GetOwner().GetLogin(), ev.GetRepo().GetName(), pr.GetNumber())
	j.req.signoffs = []*signoffRequest{{source: sourceReview, id: review.GetID(), url: review.GetHTMLURL(),
		author: review.GetUser().GetLogin(), body: review.GetBody(), at: review.GetSubmittedAt().Time, commit: review.GetCommitID()}}
	return routed{job: j, detail: "sign-off in a review by " + review.GetUser().GetLogin()}
}

// signoffTarget says why a sign-off on pr is not verified (closed, draft),
// or nil.
func signoffTarget(pr *github.PullRequest) *routed {
	var r routed
	switch {
	case pr.GetNumber() == 0:
		r = routed{outcome: "bad_payload", detail: "pull request without a number", status: 400}
	case pr.GetState() != "" && pr.GetState() != "open":
		r = ignored("sign-off on a pull request that is not open")
	case pr.GetDraft():
		r = ignored("sign-off on a draft pull request: verified once it is ready and signed off again")
	default:
		return nil
	}
	return &r
}
