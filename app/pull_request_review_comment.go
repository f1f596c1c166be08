package app

import (
	"context"

	"github.com/google/go-github/v62/github"
)

// onPullRequestReviewComment handles pull_request_review_comment (created,
// edited): only a comment with the sign-off phrase concerns the App.
func (s *Server) onPullRequestReviewComment(_ context.Context, d *delivery, ev *github.PullRequestReviewCommentEvent) routed {
	d.action, d.repo, d.number = ev.GetAction(), ev.GetRepo().GetFullName(), ev.GetPullRequest().GetNumber()
	if ev.GetAction() != "created" && ev.GetAction() != "edited" {
		return ignored("pull_request_review_comment " + ev.GetAction() + " needs nothing")
	}
	if ev.GetComment().GetUser().GetType() == "Bot" {
		return ignored("comment by a bot")
	}
	if !hasSignoff(ev.GetComment().GetBody()) {
		return ignored("review comment without the sign-off phrase")
	}
	s.log.Info("sign-off review comment received", append(d.attrs(), "user", ev.GetComment().GetUser().GetLogin())...)
	return ignored(signoffUnsupported)
}
