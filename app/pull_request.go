package app

import (
	"context"

	"github.com/google/go-github/v62/github"

	"github.com/reviewbot-dev/reviewbot/app/internal/text"
)

// onPullRequest handles pull_request: a review on opened, reopened,
// ready_for_review and synchronize (the first three also post the welcome
// comment once); the label rules only on labeled, unlabeled and edited.
// Every event also records the PR's head in the ledger: which commit a
// later conversation-comment sign-off covers is decided from that record.
func (s *Server) onPullRequest(ctx context.Context, d *delivery, ev *github.PullRequestEvent) routed {
	pr, repo := ev.GetPullRequest(), ev.GetRepo()
	if pr == nil || repo == nil {
		return routed{outcome: "bad_payload", detail: "pull_request without pull_request or repository", status: 400}
	}
	owner, name := repo.GetOwner().GetLogin(), repo.GetName()
	d.action, d.repo, d.number = ev.GetAction(), repo.GetFullName(), pr.GetNumber()
	if owner == "" || name == "" || pr.GetNumber() == 0 {
		return routed{outcome: "bad_payload", detail: "pull_request without repository or number", status: 400}
	}
	j := newPRJob(ev.GetInstallation().GetID(), owner, name, pr.GetNumber())
	if sha := pr.GetHead().GetSHA(); sha != "" {
		// The head became the head no later than the event: GitHub's
		// updated_at of the PR, or when the App received the event,
		// whichever is later.
		at := s.now().Add(headSkew)
		if u := pr.GetUpdatedAt().Time; u.After(at) {
			at = u
		}
		if err := s.ledger.RecordHead(ctx, j.key, sha, at); err != nil {
			// Without the record a sign-off is matched to an older head
			// or none: it can fail, never pass wrongly.
			s.log.Warn("could not record the head", append(d.attrs(), "head", text.Short(sha), "error", err)...)
		}
	}
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
