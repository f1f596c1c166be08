package app

import (
	"context"
	"time"

	"github.com/google/go-github/v62/github"

	"github.com/reviewbot-dev/reviewbot/app/gate"
	"github.com/reviewbot-dev/reviewbot/app/state"
	"github.com/reviewbot-dev/reviewbot/checks/prose"
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
		recorded, err := s.headFromPayload(ctx, j.key, ev, sha)
		switch {
		case err != nil:
			// Without the record a sign-off is matched to an older head
			// or none: it can fail, never pass wrongly.
			s.log.Warn("could not record the head", append(d.attrs(), "head", prose.ShortSHA(sha), "error", err)...)
		case !recorded:
			// A late, repeated or out-of-order delivery: its head may be
			// one a later push replaced. The job reads the head from the
			// API instead.
			j.req.readHead = true
		}
	}
	if !j.req.readHead {
		j.req.pr = pr
	}
	switch ev.GetAction() {
	case "opened", "reopened", "ready_for_review":
		j.req.review, j.req.welcome = true, true
	case "synchronize":
		j.req.review = true
	case "edited":
		// A retargeted PR has a different diff: review it, and withdraw
		// the verdicts verified against the old base. Other edits (title,
		// body) only matter to the label rules.
		if ev.GetChanges().GetBase() != nil {
			if err := s.ledger.RecordEdit(ctx, j.key, state.BaseObject, ev.GetSender().GetLogin(), s.headTime(pr)); err != nil {
				return routed{outcome: "store_error", detail: "cannot record the base change: " + err.Error(), status: 503}
			}
			j.req.review, j.req.baseChanged = true, true
		} else {
			j.req.labels = true
		}
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

// headTime is when the head a delivery carries became the head, at the
// latest: GitHub's updated_at of the PR, or when the App received the
// event, whichever is later.
func (s *Server) headTime(pr *github.PullRequest) time.Time {
	at := s.now().Add(gate.HeadSkew)
	if u := pr.GetUpdatedAt().Time; u.After(at) {
		at = u
	}
	return at
}

// headFromPayload records the head a pull_request delivery carries when
// the delivery is known to be the newest word on it: the head the App
// already recorded, a push whose "before" is the newest recorded head, or
// the opening of a PR the App knows nothing of. GitHub may deliver late,
// twice or out of order, so any other delivery's head could be older than
// the one recorded: it is not recorded, and recorded is false.
func (s *Server) headFromPayload(ctx context.Context, key string, ev *github.PullRequestEvent, sha string) (recorded bool, err error) {
	newest, known, err := s.ledger.Newest(ctx, key)
	if err != nil {
		return false, err
	}
	switch {
	case known && newest == sha:
	case known && ev.GetAction() == "synchronize" && ev.GetBefore() == newest:
	case !known && ev.GetAction() == "opened":
	default:
		return false, nil
	}
	return true, s.ledger.RecordHead(ctx, key, sha, s.headTime(ev.GetPullRequest()))
}
