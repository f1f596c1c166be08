package app

import (
	"context"

	"github.com/google/go-github/v62/github"

	"github.com/reviewbot-dev/reviewbot/app/comment"
	"github.com/reviewbot-dev/reviewbot/app/gate"
	"github.com/reviewbot-dev/reviewbot/app/standing"
)

// onPullRequestReview handles pull_request_review. A review body with the
// sign-off phrase (submitted or edited) on an open, non-draft PR is
// verified; a dismissed review withdraws its sign-off, and so does an
// edit by someone other than the review's author.
func (s *Server) onPullRequestReview(ctx context.Context, d *delivery, ev *github.PullRequestReviewEvent) routed {
	pr, review, repo := ev.GetPullRequest(), ev.GetReview(), ev.GetRepo()
	if pr == nil || review == nil || repo == nil {
		return routed{outcome: "bad_payload", detail: "pull_request_review without pull_request, review or repository", status: 400}
	}
	d.action, d.repo, d.number = ev.GetAction(), repo.GetFullName(), pr.GetNumber()
	action := ev.GetAction()
	if action != "submitted" && action != "edited" && action != "dismissed" {
		return ignored("pull_request_review " + action + " needs nothing")
	}
	if review.GetUser().GetType() == "Bot" {
		return ignored("review by a bot")
	}
	// An edit may have removed the phrase (the event does not say what
	// the body was) and a dismissal withdraws whatever the review said:
	// both are looked at in the job.
	if action == "submitted" && !comment.HasSignoff(review.GetBody()) {
		return ignored("review without the sign-off phrase")
	}
	if r := signoffTarget(repo, pr); r != nil {
		return *r
	}
	j := newPRJob(ev.GetInstallation().GetID(), repo.GetOwner().GetLogin(), repo.GetName(), pr.GetNumber())
	if action == "edited" {
		if err := s.ledger.RecordEdit(ctx, j.key, standing.EditObject(standing.Review, review.GetID()), ev.GetSender().GetLogin(), s.now()); err != nil {
			return routed{outcome: "store_error", detail: "cannot record who edited the review: " + err.Error(), status: 503}
		}
	}
	j.req.signoffs = []*gate.Request{{Source: standing.Review, ID: review.GetID(), URL: review.GetHTMLURL(),
		Author: review.GetUser().GetLogin(), Body: review.GetBody(), At: review.GetSubmittedAt().Time, Commit: review.GetCommitID(),
		Gone: action == "dismissed"}}
	detail := "sign-off in a review by " + review.GetUser().GetLogin()
	if action == "dismissed" {
		detail = "review with a sign-off dismissed"
	}
	return routed{job: j, detail: detail}
}

// signoffTarget says why a sign-off on pr is not verified (no PR,
// closed, draft), or nil.
func signoffTarget(repo *github.Repository, pr *github.PullRequest) *routed {
	var r routed
	switch {
	case pr.GetNumber() == 0 || repo.GetOwner().GetLogin() == "" || repo.GetName() == "":
		r = routed{outcome: "bad_payload", detail: "pull request without a number or repository", status: 400}
	case pr.GetState() != "" && pr.GetState() != "open":
		r = ignored("sign-off on a pull request that is not open")
	case pr.GetDraft():
		r = ignored("sign-off on a draft pull request: verified once it is ready and signed off again")
	default:
		return nil
	}
	return &r
}
