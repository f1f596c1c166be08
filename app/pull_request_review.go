package app

import (
	"context"

	"github.com/google/go-github/v62/github"
)

// onPullRequestReview handles pull_request_review (submitted, edited):
// only a review body with the sign-off phrase concerns the App.
func (s *Server) onPullRequestReview(_ context.Context, d *delivery, ev *github.PullRequestReviewEvent) routed {
	d.action, d.repo, d.number = ev.GetAction(), ev.GetRepo().GetFullName(), ev.GetPullRequest().GetNumber()
	if ev.GetAction() != "submitted" && ev.GetAction() != "edited" {
		return ignored("pull_request_review " + ev.GetAction() + " needs nothing")
	}
	if !hasSignoff(ev.GetReview().GetBody()) {
		return ignored("review without the sign-off phrase")
	}
	s.log.Info("sign-off review received", append(d.attrs(), "user", ev.GetReview().GetUser().GetLogin())...)
	return ignored(signoffUnsupported)
}
