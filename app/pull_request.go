package app

import (
	"context"

	"github.com/google/go-github/v62/github"
)

// onPullRequest handles pull_request: a review on opened, reopened,
// ready_for_review and synchronize (the first three also post the welcome
// comment once); the label rules only on labeled, unlabeled and edited.
func (s *Server) onPullRequest(_ context.Context, d *delivery, ev *github.PullRequestEvent) routed {
	pr := ev.GetPullRequest()
	owner, repo := ev.GetRepo().GetOwner().GetLogin(), ev.GetRepo().GetName()
	d.action, d.repo, d.number = ev.GetAction(), ev.GetRepo().GetFullName(), pr.GetNumber()
	if owner == "" || repo == "" || pr.GetNumber() == 0 {
		return routed{outcome: "bad_payload", detail: "pull_request without repository or number", status: 400}
	}
	j := newPRJob(ev.GetInstallation().GetID(), owner, repo, pr.GetNumber())
	j.req.pr = pr
	switch ev.GetAction() {
	case "opened", "reopened", "ready_for_review":
		j.req.review, j.req.welcome = true, true
	case "synchronize":
		j.req.review = true
	case "edited":
		// A retargeted PR has a different diff: review it. Other edits
		// (title, body) only matter to the label rules.
		j.req.review = ev.GetChanges().GetBase() != nil
		j.req.labels = !j.req.review
	case "labeled", "unlabeled":
		j.req.labels = true
	default:
		return ignored("pull_request " + ev.GetAction() + " needs no review")
	}
	if pr.GetState() != "open" {
		return ignored("pull request is not open")
	}
	if j.req.review {
		return routed{job: j, detail: "review"}
	}
	return routed{job: j, detail: "labels"}
}
